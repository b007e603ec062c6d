package mongo_test

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net"
	"strings"
	"testing"
	"time"

	driver "go.mongodb.org/mongo-driver/mongo"
	"go.mongodb.org/mongo-driver/x/mongo/driver/topology"

	"github.com/loggate/loggate/backend/store"
	"github.com/loggate/loggate/backend/store/mongo"
)

func TestRedact(t *testing.T) {
	tests := []struct{ uri, want string }{
		{"mongodb://127.0.0.1:27017/", "mongodb://127.0.0.1:27017/"},
		{"mongodb://user:s3cret@db.example.org/loggate", "mongodb://user:xxxxx@db.example.org/loggate"},
		{"mongodb://user@db.example.org/", "mongodb://user@db.example.org/"},
		{"mongodb+srv://u:p%40ss@cluster.example.org/x?retryWrites=true", "mongodb+srv://u:xxxxx@cluster.example.org/x?retryWrites=true"},
		{"mongodb://u:pw@a:1,b:2/db?replicaSet=rs", "mongodb://u:xxxxx@a:1,b:2/db?replicaSet=rs"},
		{"mongodb://u:p w@[::1/", "(unparsable URI with credentials)"},
		{"::not a uri", "::not a uri"},
		{"mongodb://admin:1234/s3cr3t@db.example.org:27017/graylog", "(unparsable URI with credentials)"},
	}
	for _, tt := range tests {
		if got := mongo.Redact(tt.uri); got != tt.want {
			t.Errorf("Redact(%q) = %q, want %q", tt.uri, got, tt.want)
		}
	}
}

func TestUnavailable(t *testing.T) {
	tests := []struct {
		name string
		err  error
		want bool
	}{
		{"server selection", topology.ServerSelectionError{Wrapped: errors.New("connection refused")}, true},
		{"network label", driver.CommandError{Message: "connection reset", Labels: []string{"NetworkError"}}, true},
		{"not primary", driver.CommandError{Code: 10107, Name: "NotWritablePrimary"}, true},
		{"stepped down", fmt.Errorf("wrapped: %w", driver.CommandError{Code: 189, Name: "PrimarySteppedDown"}), true},
		{"retryable write", driver.WriteException{Labels: []string{"RetryableWriteError"}}, true},
		{"deadline", fmt.Errorf("op: %w", context.DeadlineExceeded), true},
		{"disconnected", driver.ErrClientDisconnected, true},
		{"net timeout", &net.OpError{Op: "read", Err: timeoutErr{}}, true},
		{"bad value", driver.CommandError{Code: 2, Name: "BadValue"}, false},
		{"duplicate key", driver.WriteException{WriteErrors: []driver.WriteError{{Code: 11000, Message: "E11000 duplicate key"}}}, false},
		{"plain", io.ErrUnexpectedEOF, false},
	}
	for _, tt := range tests {
		if got := mongo.Unavailable(tt.err); got != tt.want {
			t.Errorf("%s: Unavailable(%v) = %v, want %v", tt.name, tt.err, got, tt.want)
		}
	}
}

type timeoutErr struct{}

func (timeoutErr) Error() string   { return "i/o timeout" }
func (timeoutErr) Timeout() bool   { return true }
func (timeoutErr) Temporary() bool { return true }

// closedPort returns a loopback address nothing listens on.
func closedPort(t *testing.T) string {
	t.Helper()
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	addr := l.Addr().String()
	if err := l.Close(); err != nil {
		t.Fatal(err)
	}
	return addr
}

// TestOpenUnreachable needs no server: it checks that an unreachable
// server is reported quickly, as unavailable, without the password.
func TestOpenUnreachable(t *testing.T) {
	const timeout = 300 * time.Millisecond
	uri := "mongodb://loggate:s3cr%65t@" + closedPort(t) + "/db"
	start := time.Now()
	s, err := mongo.Open(t.Context(), uri, []store.Index{{Collection: "users", Field: "username"}}, mongo.WithTimeout(timeout))
	elapsed := time.Since(start)
	if err == nil {
		_ = s.Close()
		t.Fatal("Open of an unreachable server succeeded")
	}
	if !errors.Is(err, store.ErrUnavailable) {
		t.Errorf("error %v, want ErrUnavailable", err)
	}
	for _, secret := range []string{"s3cr%65t", "s3cret"} {
		if strings.Contains(err.Error(), secret) {
			t.Errorf("error %q reveals the password", err)
		}
	}
	if elapsed > 10*timeout {
		t.Errorf("Open took %v, want about %v", elapsed, timeout)
	}
}

func TestOpenInvalid(t *testing.T) {
	tests := []struct {
		name    string
		uri     string
		indexes []store.Index
	}{
		{"scheme", "http://u:s3cret@localhost/", nil},
		{"bad option", "mongodb://u:s3cret@localhost/?connectTimeoutMS=soon", nil},
		{"unescaped slash in the password", "mongodb://admin:1234/s3cret@localhost:27017/graylog", nil},
		{"dotted field", "mongodb://localhost/", []store.Index{{Collection: "users", Field: "a.b"}}},
		{"operator field", "mongodb://localhost/", []store.Index{{Collection: "users", Field: "$x"}}},
		{"empty field", "mongodb://localhost/", []store.Index{{Collection: "users"}}},
		{"system collection", "mongodb://localhost/", []store.Index{{Collection: "system.users", Field: "x"}}},
	}
	for _, tt := range tests {
		s, err := mongo.Open(t.Context(), tt.uri, tt.indexes, mongo.WithTimeout(time.Millisecond))
		if err == nil {
			_ = s.Close()
			t.Errorf("%s: Open succeeded", tt.name)
			continue
		}
		if errors.Is(err, store.ErrUnavailable) {
			t.Errorf("%s: error %v, want a refusal before connecting", tt.name, err)
		}
		if strings.Contains(err.Error(), "s3cret") {
			t.Errorf("%s: error %q reveals the password", tt.name, err)
		}
	}
}
