package node_test

import (
	"crypto/rand"
	"encoding/hex"
	"net/http"
	"net/url"
	"os"
	"strings"
	"testing"

	"github.com/loggate/loggate/backend/access/sessions"
	"github.com/loggate/loggate/cmd/loggate/config"
	"github.com/loggate/loggate/cmd/loggate/node/nodetest"
)

// mongoDatabase returns a URI of a fresh database on the test server, or
// skips the test loudly when none is configured.
func mongoDatabase(t *testing.T) string {
	t.Helper()
	base := os.Getenv("LOGGATE_TEST_MONGODB_URI")
	if base == "" {
		if os.Getenv("LOGGATE_REQUIRE_MONGODB") == "1" {
			t.Fatal("LOGGATE_REQUIRE_MONGODB=1 but LOGGATE_TEST_MONGODB_URI is not set")
		}
		t.Skip("SKIPPED: set LOGGATE_TEST_MONGODB_URI=mongodb://… to run the node on a real MongoDB")
	}
	u, err := url.Parse(base)
	if err != nil {
		t.Fatalf("LOGGATE_TEST_MONGODB_URI: %v", err)
	}
	b := make([]byte, 6)
	_, _ = rand.Read(b)
	u.Path = "/loggate_node_" + hex.EncodeToString(b)
	return u.String()
}

// A node on MongoDB serves the same API and keeps its configuration there:
// a second node with an empty data_dir on the same database sees it.
func TestNodeOnMongoDB(t *testing.T) {
	uri := mongoDatabase(t)
	onMongo := nodetest.WithConfig(func(c *config.Config) { c.MongoDBURI = uri })
	h := nodetest.Start(t, onMongo)
	root := nodetest.AsRoot()
	h.CreateUser("carol", "pw")
	is := h.Do("GET", "/system/indices/index_sets", nil, root).Want(t, http.StatusOK).Get(`index_sets.#(default==true).id`).String()
	sid := h.Do("POST", "/streams", map[string]any{"title": "on mongo", "index_set_id": is}, root).Want(t, http.StatusCreated).Get("stream_id").String()
	mongo := h.Do("GET", "/system/cluster/stats/mongo", nil, root).Want(t, http.StatusOK)
	if mongo.Get("server_status.storage_engine.name").String() != "mongodb" || mongo.Get("database_stats.objects").Int() == 0 {
		t.Errorf("stats: %s", mongo.Body)
	}

	// MongoDB holds keyed hashes of session ids only; the session works
	// on the other node all the same.
	session := h.Login("carol", "pw")
	err := h.Node.Store.List(t.Context(), sessions.Collection, func(id string, doc []byte) error {
		if strings.Contains(id, session) || strings.Contains(string(doc), session) {
			t.Errorf("MongoDB holds a session id in clear: %s %s", id, doc)
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}

	other := nodetest.Start(t, onMongo)
	other.Do("GET", "/cluster", nil, nodetest.Basic("carol", "pw")).Want(t, http.StatusOK)
	other.Do("GET", "/cluster", nil, nodetest.Session(session)).Want(t, http.StatusOK)
	if got := other.Do("GET", "/streams/"+sid, nil, root).Want(t, http.StatusOK).Get("title").String(); got != "on mongo" {
		t.Errorf("the second node sees stream title %q", got)
	}
	if n := other.Do("GET", "/streams", nil, root).Get("total").Int(); n != h.Do("GET", "/streams", nil, root).Get("total").Int() {
		t.Errorf("the built-in streams were seeded twice: %d", n)
	}
}
