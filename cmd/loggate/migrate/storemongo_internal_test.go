package migrate

import (
	"bytes"
	"context"
	"crypto/rand"
	"encoding/hex"
	"net/http"
	"os"
	"regexp"
	"strings"
	"testing"

	"go.mongodb.org/mongo-driver/mongo"
	"go.mongodb.org/mongo-driver/mongo/options"

	"github.com/loggate/loggate/backend/logs/messages"
	"github.com/loggate/loggate/cmd/loggate/config"
	"github.com/loggate/loggate/cmd/loggate/node/nodetest"
)

// testMongoURI returns the URI of a fresh database on the test MongoDB,
// dropped when the test ends, or skips the test.
func testMongoURI(t *testing.T) string {
	t.Helper()
	base := os.Getenv("LOGGATE_TEST_MONGODB_URI")
	if base == "" {
		t.Skip("SKIPPED: LOGGATE_TEST_MONGODB_URI not set (e.g. mongodb://127.0.0.1:27017/); the copy to MongoDB is not tested")
	}
	suffix := make([]byte, 4)
	_, _ = rand.Read(suffix)
	db := "loggate_" + strings.ToLower(regexp.MustCompile(`[^A-Za-z0-9]+`).ReplaceAllString(t.Name(), "_")) + "_" + hex.EncodeToString(suffix)
	client, err := mongo.Connect(context.Background(), options.Client().ApplyURI(base))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		_ = client.Database(db).Drop(context.Background())
		_ = client.Disconnect(context.Background())
	})
	uri := strings.Replace(base, "/?", "/"+db+"?", 1)
	if !strings.Contains(uri, db) {
		uri = strings.TrimSuffix(base, "/") + "/" + db
	}
	return uri
}

// TestStoreToMongoDB migrates a node's data_dir to a real MongoDB with the
// command, then starts a node on MongoDB: the user, her role, token and
// session, and the stream with its rule are there and work.
func TestStoreToMongoDB(t *testing.T) {
	t.Parallel()
	uri := testMongoURI(t)
	dir, f := sourceDir(t)
	run := func(args ...string) string {
		t.Helper()
		var out, errOut bytes.Buffer
		err := Run(context.Background(), append([]string{"store", "--data_dir", dir, "--to-mongodb", uri}, args...), nil,
			Options{Stdout: &out, Stderr: &errOut})
		if err != nil {
			t.Fatalf("migrate store %v: %v\n%s\n%s", args, err, out.String(), errOut.String())
		}
		return out.String()
	}
	out := run()
	if !strings.Contains(out, "Dry run: nothing was changed") || !strings.Contains(out, "MongoDB mongodb://") {
		t.Errorf("dry run:\n%s", out)
	}
	out = run("--apply")
	if !strings.Contains(out, "Copied 107 documents") || !strings.Contains(out, "are identical at the destination") ||
		!strings.Contains(out, "Messages in "+dir+"/messages are not copied") {
		t.Errorf("apply:\n%s", out)
	}
	t.Logf("apply:\n%s", out)
	if out = run("--apply"); !strings.Contains(out, "Nothing to do.") {
		t.Errorf("second run:\n%s", out)
	}

	h := nodetest.Start(t, nodetest.WithConfig(func(c *config.Config) {
		c.MongoDBURI = uri
		c.PasswordSecret = nodetest.Secret
		c.DataDir = dir
	}))
	root := nodetest.AsRoot()
	user := h.Do("GET", "/users/"+fixtureUser, nil, root).Want(t, http.StatusOK)
	if user.Get("id").String() != f.userID || !strings.Contains(user.Get("roles").Raw, "Auditors") {
		t.Errorf("user on MongoDB: %s", user.Body)
	}
	// The token was encrypted under the same password_secret.
	h.Do("GET", "/users/"+fixtureUser, nil, nodetest.Token(f.token)).Want(t, http.StatusOK)
	h.Do("GET", "/users/"+fixtureUser, nil, nodetest.Session(f.sid)).Want(t, http.StatusOK)
	h.Do("GET", "/users/"+fixtureUser, nil, nodetest.Basic(fixtureUser, fixturePassword)).Want(t, http.StatusOK)
	stream := h.Do("GET", "/streams/"+f.streamID, nil, root).Want(t, http.StatusOK)
	if stream.Get("title").String() != "web" || stream.Get("rules.#").Int() != 1 || stream.Get("rules.0.value").String() != "web-1" {
		t.Errorf("stream on MongoDB: %s", stream.Body)
	}
	// The messages stayed in the data_dir's embedded store.
	res, err := h.Node.Messages.Store.Search(context.Background(), messages.Query{})
	if err != nil || res.Total != int64(f.messages) {
		t.Errorf("messages: %d, %v; want %d", res.Total, err, f.messages)
	}
}
