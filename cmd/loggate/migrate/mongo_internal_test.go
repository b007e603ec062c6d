package migrate

import (
	"bytes"
	"context"
	"crypto/rand"
	"encoding/hex"
	"os"
	"strings"
	"testing"
	"time"

	"go.mongodb.org/mongo-driver/bson"
	"go.mongodb.org/mongo-driver/mongo"
	"go.mongodb.org/mongo-driver/mongo/options"
)

func TestReadMongoDBUnreachable(t *testing.T) {
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	_, err := ReadMongoDB(ctx, "mongodb://u:secret@127.0.0.1:1/graylog3?serverSelectionTimeoutMS=200")
	if err == nil {
		t.Fatal("an unreachable server was read")
	}
	if strings.Contains(err.Error(), "secret") {
		t.Errorf("the password is in the error: %v", err)
	}
	if _, err := ReadMongoDB(ctx, "http://not-mongo"); err == nil {
		t.Error("a non-MongoDB URI was accepted")
	}
}

// TestFromMongoDB runs the migration against a real MongoDB: the document
// is inserted into a temporary database, read, and the database dropped.
func TestFromMongoDB(t *testing.T) {
	base := os.Getenv("LOGGATE_TEST_MONGODB_URI")
	if base == "" {
		t.Skip("SKIPPED: set LOGGATE_TEST_MONGODB_URI=mongodb://[user:pass@]host:27017/ to test --from-mongodb against a real MongoDB")
	}
	suffix := make([]byte, 4)
	_, _ = rand.Read(suffix)
	db := "loggate_test_" + hex.EncodeToString(suffix)
	ctx := context.Background()
	client, err := mongo.Connect(ctx, options.Client().ApplyURI(base))
	if err != nil {
		t.Fatal(err)
	}
	defer func() { _ = client.Disconnect(ctx) }()
	doc := bson.D{{Key: "enabled", Value: true}, {Key: "ldap_uri", Value: "ldap://ldap.example.org:389"}, {Key: "use_start_tls", Value: true},
		{Key: "search_base", Value: "dc=example,dc=org"}, {Key: "principal_search_pattern", Value: "(uid={0})"}, {Key: "username_attribute", Value: "cn"}}
	if _, err := client.Database(db).Collection(ldapCollection).InsertOne(ctx, doc); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = client.Database(db).Drop(ctx) })
	uri := strings.Replace(base, "/?", "/"+db+"?", 1)
	if !strings.Contains(uri, db) {
		uri = strings.TrimSuffix(base, "/") + "/" + db
	}
	var out bytes.Buffer
	err = Run(ctx, []string{"ldap", "--from-mongodb", uri, "--data_dir", t.TempDir(), "--password_secret", "loggate-test-secret-0123456789"}, nil,
		Options{Stdout: &out, Stderr: &out})
	if err != nil || !strings.Contains(out.String(), "LDAP - ldap://ldap.example.org:389") || !strings.Contains(out.String(), "start_tls") {
		t.Errorf("migrate --from-mongodb: %v\n%s", err, out.String())
	}
}
