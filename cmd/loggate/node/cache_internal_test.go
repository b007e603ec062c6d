package node

import (
	"bytes"
	"strings"
	"testing"

	"github.com/loggate/loggate/backend/system/loggers"
	"github.com/loggate/loggate/cmd/loggate/config"
)

// TestSharedStoreWithoutRedisWarns: a node on a shared store without
// Redis says that revocations on other nodes reach it late; an embedded
// node, or one with Redis, does not.
func TestSharedStoreWithoutRedisWarns(t *testing.T) {
	for _, tc := range []struct {
		mongo string
		warns bool
	}{
		{"mongodb://db:27017/graylog", true},
		{"", false},
	} {
		var logs bytes.Buffer
		n := &Node{Levels: loggers.New(loggers.NewTextSink(&logs))}
		if _, err := n.cache(config.Config{MongoDBURI: tc.mongo}); err != nil {
			t.Fatal(err)
		}
		if got := strings.Contains(logs.String(), "without redis_uri"); got != tc.warns {
			t.Errorf("mongodb_uri %q: warned %v, want %v; logs %q", tc.mongo, got, tc.warns, logs.String())
		}
	}
}
