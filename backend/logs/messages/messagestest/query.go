package messagestest

import (
	"testing"

	"github.com/loggate/loggate/backend/logs/messages"
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
		// phrase slop: how many moves the words may take, a swap two
		{`message:"foo baz"`, nil},
		{`message:"foo baz"~1`, []string{"m4"}},
		{`message:"baz foo"~2`, nil},
		{`message:"baz foo"~3`, []string{"m4"}},
		{`message:"foo in"~2`, []string{"m1"}},
		{`message:"connection from"~1`, []string{"m3"}},
		{`message:"connection 10.0.0.1"~1`, nil},
		{"message:err", nil},
		{"full_message:stack", []string{"m3"}},
		{"full_message:trace", []string{"m3"}},
		// words as the standard tokenizer (UAX #29) cuts them: a dot
		// between letters or digits does not split
		{"message:index.html", []string{"m2"}},
		{"message:INDEX.HTML", []string{"m2"}},
		{"message:index", nil},
		{"message:html", nil},
		{`message:"index html"`, nil},
		{`message:"GET /index.html"`, []string{"m2"}},
		{`message:"get index.html 200"`, []string{"m2"}},
		{"message:10.0.0.1", []string{"m3"}},
		{"message:10", nil},
		{`message:"from 10.0.0.1"`, []string{"m3"}},
		// fuzzy words are lower-cased, not split, and a transposition is
		// one edit
		{"message:fooo~1", []string{"m1", "m4"}},
		{"message:erorr~1", []string{"m1"}},
		{"message:index.htm~1", []string{"m2"}},
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
		// words side by side are one text for the field's analyzer, as in
		// Elasticsearch 6 and later: whole for a keyword, any word for text
		{"user:(Bob Smith)", []string{"m4"}},
		{"user:(bob alice)", nil},
		{"user:(bob OR alice)", []string{"m2", "m3"}},
		{"message:(foo error)", []string{"m1", "m4"}},
		{"Bob Smith", []string{"m4"}},
		{"error refused", []string{"m1", "m3"}},
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
		{"message:Conn*", []string{"m3"}},
		{"message:index.*", []string{"m2"}},
		{"user:/b.b/", []string{"m3"}},
		{"user:/b/", nil},
		{"user:/[Bb]ob.*/", []string{"m3", "m4"}},
		// in Lucene's syntax: @ any string, "…" literal, <n-m> a number,
		// ^ and $ plain characters
		{"user:/b@/", []string{"m3"}},
		{`user:/"Bob Smith"/`, []string{"m4"}},
		{"source:/web-<1-2>/", []string{"m1", "m2", "m4"}},
		{"user:/^bob$/", nil},
		{"message:/.*refuse.*/", []string{"m3"}},
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
		// a date names all of its span, as Elasticsearch's date queries
		// round it up: a day, a second without milliseconds
		{`timestamp:2024-01-02`, []string{"m1", "m2", "m3", "m4"}},
		{`timestamp:"2024-01-02T03:04:07Z"`, []string{"m2"}},
		{`timestamp:[* TO 2024-01-02]`, []string{"m1", "m2", "m3", "m4"}},
		{`timestamp:[* TO 2024-01-01]`, nil},
		{`timestamp:{2024-01-02 TO *}`, nil},
		{`timestamp:[2024-01-02 TO *]`, []string{"m1", "m2", "m3", "m4"}},
		{`timestamp:{* TO "2024-01-02T03:04:08"}`, []string{"m1", "m2"}},
		{`timestamp:["2024-01-02T03:04:06" TO "2024-01-02T03:04:07"]`, []string{"m1", "m2"}},
		// date math: now, and a date followed by ||, then +N, -N and /
		// (rounding) of y M w d h m s; bounds round as dates do
		{`timestamp:[now-100y TO now]`, []string{"m1", "m2", "m3", "m4"}},
		{`timestamp:[now-1d TO *]`, nil},
		{`timestamp:["2024-01-02T03:04:06Z||+1s" TO *]`, []string{"m2", "m3", "m4"}},
		{`timestamp:{"2024-01-02T03:04:06Z||+1s" TO *]`, []string{"m3", "m4"}},
		{`timestamp:"2024-01-02T03:04:07.500Z||/s"`, []string{"m2"}},
		{`timestamp:["2024-01-01||+1d" TO "2024-01-02||+1d"}`, []string{"m1", "m2", "m3", "m4"}},
		{`timestamp:[* TO "2024-01-02T03:04:07.000Z||/m"}`, nil},
		{`timestamp:[* TO "2024-01-02T03:04:07.000Z||/m"]`, []string{"m1", "m2", "m3", "m4"}},
		// an unfielded term searches the timestamp too
		{`"2024-01-02T03:04:06.000Z"`, []string{"m1"}},
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
		for _, tt := range leading {
			h.wantIDs(name+" "+tt.q, messages.Query{Query: parseLeading(t, tt.q)}, tt.want...)
		}
		h.wantIDs(name+" nil query", messages.Query{}, "m1", "m2", "m3", "m4")
	}
}

// leading are the wildcard queries that start with a wildcard: Graylog
// refuses them unless allow_leading_wildcard_searches is set, and every
// store must run them when the server allows them.
var leading = []struct {
	q    string
	want []string
}{
	{"user:*o*", []string{"m3", "m4"}},
	{"user:?lice", []string{"m1", "m2"}},
	{"source:*-1", []string{"m1", "m3", "m4"}},
	{"source:*DB-*", []string{"m3"}},
	{"message:*.html", []string{"m2"}},
	{"message:*ndex*", []string{"m2"}},
}

// The analysis corpus: message text that the standard tokenizer cuts in
// ways a split on every non-alphanumeric character would not.
var analysisCorpus = []messages.Message{
	msg("a1", 1, nil, "message", "user_id=42 logged in from 192.168.1.10:8080"),
	msg("a2", 2, nil, "message", "O'Neil's order 1,000.50 EUR at 10:30"),
	msg("a3", 3, nil, "message", "Exception in com.example.orders.OrderService: timeout"),
	msg("a4", 4, nil, "message", "key:value pairs and Grüße"),
}

// testAnalysis checks that message text is analyzed as Elasticsearch's
// standard analyzer does: Unicode word boundaries (UAX #29), lower-cased.
func testAnalysis(t *testing.T, f Factory) {
	h := open(t, f)
	h.write("an", analysisCorpus...)
	tests := []struct {
		q    string
		want []string
	}{
		{"message:user_id", []string{"a1"}},
		{"message:user", nil},
		{"message:42", []string{"a1"}},
		{"message:192.168.1.10", []string{"a1"}},
		{"message:192", nil},
		{"message:8080", []string{"a1"}},
		{"message:O'Neil's", []string{"a2"}},
		{"message:neil", nil},
		{"message:1,000.50", []string{"a2"}},
		{"message:1", nil},
		{"message:10", []string{"a2"}},
		{"message:30", []string{"a2"}},
		{"message:com.example.orders.orderservice", []string{"a3"}},
		{"message:orderservice", nil},
		{"message:com.example.orders.*", []string{"a3"}},
		{"message:timeout", []string{"a3"}},
		{`message:key\:value`, []string{"a4"}},
		{"message:key", nil},
		{"message:Grüße", []string{"a4"}},
		{`message:"in from"`, []string{"a1"}},
		{`message:"user_id 42"`, []string{"a1"}},
		{`message:"order 1,000.50 eur"`, []string{"a2"}},
		{`message:"exception in com.example.orders.OrderService"`, []string{"a3"}},
		{`message:"in com"`, nil},
		{"timeout", []string{"a3"}},
	}
	for pass, name := range []string{"buffered", "flushed"} {
		if pass == 1 {
			h.flush(1)
		}
		for _, tt := range tests {
			h.wantIDs(name+" "+tt.q, messages.Query{Query: parse(t, tt.q)}, tt.want...)
		}
	}
}
