package search

import (
	"net/http"
	"net/url"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/oklog/ulid/v2"
	"github.com/tidwall/gjson"

	"github.com/loggate/loggate/backend/logs/messages"
	"github.com/loggate/loggate/router/routertest"
)

// received returns n messages received one a second from start, each with
// the gl2_message_id its input would give it; every third one has a
// timestamp its sender wrote ten minutes earlier, which the tail must not
// care about.
func received(start time.Time, n int) []messages.Message {
	out := make([]messages.Message, n)
	for i := range out {
		at := start.Add(time.Duration(i) * time.Second)
		ts := at
		if i%3 == 0 {
			ts = at.Add(-10 * time.Minute)
		}
		var id ulid.ULID
		_ = id.SetTime(ulid.Timestamp(at))
		id[15] = byte(i)
		src := "web-1"
		if i%2 == 1 {
			src = "db-1"
		}
		out[i] = messages.Message{ID: "m" + strconv.Itoa(i), Timestamp: ts, Streams: []string{defaultStream},
			Fields: []messages.Field{{Key: messages.FieldSource, Value: src}, {Key: messages.FieldMessage, Value: "n" + strconv.Itoa(i)},
				{Key: messages.FieldMessageID, Value: id.String()}}}
	}
	return out
}

func TestTail(t *testing.T) {
	start := time.Date(2026, 11, 25, 12, 0, 0, 0, time.UTC)
	msgs := received(start, 30)
	e := newEnv(t, msgs, start.Add(40*time.Second), Options{})
	c := routertest.Client{H: routertest.Handler(NewHandler(e.svc).Routes())}
	root := routertest.Principal(t, "*")
	get := func(params url.Values) gjson.Result {
		t.Helper()
		rec := c.Do(root, "GET", "/search/tail?"+params.Encode(), "")
		routertest.WantStatus(t, rec, http.StatusOK)
		return gjson.Parse(rec.Body.String())
	}
	texts := func(r gjson.Result) []string {
		var out []string
		for _, m := range r.Get("messages").Array() {
			out = append(out, m.Get("message.message").String())
		}
		return out
	}
	want := func(name string, got []string, want ...string) {
		t.Helper()
		if len(got) != len(want) {
			t.Fatalf("%s: %q, want %q", name, got, want)
		}
		for i := range got {
			if got[i] != want[i] {
				t.Fatalf("%s: %q, want %q", name, got, want)
			}
		}
	}

	// The first call: the newest, oldest first, in the order received.
	first := get(url.Values{"limit": {"3"}})
	want("first call", texts(first), "n27", "n28", "n29")
	if first.Get("cursor").String() != msgs[29].Fields[2].Value {
		t.Fatalf("cursor %s, want the newest gl2_message_id %s", first.Get("cursor"), msgs[29].Fields[2].Value)
	}
	// After a cursor: what came later, in order, a page at a time.
	next := get(url.Values{"after": {msgs[20].Fields[2].Value.(string)}, "limit": {"4"}})
	want("after n20", texts(next), "n21", "n22", "n23", "n24")
	next = get(url.Values{"after": {next.Get("cursor").String()}, "limit": {"4"}})
	want("after n24", texts(next), "n25", "n26", "n27", "n28")
	// Nothing new: the same cursor again.
	last := get(url.Values{"after": {msgs[29].Fields[2].Value.(string)}})
	want("after the newest", texts(last))
	if last.Get("cursor").String() != msgs[29].Fields[2].Value {
		t.Errorf("cursor moved to %s with nothing new", last.Get("cursor"))
	}
	// The query applies, also with the cursor added to it.
	want("query", texts(get(url.Values{"query": {"source:db-1 OR message:n22"}, "after": {msgs[20].Fields[2].Value.(string)}, "limit": {"3"}})), "n21", "n22", "n23")

	// A store with nothing recent: a cursor a little before now.
	empty := newEnv(t, nil, start, Options{})
	ec := routertest.Client{H: routertest.Handler(NewHandler(empty.svc).Routes())}
	rec := ec.Do(root, "GET", "/search/tail", "")
	routertest.WantStatus(t, rec, http.StatusOK)
	cur, err := ulid.ParseStrict(gjson.Get(rec.Body.String(), "cursor").String())
	if err != nil || ulid.Time(cur.Time()).UTC() != start.Add(-tailLag) {
		t.Errorf("empty tail's cursor %s (%v), want the lowest id at %s", gjson.Get(rec.Body.String(), "cursor"), err, start.Add(-tailLag))
	}
}

// The tail is refused as the relative search is: a query that does not
// parse names its position in what the user typed, a stream filter needs
// streams:read, no filter needs searches:relative.
func TestTailRefuses(t *testing.T) {
	c := universalEnv(t)
	reader := routertest.Principal(t, "streams:read:"+webStream)
	root := routertest.Principal(t, "*")
	for _, tc := range []struct {
		root   bool
		path   string
		status int
		body   string
	}{
		{true, "/search/tail?query=source:(web", http.StatusBadRequest, "QueryParseError"},
		{true, "/search/tail?after=nope", http.StatusBadRequest, "not a cursor"},
		{true, "/search/tail?limit=501", http.StatusBadRequest, "limit"},
		{false, "/search/tail", http.StatusForbidden, ""},
		{false, "/search/tail?filter=streams:" + defaultStream, http.StatusForbidden, "Forbidden stream"},
		{false, "/search/tail?filter=streams:" + webStream, http.StatusOK, ""},
	} {
		p := reader
		if tc.root {
			p = root
		}
		rec := c.Do(p, "GET", tc.path, "")
		routertest.WantStatus(t, rec, tc.status)
		if !strings.Contains(rec.Body.String(), tc.body) {
			t.Errorf("%s: body %s, want it to mention %q", tc.path, rec.Body, tc.body)
		}
	}
}

// FuzzTail calls the tail with any query, cursor and limit: an answer is a
// 200 whose messages come after the cursor, or a 4xx, never a panic or a 500.
func FuzzTail(f *testing.F) {
	start := time.Date(2026, 11, 25, 12, 0, 0, 0, time.UTC)
	msgs := received(start, 20)
	for _, s := range [][3]string{{"*", "", "5"}, {"source:web-1", msgs[3].Fields[2].Value.(string), "2"}, {"(", "x", "0"},
		{"message:n1*", "00000000000000000000000000", "500"}, {"", "7ZZZZZZZZZZZZZZZZZZZZZZZZZ", ""}} {
		f.Add(s[0], s[1], s[2])
	}
	e := newEnv(f, msgs, start.Add(time.Minute), Options{})
	c := routertest.Client{H: routertest.Handler(NewHandler(e.svc).Routes())}
	root := routertest.Principal(f, "*")
	f.Fuzz(func(t *testing.T, query, after, limit string) {
		rec := c.Do(root, "GET", "/search/tail?"+url.Values{"query": {query}, "after": {after}, "limit": {limit}}.Encode(), "")
		if rec.Code >= 500 || rec.Code != http.StatusOK && rec.Code/100 != 4 {
			t.Fatalf("query %q after %q limit %q: %d %s", query, after, limit, rec.Code, rec.Body)
		}
		if rec.Code != http.StatusOK || after == "" {
			return
		}
		for _, m := range gjson.Get(rec.Body.String(), "messages.#.message.gl2_message_id").Array() {
			if m.String() <= strings.ToUpper(after) {
				t.Fatalf("after %q: message %s", after, m)
			}
		}
	})
}
