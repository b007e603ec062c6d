package elastic

import (
	"cmp"
	"context"
	"errors"
	"fmt"
	"log/slog"
	"net/http"
	"net/url"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/elastic/elastic-transport-go/v8/elastictransport"
	"github.com/elastic/go-elasticsearch/v8/esapi"

	"github.com/loggate/loggate/backend/logs/messages"
)

var _ messages.Store = (*Store)(nil)

// Defaults of Options.
const (
	// DefaultHost is Graylog's default elasticsearch_hosts.
	DefaultHost = "http://127.0.0.1:9200"
	// DefaultStateIndex holds the checkpoints. Its name has no underscore,
	// so no index pattern <prefix>_* of an index set can match it.
	DefaultStateIndex = "loggate-state"
	// DefaultNode names the checkpoint document when Options.Node is empty.
	DefaultNode = "default"
	// DefaultTimeout bounds one request when the caller's context has no
	// deadline. Write waits for a refresh, so it is well above
	// Elasticsearch's default refresh interval of one second.
	DefaultTimeout = 30 * time.Second
)

// Options configure Open.
type Options struct {
	// Hosts are the base URLs of the cluster's nodes, Graylog's
	// elasticsearch_hosts; DefaultHost when empty. A URL may carry
	// user:password, which is used as Username and Password when those
	// are empty and never appears in errors.
	Hosts []string
	// Username and Password authenticate with HTTP basic auth.
	Username, Password string
	// Transport performs the HTTP requests; a clone of
	// http.DefaultTransport when nil.
	Transport http.RoundTripper
	// Timeout bounds a request whose context has no deadline;
	// DefaultTimeout when 0.
	Timeout time.Duration
	// Now is the clock, for the time a checkpoint was stored; time.Now
	// when nil.
	Now func() time.Time
	// Shards, Replicas and MaxResultWindow are the settings of new
	// indices unless Settings gives others for the prefix; see
	// IndexSettings.
	Shards, Replicas, MaxResultWindow int
	// Settings, when set, returns the settings of the indices of one
	// index set: its shards, replicas, analyzer and result window.
	Settings func(prefix string) IndexSettings
	// StateIndex is the index holding checkpoints; DefaultStateIndex when
	// empty.
	StateIndex string
	// Namespace is put before every index, alias and template name the
	// store uses, the state index included, so that several loggate
	// clusters, or tests, can share one Elasticsearch cluster. Names in
	// results and arguments are without it. Empty, the layout is
	// Graylog's. It must be lower case letters, digits, "-" and "_".
	Namespace string
	// Node names this loggate node's checkpoint document: each node has a
	// journal of its own. DefaultNode when empty.
	Node string
	// Logger receives warnings; slog.Default() when nil.
	Logger *slog.Logger
}

// IndexSettings are the settings of the indices of one index set.
type IndexSettings struct {
	// Shards is index.number_of_shards; 0 leaves the server's default.
	// Replicas is index.number_of_replicas, always set: 0, Graylog's
	// default, means none (the server's default of 1 would leave a
	// single-node cluster yellow).
	Shards, Replicas int
	// Analyzer analyzes message and full_message; "standard" when empty,
	// as in Graylog's default index set.
	Analyzer string
	// MaxResultWindow is index.max_result_window; 0 means
	// DefaultMaxResultWindow.
	MaxResultWindow int
}

// Store is a messages.Store on an Elasticsearch or OpenSearch cluster. It is
// safe for concurrent use, also by several loggate nodes sharing a cluster.
type Store struct {
	tp         *elastictransport.Client
	hosts      string // for messages, without credentials
	srv        server
	timeout    time.Duration
	now        func() time.Time
	stateIndex string
	ns         string
	node       string
	settings   func(prefix string) IndexSettings
	log        *slog.Logger

	checkpoint atomic.Uint64
	flushMu    sync.Mutex // orders Flushes, so the stored checkpoint is the last one
	closed     atomic.Bool

	mu       sync.Mutex
	series   map[string]bool // physical prefixes whose template and write index exist
	ensureMu sync.Mutex      // serializes ensureSeries
}

// Open connects to the cluster, learns its version, creates the state index
// if needed and reads this node's checkpoint. It fails with an error
// wrapping messages.ErrUnavailable when no node answers.
func Open(ctx context.Context, opts Options) (*Store, error) {
	if opts.Namespace != "" && !validName(opts.Namespace) {
		return nil, fmt.Errorf("open Elasticsearch store: invalid namespace %q", opts.Namespace)
	}
	urls, user, pass, err := parseHosts(opts.Hosts)
	if err != nil {
		return nil, fmt.Errorf("open Elasticsearch store: %w", err)
	}
	if opts.Username != "" || opts.Password != "" {
		user, pass = opts.Username, opts.Password
	}
	// The transport alone, not elasticsearch.Client: esapi requests run on
	// it without the client's product check (see the package comment).
	tp, err := elastictransport.NewClient(
		elastictransport.WithURLs(urls...),
		elastictransport.WithBasicAuth(user, pass),
		elastictransport.WithTransport(opts.Transport),
		elastictransport.WithUserAgent("loggate"),
	)
	if err != nil {
		return nil, fmt.Errorf("open Elasticsearch store: %w", err)
	}
	hosts := make([]string, len(urls))
	for i, u := range urls {
		hosts[i] = u.String()
	}
	s := &Store{
		tp:         tp,
		hosts:      strings.Join(hosts, ","),
		timeout:    cmp.Or(opts.Timeout, DefaultTimeout),
		now:        opts.Now,
		stateIndex: opts.Namespace + cmp.Or(opts.StateIndex, DefaultStateIndex),
		ns:         opts.Namespace,
		node:       cmp.Or(opts.Node, DefaultNode),
		settings:   opts.Settings,
		log:        opts.Logger,
		series:     make(map[string]bool),
	}
	if s.now == nil {
		s.now = time.Now
	}
	if s.log == nil {
		s.log = slog.Default()
	}
	if s.settings == nil {
		def := IndexSettings{Shards: opts.Shards, Replicas: opts.Replicas, MaxResultWindow: opts.MaxResultWindow}
		s.settings = func(string) IndexSettings { return def }
	}
	if settings := s.settings; s.ns != "" {
		// Settings are asked for by index set prefix.
		s.settings = func(p string) IndexSettings { return settings(strings.TrimPrefix(p, s.ns)) }
	}
	if err := s.init(ctx); err != nil {
		_ = tp.Close(context.Background())
		return nil, fmt.Errorf("open Elasticsearch store: %w", err)
	}
	return s, nil
}

func (s *Store) init(ctx context.Context) error {
	status, body, err := s.do(ctx, esapi.InfoRequest{})
	if err != nil {
		return err
	}
	if status != http.StatusOK {
		return s.fail("GET /", status, body)
	}
	if s.srv, err = parseServer(body); err != nil {
		return fmt.Errorf("%s: %w", s.hosts, err)
	}
	if (!s.srv.OpenSearch && s.srv.Major >= 8) || (s.srv.OpenSearch && s.srv.Major >= 3) {
		// Graylog 4.0 supports 6.8 to 7.10; later versions still take
		// legacy templates but may drop them.
		s.log.Warn("Elasticsearch version not tested with loggate", "hosts", s.hosts, "version", s.srv.Number, "opensearch", s.srv.OpenSearch)
	}
	if err := s.createStateIndex(ctx); err != nil {
		return err
	}
	cp, err := s.readCheckpoint(ctx)
	if err != nil {
		return err
	}
	s.checkpoint.Store(cp)
	return nil
}

// Version returns the server's version number, e.g. "7.10.2", and
// whether it is OpenSearch.
func (s *Store) Version() (number string, openSearch bool) {
	return s.srv.Number, s.srv.OpenSearch
}

// Close releases the connections. Operations after Close fail with
// messages.ErrUnavailable.
func (s *Store) Close() error {
	if s.closed.Swap(true) {
		return nil
	}
	if err := s.tp.Close(context.Background()); err != nil && !errors.Is(err, elastictransport.ErrAlreadyClosed) {
		return fmt.Errorf("close Elasticsearch store: %w", err)
	}
	return nil
}

// SplitHosts splits the value of Graylog's elasticsearch_hosts setting, a
// comma-separated list of URLs, into Options.Hosts.
func SplitHosts(v string) []string {
	var hosts []string
	for h := range strings.SplitSeq(v, ",") {
		if h = strings.TrimSpace(h); h != "" {
			hosts = append(hosts, h)
		}
	}
	return hosts
}

// parseHosts parses the host URLs and takes their credentials out: the
// first user:password found is the one used, as Graylog uses one set of
// credentials for the cluster.
func parseHosts(hosts []string) (urls []*url.URL, user, pass string, err error) {
	if len(hosts) == 0 {
		hosts = []string{DefaultHost}
	}
	for _, h := range hosts {
		u, err := url.Parse(h)
		// An "@" after the host is a password with an unescaped "/", "?"
		// or "#", whose start would otherwise be read as the host and port
		// and whose rest kept in the path, shown in every error.
		if err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" ||
			strings.ContainsRune(u.Path+u.RawQuery+u.Fragment, '@') {
			return nil, "", "", fmt.Errorf("invalid Elasticsearch host %q: want http(s)://host:port", redact(h))
		}
		if u.User != nil {
			if user == "" {
				user = u.User.Username()
				pass, _ = u.User.Password()
			}
			u.User = nil
		}
		u.Path = strings.TrimSuffix(u.Path, "/")
		u.RawQuery, u.Fragment = "", ""
		urls = append(urls, u)
	}
	return urls, user, pass, nil
}

// redact hides what may be a password in a host that does not parse.
func redact(h string) string {
	if i := strings.LastIndexByte(h, '@'); i >= 0 {
		if j := strings.Index(h, "://"); j >= 0 && j < i {
			return h[:j+3] + "xxxxx" + h[i:]
		}
		return "xxxxx" + h[i:]
	}
	return h
}
