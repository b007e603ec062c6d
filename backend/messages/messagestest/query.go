package messagestest

import (
	"testing"

	"github.com/loggate/loggate/backend/messages"
)

// The query corpus: ids are short so the expectations read easily.
var corpus = []messages.Message{
	msg("m1", 1, []string{"s1"}, "source", "web-1", "message", "Error in Foo", "level", int64(3),
		"took", int64(15), "ratio", 0.5, "ok", true, "user", "Alice"),
	msg("m2", 2, []string{"s2"}, "source", "WEB-2", "message", "GET /index.html 200", "level", int64(6),
		"took", int64(5), "user", "alice", "path", "/index.html"),
	msg("m3", 3, []string{"s1", "s2"}, "source", "db-1", "message", "connection refused from 10.0.0.1",
		"full_message", "Stack trace: line 42", "level", int64(3), "took", int64(25), "ratio", 1.5,
		"ok", false, "user", "bob"),
	msg("m4", 4, nil, "source", "web-1", "message", "foo bar baz", "level", int64(6), "took", 10.0,
		"host", "h1", "user", "Bob Smith"),
}

// testQuery checks the query semantics of Graylog's index template on a
// small corpus, once from the write buffer and once flushed.
func testQuery(t *testing.T, f Factory) {
	h := open(t, f)
	h.write("q", corpus...)
	tests := []struct {
		q    string
		want []string
	}{
		// message and full_message are analyzed: words, case-insensitive
		{"message:error", []string{"m1"}},
		{"message:ERROR", []string{"m1"}},
		{"message:foo", []string{"m1", "m4"}},
		{`message:"in foo"`, []string{"m1"}},
		{`message:"foo in"`, nil},
		{`message:"index html"`, []string{"m2"}},
		{"message:index", []string{"m2"}},
		{"message:err", nil},
		{"full_message:stack", []string{"m3"}},
		{"message:fooo~1", []string{"m1", "m4"}},
		// source is one lower-cased keyword
		{"source:WEB-1", []string{"m1", "m4"}},
		{"source:web-2", []string{"m2"}},
		{"source:web", nil},
		{"source:web*", []string{"m1", "m2", "m4"}},
		// other strings are exact keywords
		{"user:Alice", []string{"m1"}},
		{"user:alice", []string{"m2"}},
		{"user:bob", []string{"m3"}},
		{`user:"Bob Smith"`, []string{"m4"}},
		{"user:Bob", nil},
		{"path:\\/index.html", []string{"m2"}},
		// a term without a field searches every field
		{"alice", []string{"m2"}},
		{"Alice", []string{"m1"}},
		{"error", []string{"m1"}},
		{"h1", []string{"m4"}},
		// wildcards and regular expressions match whole terms
		{"user:ali?e", []string{"m2"}},
		{"user:A*", []string{"m1"}},
		{"user:b*b", []string{"m3"}},
		{"user:B*h", []string{"m4"}},
		{"message:conn*", []string{"m3"}},
		{"user:/b.b/", []string{"m3"}},
		{"user:/b/", nil},
		{"user:/[Bb]ob.*/", []string{"m3", "m4"}},
		// numbers
		{"level:3", []string{"m1", "m3"}},
		{"took:10", []string{"m4"}},
		{"ratio:1.5", []string{"m3"}},
		{"took:[10 TO 20]", []string{"m1", "m4"}},
		{"took:{10 TO 20]", []string{"m1"}},
		{"took:[10 TO 15}", []string{"m4"}},
		{"took:>10", []string{"m1", "m3"}},
		{"took:>=10", []string{"m1", "m3", "m4"}},
		{"took:<=10", []string{"m2", "m4"}},
		{"took:[* TO 5]", []string{"m2"}},
		{"ratio:[1 TO *]", []string{"m3"}},
		// booleans
		{"ok:true", []string{"m1"}},
		{"ok:false", []string{"m3"}},
		// timestamp ranges take ISO dates
		{`timestamp:["2024-01-02T03:04:07.000Z" TO "2024-01-02T03:04:08.000Z"]`, []string{"m2", "m3"}},
		{`timestamp:{"2024-01-02T03:04:07.000Z" TO "2024-01-02T03:04:08.000Z"]`, []string{"m3"}},
		{`timestamp:["2024-01-02 03:04:08.000" TO *]`, []string{"m3", "m4"}},
		// exists, streams, _id
		{"_exists_:full_message", []string{"m3"}},
		{"_exists_:host", []string{"m4"}},
		{"NOT _exists_:host", []string{"m1", "m2", "m3"}},
		{"_exists_:nothing", nil},
		{"streams:s1", []string{"m1", "m3"}},
		{"_id:m2", []string{"m2"}},
		// Lucene's boolean rules
		{"level:3 AND user:bob", []string{"m3"}},
		{"level:3 OR user:alice", []string{"m1", "m2", "m3"}},
		{"level:3 -user:bob", []string{"m1"}},
		{"+level:6 user:alice", []string{"m2", "m4"}},
		{"NOT level:3", []string{"m2", "m4"}},
		{"NOT level:3 AND NOT user:alice", []string{"m4"}},
		{"(user:bob OR user:alice) AND NOT source:db-1", []string{"m2"}},
		{"level:3 AND (took:15 OR took:25) AND NOT ok:false", []string{"m1"}},
		{"*", []string{"m1", "m2", "m3", "m4"}},
		{"*:*", []string{"m1", "m2", "m3", "m4"}},
	}
	for pass, name := range []string{"buffered", "flushed"} {
		if pass == 1 {
			h.flush(1)
		}
		for _, tt := range tests {
			h.wantIDs(name+" "+tt.q, messages.Query{Query: parse(t, tt.q)}, tt.want...)
		}
		h.wantIDs(name+" nil query", messages.Query{}, "m1", "m2", "m3", "m4")
	}
}
