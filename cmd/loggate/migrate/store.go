package migrate

import (
	"context"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"
	"net/url"
	"os"
	"path/filepath"
	"strings"
	"time"

	"github.com/loggate/loggate/backend/logs/indexsets"
	"github.com/loggate/loggate/backend/logs/messages/elastic"
	"github.com/loggate/loggate/backend/logs/messages/embedded"
	storemongo "github.com/loggate/loggate/backend/store/mongo"
	"github.com/loggate/loggate/cmd/loggate/node"
)

// storeUsage is the help text of `loggate migrate store`.
const storeUsage = `usage: loggate migrate store --data_dir DIR --to-mongodb URI [--to-elasticsearch URL[,URL…]]
                            [--apply] [--overwrite] [--batch N]

Copies a single node's embedded stores to shared ones, to make it the first
node of a cluster: every document of DIR/loggate.db to MongoDB (same ids,
same bytes) and, with --to-elasticsearch, every message of DIR/messages to
the indices of the same names in Elasticsearch. Stop the node first. An
interrupted run continues where it stopped (progress in
DIR/migrate-store.json); at the end source and destination are compared,
and the command fails naming what differs.

  --data_dir DIR              the node's data_dir (no node may be running on it)
  --to-mongodb URI            the MongoDB to copy the documents to (its database: the URI's, else "loggate")
  --to-elasticsearch URLS     the Elasticsearch to copy the messages to, comma-separated
  --apply                     copy; without it, only show what would be copied
  --overwrite                 replace documents that differ at the destination
                              (without it they are reported as conflicts and left alone)
  --batch N                   messages per read and write (default 1000)
`

// defaultBatch is how many messages a page reads and a write sends.
const defaultBatch = 1000

// storeFlags are the flags of `migrate store`.
type storeFlags struct {
	dataDir, mongoURI, esHosts string
	apply, overwrite           bool
	batch                      int
}

func parseStoreFlags(args []string) (storeFlags, error) {
	var f storeFlags
	fs := flag.NewFlagSet("migrate store", flag.ContinueOnError)
	fs.SetOutput(io.Discard)
	fs.StringVar(&f.dataDir, "data_dir", "", "")
	fs.StringVar(&f.mongoURI, "to-mongodb", "", "")
	fs.StringVar(&f.esHosts, "to-elasticsearch", "", "")
	fs.BoolVar(&f.apply, "apply", false, "")
	fs.BoolVar(&f.overwrite, "overwrite", false, "")
	fs.IntVar(&f.batch, "batch", defaultBatch, "")
	if err := fs.Parse(args); err != nil {
		return f, err
	}
	switch {
	case fs.NArg() > 0:
		return f, fmt.Errorf("unexpected argument %q", fs.Arg(0))
	case f.dataDir == "":
		return f, errors.New("say which data_dir to migrate: --data_dir DIR")
	case f.mongoURI == "":
		return f, errors.New("say where to copy the documents: --to-mongodb URI")
	case f.batch < 1:
		return f, fmt.Errorf("--batch %d: must be at least 1", f.batch)
	}
	return f, nil
}

func runStore(ctx context.Context, args []string, o Options) error {
	f, err := parseStoreFlags(args)
	if errors.Is(err, flag.ErrHelp) {
		fmt.Fprint(o.Stdout, storeUsage)
		return nil
	}
	if err != nil {
		return err
	}
	// The document store first: its lock says whether a node runs.
	src, err := openBoltSource(filepath.Join(f.dataDir, "loggate.db"))
	if err != nil {
		return err
	}
	defer src.Close()
	dst, err := storemongo.Open(ctx, f.mongoURI, node.Indexes())
	if err != nil {
		return fmt.Errorf("--to-mongodb: %w", err)
	}
	defer dst.Close()
	m := &storeMigration{
		o: o, dir: f.dataDir, src: src, dst: dst, batch: f.batch, overwrite: f.overwrite, now: time.Now,
		dstName: fmt.Sprintf("MongoDB %s (database %s)", storemongo.Redact(f.mongoURI), dst.Database()),
	}
	destination := "mongodb " + storemongo.Redact(f.mongoURI) + " " + dst.Database()
	msgDir := filepath.Join(f.dataDir, "messages")
	if f.esHosts != "" {
		if _, err := os.Stat(msgDir); err == nil {
			src, err := embedded.Open(msgDir, embedded.Options{MergeFactor: -1})
			if err != nil {
				return err
			}
			defer src.Close()
			hosts := elastic.SplitHosts(f.esHosts)
			es, err := elastic.Open(ctx, elastic.Options{Hosts: hosts, Node: nodeID(f.dataDir), Settings: m.indexSettings()})
			if err != nil {
				return fmt.Errorf("--to-elasticsearch: %w", err)
			}
			defer es.Close()
			m.msgSrc, m.msgDst = src, es
			m.msgDstName = "Elasticsearch " + displayHosts(hosts)
			destination += "; elasticsearch " + displayHosts(hosts)
		} else {
			fmt.Fprintf(o.Stdout, "No embedded message store in %s: no messages to copy.\n\n", msgDir)
		}
	}
	if m.state, err = loadState(f.dataDir, destination); err != nil {
		return err
	}
	return m.run(ctx, f.apply)
}

// nodeID is the node's id from its data_dir, which names its checkpoint
// in Elasticsearch; "" when it has none.
func nodeID(dir string) string {
	b, err := os.ReadFile(filepath.Join(dir, "node-id"))
	if err != nil {
		return ""
	}
	return strings.TrimSpace(string(b))
}

// indexSettings gives the Elasticsearch store the settings of the index
// sets of the source (shards, replicas, analyzer, result window), for the
// indices it creates, as a node does.
func (m *storeMigration) indexSettings() func(prefix string) elastic.IndexSettings {
	sets := map[string]elastic.IndexSettings{}
	_ = m.src.each(indexsets.Collection, func(_ string, doc []byte) error {
		var is indexsets.IndexSet
		if json.Unmarshal(doc, &is) == nil {
			sets[is.IndexPrefix] = elastic.IndexSettings{Shards: is.Shards, Replicas: is.Replicas,
				Analyzer: is.IndexAnalyzer, MaxResultWindow: is.MaxResultWindow}
		}
		return nil
	})
	return func(prefix string) elastic.IndexSettings { return sets[prefix] }
}

// displayHosts names hosts without their credentials.
func displayHosts(hosts []string) string {
	out := make([]string, len(hosts))
	for i, h := range hosts {
		u, err := url.Parse(h)
		if err != nil {
			out[i] = "(unparsable URL)"
			continue
		}
		u.User = nil
		out[i] = u.String()
	}
	return strings.Join(out, ",")
}

// run shows the plan and, with apply, copies, verifies and tells the
// operator what is left to do.
func (m *storeMigration) run(ctx context.Context, apply bool) error {
	out := m.o.Stdout
	p, err := m.makePlan(ctx)
	if err != nil {
		return err
	}
	m.printPlan(out, p)
	docs, msgs, indices, conflicts := p.work(m.overwrite)
	switch {
	case docs == 0 && indices == 0 && conflicts == 0:
		fmt.Fprintln(out, "\nNothing to do.")
		if !apply {
			m.remind(out)
			return nil
		}
	case !apply:
		fmt.Fprintln(out, "\nDry run: nothing was changed. Run again with --apply to do it.")
		m.remind(out)
		return nil
	default:
		if err := m.copy(ctx, p, docs, msgs); err != nil {
			return err
		}
	}
	v, err := m.verify(ctx, p)
	if err != nil {
		return err
	}
	if !v.ok() {
		var what []string
		if len(v.badCollections) > 0 {
			what = append(what, "collections "+names(v.badCollections))
		}
		if len(v.badIndices) > 0 {
			what = append(what, "indices "+names(v.badIndices))
		}
		return fmt.Errorf("verification failed: the destination differs from the source in %s", strings.Join(what, " and "))
	}
	fmt.Fprintf(out, "Verified: %d collections (%d documents)", v.collections, v.docs)
	if m.msgDst != nil {
		fmt.Fprintf(out, " and %d indices (%d messages)", v.indices, v.msgs)
		// The checkpoint of the node's journal goes with its messages,
		// so that a node started on the new store resumes the journal
		// where the old store stood.
		if cp := m.msgSrc.Checkpoint(); cp > m.msgDst.Checkpoint() {
			if err := m.msgDst.Flush(ctx, cp); err != nil {
				return fmt.Errorf("record the journal checkpoint at the destination: %w", err)
			}
		}
	}
	fmt.Fprintln(out, " are identical at the destination.")
	m.remind(out)
	return nil
}

// copy copies and prints what it did and how fast.
func (m *storeMigration) copy(ctx context.Context, p *plan, docs int, msgs int64) error {
	var cs copyStats
	err := m.copyDocuments(ctx, p, docs, &cs)
	var failed []string
	if err == nil && m.msgDst != nil {
		failed, err = m.copyMessages(ctx, p, msgs, &cs)
	}
	out := m.o.Stdout
	fmt.Fprintf(out, "\nCopied %d documents in %s (%s)", cs.docs, cs.docTime.Round(time.Millisecond), rate(cs.docs, cs.docTime, "documents"))
	if m.msgDst != nil {
		fmt.Fprintf(out, ", %d messages in %s (%s)", cs.msgs, cs.msgTime.Round(time.Millisecond), rate(int(cs.msgs), cs.msgTime, "messages"))
	}
	fmt.Fprintln(out, ".")
	if errors.Is(err, errInterrupted) {
		return fmt.Errorf("copy %w; run the command again to continue", err)
	}
	if err != nil {
		return err
	}
	if cs.conflicts > 0 {
		fmt.Fprintf(out, "%d documents were not copied: another document at the destination holds one of their unique values.\n", cs.conflicts)
	}
	if len(failed) > 0 {
		fmt.Fprintf(out, "Not copied: indices %s.\n", names(failed))
	}
	return nil
}

func rate(n int, d time.Duration, what string) string {
	if d <= 0 || n == 0 {
		return "0 " + what + "/s"
	}
	return fmt.Sprintf("%.0f %s/s", float64(n)/d.Seconds(), what)
}

// remind tells the operator what the stores do not carry: the secret the
// tokens are encrypted with, and the node's own files.
func (m *storeMigration) remind(w io.Writer) {
	secret := filepath.Join(m.dir, "password-secret")
	fmt.Fprintln(w, "\nEvery node on these stores must use the same password_secret as this one: access tokens and")
	fmt.Fprintln(w, "stored passwords are encrypted with keys derived from it, and are unreadable under another.")
	if _, err := os.Stat(secret); err == nil {
		fmt.Fprintf(w, "This node's password_secret was generated; it is in %s. Set password_secret to its content on every node.\n", secret)
	} else {
		fmt.Fprintln(w, "This node's password_secret comes from its configuration; set the same on every node.")
	}
	fmt.Fprintf(w, "Keep %s for this node (its node-id and journal): records still in the journal are processed into the new stores when it starts on them.\n", m.dir)
	if m.msgDst == nil {
		if _, err := os.Stat(filepath.Join(m.dir, "messages")); err == nil {
			fmt.Fprintf(w, "Messages in %s are not copied (no --to-elasticsearch); a node keeps searching them there as long as it keeps this data_dir.\n",
				filepath.Join(m.dir, "messages"))
		}
	}
}
