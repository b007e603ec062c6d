package search

import (
	"context"
	"mime"
	"net/http"
	"net/http/httptest"
	"net/url"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/tidwall/gjson"

	"github.com/loggate/loggate/auth"
	"github.com/loggate/loggate/backend/logs/messages"
	"github.com/loggate/loggate/router/routertest"
)

// universalEnv serves the search routes over 200 generated messages.
func universalEnv(t *testing.T) routertest.Client {
	t.Helper()
	e := newEnv(t, generated(200), generated(200)[199].Timestamp.Add(time.Minute), Options{})
	return routertest.Client{H: routertest.Handler(NewHandler(e.svc).Routes())}
}

// A stream reader (the Reader role's permissions and streams:read on one
// stream, no searches:*) searches that stream, and only that stream, as
// Graylog checks searches:<kind> only without a filter.
func TestStreamReaderSearchesTheirStream(t *testing.T) {
	c := universalEnv(t)
	reader := routertest.Principal(t, "users:edit:user", "streams:read:"+webStream)
	for _, tc := range []struct {
		path   string
		status int
		msg    string
	}{
		{"/search/universal/relative?query=*&range=0&filter=streams:" + webStream, http.StatusOK, ""},
		{"/search/universal/relative/export?query=*&range=0&fields=source&filter=streams:" + webStream, http.StatusOK, ""},
		{"/search/universal/absolute?query=*&from=2000-01-01&to=2100-01-01&filter=streams:" + webStream, http.StatusOK, ""},
		{"/search/universal/keyword?query=*&keyword=last%20day&filter=streams:" + webStream, http.StatusOK, ""},
		{"/search/universal/relative?query=*&range=0", http.StatusForbidden, ""},
		{"/search/universal/relative?query=*&range=0&filter=streams:" + defaultStream, http.StatusForbidden,
			"Not allowed to search with filter: [streams:" + defaultStream + "]. (Forbidden stream: " + defaultStream + ")"},
		{"/search/universal/relative?query=*&range=0&filter=streams:" + webStream + "," + defaultStream, http.StatusForbidden,
			"Not allowed to search with filter: [streams:" + webStream + "," + defaultStream + "]. (Forbidden stream: " + defaultStream + ")"},
		{"/search/universal/relative?query=*&range=0&filter=streams:", http.StatusForbidden, "Not allowed to search with filter: [streams:]"},
		{"/search/universal/relative?query=*&range=0&filter=source:x", http.StatusForbidden, "Not allowed to search with filter: [source:x]"},
	} {
		rec := c.Do(reader, "GET", tc.path, "")
		if tc.msg != "" {
			routertest.WantError(t, rec, tc.status, tc.msg)
			continue
		}
		routertest.WantStatus(t, rec, tc.status)
		if tc.status == http.StatusOK && strings.Contains(tc.path, "/relative?") {
			msgs := gjson.Get(rec.Body.String(), "messages").Array()
			if len(msgs) == 0 {
				t.Fatalf("%s: no messages", tc.path)
			}
			for _, m := range msgs {
				if !strings.Contains(m.Get("message.streams").Raw, webStream) {
					t.Errorf("%s: a message outside the stream: %s", tc.path, m.Raw)
				}
			}
		}
	}
	// CSV by Accept header, as the web interface asks.
	req := httptest.NewRequest("GET", "/search/universal/relative?query=*&range=0&fields=source&filter=streams:"+webStream, nil)
	req.Header.Set("Accept", "text/csv")
	rec := httptest.NewRecorder()
	c.H.ServeHTTP(rec, req.WithContext(auth.WithPrincipal(req.Context(), reader)))
	routertest.WantStatus(t, rec, http.StatusOK)
}

// An invalid regular expression is the query's fault: a 400 with the
// QueryParseError body and the position of the fault in the query.
func TestInvalidRegexpIsAParseError(t *testing.T) {
	c := universalEnv(t)
	for _, tc := range []struct {
		query  string
		column int
	}{
		{`message:/[/`, 11},
		{`message:/a&b/`, 11},
		{`message:/a{1000}{1000}/`, 10},
	} {
		rec := c.Admin("GET", "/search/universal/relative?range=0&query="+url.QueryEscape(tc.query), "")
		routertest.WantStatus(t, rec, http.StatusBadRequest)
		body := gjson.Parse(rec.Body.String())
		if body.Get("type").String() != "AutoValue_QueryParseError" || body.Get("column").Int() != int64(tc.column) ||
			!strings.Contains(body.Get("message").String(), "Invalid regular expression") {
			t.Errorf("%s: %s; want a QueryParseError at column %d", tc.query, rec.Body, tc.column)
		}
	}
}

// Integer parameters are bounded before anything computes with them: a
// value past its limit is a 400 naming the parameter and the limit.
func TestIntegerParametersAreRangeChecked(t *testing.T) {
	c := universalEnv(t)
	const big = "9223372036854775807"
	for _, tc := range []struct{ query, want string }{
		{"range=0&offset=1&limit=" + big, `Invalid limit "` + big + `"; it must be a whole number from -2147483648 to 2147483647`},
		{"range=0&offset=" + big + "&limit=1", `Invalid offset "` + big + `"; it must be a whole number from 0 to 2147483647`},
		{"range=0&offset=-1", `Invalid offset "-1"; it must be a whole number from 0 to 2147483647`},
		{"range=0&offset=2147483647&limit=2147483647", `Result window is too large, [from + size] must be less than or equal to: [10000] but was [4294967294].`},
		{"range=1000000000000000000", `range must be a whole number of seconds from 0 to 2147483647`},
		{"range=" + big, `range must be a whole number of seconds from 0 to 2147483647`},
		{"range=2147483648", `range must be a whole number of seconds from 0 to 2147483647`},
	} {
		rec := c.Admin("GET", "/search/universal/relative?query=*&"+tc.query, "")
		routertest.WantStatus(t, rec, http.StatusBadRequest)
		if msg := gjson.Get(rec.Body.String(), "message").String(); !strings.Contains(msg, tc.want) {
			t.Errorf("%s: %q; want it to say %q", tc.query, msg, tc.want)
		}
	}
	rec := c.Admin("GET", "/search/universal/relative/export?query=*&range=0&fields=source&batch_size=100000", "")
	routertest.WantError(t, rec, http.StatusBadRequest, `Invalid batch_size "100000"; it must be a whole number from 1 to 10000`)
	rec = c.Admin("GET", "/search/universal/keyword?query=*&keyword="+url.QueryEscape("last "+big+"0 days"), "")
	routertest.WantStatus(t, rec, http.StatusBadRequest)
	rec = c.Admin("POST", "/views/search/sync", syncBody(`{"id":"m1","type":"messages","limit":1,"offset":`+big+`}`))
	routertest.WantError(t, rec, http.StatusBadRequest, `Invalid offset "`+big+`"; it must be a whole number from 0 to 2147483647`)
	// The largest range is still a range that ends now.
	rec = c.Admin("GET", "/search/universal/relative?query=*&range=2147483647&limit=1", "")
	routertest.WantStatus(t, rec, http.StatusOK)
	from, to := gjson.Get(rec.Body.String(), "from").Time(), gjson.Get(rec.Body.String(), "to").Time()
	if !from.Before(to) || to.Sub(from) != 2147483647*time.Second {
		t.Errorf("from %s, to %s", from, to)
	}
}

// Searches past search_max_concurrent wait for a place up to the queue
// duration, then are answered 503 with Retry-After; a place given back
// admits the next one.
func TestConcurrentSearchesAreBounded(t *testing.T) {
	e := newEnv(t, generated(10), generated(10)[9].Timestamp, Options{MaxConcurrent: 1, MaxQueueDuration: 20 * time.Millisecond})
	c := routertest.Client{H: routertest.Handler(NewHandler(e.svc).Routes())}
	// A search that holds the only place (as one streaming a long answer).
	_, release, err := e.svc.gate.admit(t.Context())
	if err != nil {
		t.Fatal(err)
	}
	for _, path := range []string{
		"/search/universal/relative?query=*&range=0",
		"/search/universal/relative/export?query=*&range=0&fields=source",
	} {
		rec := c.Admin("GET", path, "")
		routertest.WantStatus(t, rec, http.StatusServiceUnavailable)
		if rec.Header().Get("Retry-After") != "1" || !strings.Contains(rec.Body.String(), "Too many concurrent searches") {
			t.Errorf("%s: Retry-After %q, body %s", path, rec.Header().Get("Retry-After"), rec.Body)
		}
	}
	rec := c.Admin("POST", "/views/search/sync", syncBody(`{"id":"m1","type":"messages","limit":1}`))
	routertest.WantStatus(t, rec, http.StatusServiceUnavailable)
	release()
	routertest.WantStatus(t, c.Admin("GET", "/search/universal/relative?query=*&range=0", ""), http.StatusOK)
	// A sync search with a pivot takes one place, not two.
	rec = c.Admin("POST", "/views/search/sync", syncBody(`{"id":"p1","type":"pivot","row_groups":[],"series":[{"type":"count","id":"count()"}],"rollup":true}`))
	routertest.WantStatus(t, rec, http.StatusOK)
}

// countingStore counts the store calls of a search.
type countingStore struct {
	Store
	searches, scans atomic.Int64
}

func (c *countingStore) Search(ctx context.Context, q messages.Query) (messages.Result, error) {
	c.searches.Add(1)
	return c.Store.Search(ctx, q)
}

func (c *countingStore) Scan(ctx context.Context, q messages.Query) (messages.Cursor, error) {
	c.scans.Add(1)
	return c.Store.Scan(ctx, q)
}

// An export past the result window, however small its batch_size, is one
// pass over the store: one scan, no search run again for each page (which
// made a deep export's time grow with the square of its rows).
func TestExportIsOnePass(t *testing.T) {
	const n = 3000
	e := newEnv(t, generated(n), generated(n)[n-1].Timestamp, Options{})
	cs := &countingStore{Store: e.store}
	e.svc.store = cs
	c := routertest.Client{H: routertest.Handler(NewHandler(e.svc).Routes())}
	// A window smaller than the export, as on a large store.
	e.svc.sets = fakeSets{{ID: "is1", IndexPrefix: "graylog", MaxResultWindow: 500}}
	for _, tc := range []struct {
		method, path, body string
	}{
		{"GET", "/search/universal/relative/export?query=*&range=0&fields=source&batch_size=100", ""},
		{"POST", "/views/search/messages", `{"timerange":{"type":"relative","range":0},"fields_in_order":["source"],"chunk_size":100}`},
	} {
		cs.searches.Store(0)
		cs.scans.Store(0)
		rec := c.Admin(tc.method, tc.path, tc.body)
		routertest.WantStatus(t, rec, http.StatusOK)
		if rows := strings.Count(rec.Body.String(), "\n") - 1; rows != n {
			t.Errorf("%s: %d rows, want %d", tc.path, rows, n)
		}
		if s, sc := cs.searches.Load(), cs.scans.Load(); s != 0 || sc != 1 {
			t.Errorf("%s: %d searches and %d scans of the store, want one scan", tc.path, s, sc)
		}
	}
}

// Graylog's range is a Java int query parameter: a relative search
// without it (or with it empty) searches all time, as range=0 does, and is
// not refused.
func TestRelativeSearchWithoutRangeIsAllTime(t *testing.T) {
	c := universalEnv(t)
	for _, path := range []string{
		"/search/universal/relative?query=*&limit=1",
		"/search/universal/relative?query=*&range=&limit=1",
		"/search/universal/relative/export?query=*&fields=source",
	} {
		rec := c.Admin("GET", path, "")
		routertest.WantStatus(t, rec, http.StatusOK)
		if strings.Contains(path, "/export") {
			if rows := strings.Count(rec.Body.String(), "\n") - 1; rows != 200 {
				t.Errorf("%s: %d rows, want 200", path, rows)
			}
			continue
		}
		body := gjson.Parse(rec.Body.String())
		if body.Get("total_results").Int() != 200 || body.Get("from").String() != "1970-01-01T00:00:00.000Z" {
			t.Errorf("%s: total %d from %s; want all 200 messages since the epoch", path, body.Get("total_results").Int(), body.Get("from"))
		}
	}
}

// An export streams a scan, which no result window limits: a limit past
// any window (a script's "everything") is an export of everything, not a
// 400 about the result window.
func TestExportLimitIsNotBoundByTheWindow(t *testing.T) {
	c := universalEnv(t)
	for _, path := range []string{
		"/search/universal/relative/export?query=*&range=0&fields=source&limit=2147483647",
		"/search/universal/relative/export?query=*&range=0&fields=source&limit=2000000000&offset=2000000000",
	} {
		rec := c.Admin("GET", path, "")
		routertest.WantStatus(t, rec, http.StatusOK)
		want := 200
		if strings.Contains(path, "offset=") {
			want = 0
		}
		if rows := strings.Count(rec.Body.String(), "\n") - 1; rows != want {
			t.Errorf("%s: %d rows, want %d", path, rows, want)
		}
	}
	rec := c.Admin("POST", "/views/search/messages", `{"timerange":{"type":"relative","range":0},"fields_in_order":["source"],"limit":2147483647}`)
	routertest.WantStatus(t, rec, http.StatusOK)
	if rows := strings.Count(rec.Body.String(), "\n") - 1; rows != 200 {
		t.Errorf("views export: %d rows, want 200", rows)
	}
}

// …/export names its attachment as Graylog does, after the kind of range
// and its parameters.
func TestExportFilenameIsGraylogs(t *testing.T) {
	c := universalEnv(t)
	for path, want := range map[string]string{
		"/search/universal/relative/export?query=*&range=300&fields=source":                                                 "graylog-search-result-relative-300.csv",
		"/search/universal/relative/export?query=*&fields=source":                                                           "graylog-search-result-relative-0.csv",
		"/search/universal/absolute/export?query=*&from=2024-01-01T00:00:00.000Z&to=2024-12-31T00:00:00.000Z&fields=source": "graylog-search-result-absolute-2024-01-01T00:00:00.000Z-2024-12-31T00:00:00.000Z.csv",
		"/search/universal/keyword/export?query=*&keyword=last%20day&fields=source":                                         "graylog-search-result-keyword-last day.csv",
	} {
		rec := c.Admin("GET", path, "")
		routertest.WantStatus(t, rec, http.StatusOK)
		got := rec.Header().Get("Content-Disposition")
		if typ, params, err := mime.ParseMediaType(got); err != nil || typ != "attachment" || params["filename"] != want {
			t.Errorf("%s: Content-Disposition %q, want the file %s", path, got, want)
		}
	}
}
