package main

import (
	"bytes"
	"context"
	"crypto/rand"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/tidwall/gjson"
	"go.mongodb.org/mongo-driver/mongo"
	"go.mongodb.org/mongo-driver/mongo/options"

	"github.com/loggate/loggate/internal/servicetest"
)

// The cluster tests' nodes share a root password and a password_secret, as
// the nodes of one cluster must: a session or token made on one is read by
// the others.
const (
	clusterPassword = "cluster-test-password"
	clusterSecret   = "cluster-test-password-secret-0123456789"
)

// clusterClient sends the cluster tests' requests; enough idle connections
// per node that the load tests reuse theirs.
var clusterClient = &http.Client{
	Timeout:   20 * time.Second,
	Transport: &http.Transport{MaxIdleConnsPerHost: 64, MaxIdleConns: 256},
}

// clusterMongoURI returns the URI of a fresh database on the server named by
// LOGGATE_TEST_MONGODB_URI, dropped when t ends, or skips t loudly: three
// processes cannot share the embedded store.
func clusterMongoURI(t *testing.T) (uri, database string) {
	t.Helper()
	base := os.Getenv("LOGGATE_TEST_MONGODB_URI")
	if base == "" {
		if os.Getenv("LOGGATE_REQUIRE_MONGODB") == "1" {
			t.Fatal("LOGGATE_REQUIRE_MONGODB=1 but LOGGATE_TEST_MONGODB_URI is not set: three-process cluster tests need a shared MongoDB")
		}
		t.Skip("SKIPPED: LOGGATE_TEST_MONGODB_URI not set: three-process cluster tests need a shared MongoDB")
	}
	u, err := url.Parse(base)
	if err != nil {
		t.Fatalf("LOGGATE_TEST_MONGODB_URI: %v", err)
	}
	b := make([]byte, 6)
	_, _ = rand.Read(b)
	database = "cluster_" + hex.EncodeToString(b)
	u.Path = "/" + database
	t.Cleanup(func() { dropDatabase(t, base, database) })
	return u.String(), database
}

// dropDatabase drops a test's database; it runs after the test's nodes were
// killed (cleanups run last-registered first).
func dropDatabase(t *testing.T, uri, database string) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
	defer cancel()
	c, err := mongo.Connect(ctx, options.Client().ApplyURI(uri))
	if err != nil {
		t.Errorf("connect to drop %s: %v", database, err)
		return
	}
	defer func() { _ = c.Disconnect(context.Background()) }()
	if err := c.Database(database).Drop(ctx); err != nil {
		t.Errorf("drop %s: %v", database, err)
	}
}

// clusterNode is a `loggate serve` child process of a cluster test.
type clusterNode struct {
	name string // "node 1", for messages
	url  string // the API root, http://127.0.0.1:port/api/
	id   string
	log  string // the path of its combined stdout and stderr
	proc *servicetest.Process
}

// startClusterNode starts a loggate child on a free loopback port of its
// own with its own data_dir, on the MongoDB database at mongoURI and, unless
// redisAddr is empty, on the Redis at redisAddr. It is killed when t ends.
func startClusterNode(t *testing.T, name, mongoURI, redisAddr string) *clusterNode {
	t.Helper()
	dir := t.TempDir()
	sum := sha256.Sum256([]byte(clusterPassword))
	n := &clusterNode{name: name, log: filepath.Join(dir, "loggate.log")}
	t.Cleanup(func() { n.proc.Stop() })
	// The free port may be taken before the child binds it: then it exits
	// and the next attempt takes another.
	var fatal error
	err := servicetest.Retry(func() error {
		port, err := servicetest.FreePort()
		if err != nil {
			return err
		}
		args := []string{"serve", "--data_dir", filepath.Join(dir, "data"),
			"--http_bind_address", "127.0.0.1:" + strconv.Itoa(port),
			"--root_password_sha2", hex.EncodeToString(sum[:]),
			"--password_secret", clusterSecret, "--mongodb_uri", mongoURI}
		if redisAddr != "" {
			args = append(args, "--redis_uri", "redis://"+redisAddr+"/0")
		}
		cmd := exec.Command(os.Args[0], "-test.run=^$")
		cmd.Env = append(os.Environ(), childEnv+"="+strings.Join(args, "\x1f"))
		if n.proc, err = servicetest.Start(cmd, n.log); err != nil {
			return err
		}
		n.url = fmt.Sprintf("http://127.0.0.1:%d/api/", port)
		err = n.waitServing(60 * time.Second)
		if err != nil && !strings.Contains(n.output(), "address already in use") {
			fatal = err
			return nil
		}
		return err
	})
	if err == nil {
		err = fatal
	}
	if err != nil {
		t.Fatalf("%s: %v\n%s", name, err, n.output())
	}
	status, body, err := n.do("GET", "/system/cluster/node", nil, asClusterRoot)
	if err != nil || status != http.StatusOK {
		t.Fatalf("%s: GET /system/cluster/node: %d %s %v", name, status, body, err)
	}
	n.id = gjson.GetBytes(body, "node_id").String()
	return n
}

// waitServing waits until the child printed its banner with its URL, or
// exited.
func (n *clusterNode) waitServing(timeout time.Duration) error {
	tick := time.NewTicker(10 * time.Millisecond) // polling the log file, an observable condition
	defer tick.Stop()
	deadline := time.After(timeout)
	for {
		if strings.Contains(n.output(), " at "+n.url+" ") {
			return nil
		}
		select {
		case <-n.proc.Exited():
			return fmt.Errorf("exited before serving: %v", n.proc.State())
		case <-deadline:
			return fmt.Errorf("not serving after %v", timeout)
		case <-tick.C:
		}
	}
}

// output returns what the child wrote so far.
func (n *clusterNode) output() string {
	b, _ := os.ReadFile(n.log)
	return string(b)
}

// kill ends the child with SIGKILL: no deregistration, no lease release.
func (n *clusterNode) kill() { n.proc.Stop() }

// credentials sets a request's Authorization.
type credentials func(*http.Request)

func basic(user, password string) credentials {
	return func(r *http.Request) { r.SetBasicAuth(user, password) }
}

func asClusterRoot(r *http.Request) { r.SetBasicAuth("admin", clusterPassword) }

// do sends a request to the node's API (path relative to /api) and returns
// the status and body. It is safe for concurrent use.
func (n *clusterNode) do(method, path string, body any, as credentials) (int, []byte, error) {
	var rd io.Reader
	if body != nil {
		b, err := json.Marshal(body)
		if err != nil {
			return 0, nil, err
		}
		rd = bytes.NewReader(b)
	}
	req, err := http.NewRequest(method, n.url+strings.TrimPrefix(path, "/"), rd)
	if err != nil {
		return 0, nil, err
	}
	req.Header.Set("X-Requested-By", "cluster-test")
	req.Header.Set("Accept", "application/json")
	if body != nil {
		req.Header.Set("Content-Type", "application/json")
	}
	if as != nil {
		as(req)
	}
	resp, err := clusterClient.Do(req)
	if err != nil {
		return 0, nil, err
	}
	defer resp.Body.Close()
	b, err := io.ReadAll(resp.Body)
	return resp.StatusCode, b, err
}

// want sends a request and fails t unless it answers status.
func (n *clusterNode) want(t *testing.T, status int, method, path string, body any, as credentials) gjson.Result {
	t.Helper()
	got, b, err := n.do(method, path, body, as)
	if err != nil {
		t.Fatalf("%s: %s %s: %v", n.name, method, path, err)
	}
	if got != status {
		t.Fatalf("%s: %s %s: %d %s, want %d", n.name, method, path, got, b, status)
	}
	return gjson.ParseBytes(b)
}

// clusterView is what one node says of the cluster: the node ids /cluster
// lists, and the ones /system/cluster/nodes marks is_master.
type clusterView struct {
	ids, masters []string
}

func (v clusterView) String() string {
	return fmt.Sprintf("nodes %v, masters %v", v.ids, v.masters)
}

// view asks n for its view of the cluster.
func (n *clusterNode) view() (clusterView, error) {
	var v clusterView
	status, b, err := n.do("GET", "/cluster", nil, asClusterRoot)
	if err != nil || status != http.StatusOK {
		return v, fmt.Errorf("%s: GET /cluster: %d %s %v", n.name, status, b, err)
	}
	for k, rec := range gjson.ParseBytes(b).Map() {
		if got := rec.Get("node_id").String(); got != k {
			return v, fmt.Errorf("%s: /cluster has the record of %s under %s", n.name, got, k)
		}
		v.ids = append(v.ids, k)
	}
	status, b, err = n.do("GET", "/system/cluster/nodes", nil, asClusterRoot)
	if err != nil || status != http.StatusOK {
		return v, fmt.Errorf("%s: GET /system/cluster/nodes: %d %s %v", n.name, status, b, err)
	}
	for _, rec := range gjson.GetBytes(b, "nodes").Array() {
		if rec.Get("is_master").Bool() {
			v.masters = append(v.masters, rec.Get("node_id").String())
		}
	}
	slices.Sort(v.ids)
	slices.Sort(v.masters)
	return v, nil
}

// idsOf returns the sorted ids of nodes.
func idsOf(nodes ...*clusterNode) []string {
	ids := make([]string, len(nodes))
	for i, n := range nodes {
		ids[i] = n.id
	}
	slices.Sort(ids)
	return ids
}

// waitFor polls cond until it holds and returns how long that took, or
// fails t after timeout with cond's last explanation.
func waitFor(t *testing.T, timeout time.Duration, what string, cond func() (bool, string)) time.Duration {
	t.Helper()
	start := time.Now()
	tick := time.NewTicker(5 * time.Millisecond) // polling an observable condition
	defer tick.Stop()
	for {
		ok, why := cond()
		if ok {
			return time.Since(start)
		}
		if time.Since(start) > timeout {
			t.Fatalf("%s: not after %v: %s", what, timeout, why)
		}
		<-tick.C
	}
}
