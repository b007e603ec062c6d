package views_test

import (
	"net/http"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/loggate/loggate/backend/analysis/search"
	"github.com/loggate/loggate/backend/analysis/views"
	"github.com/loggate/loggate/backend/logs/messages"
	"github.com/loggate/loggate/backend/logs/messages/embedded"
	"github.com/loggate/loggate/backend/logs/streams"
	"github.com/loggate/loggate/backend/store/bolt"
	"github.com/loggate/loggate/router/routertest"
)

// The 4.0 search page exports through its stored search: POST
// /views/search/messages/{searchId} (the search's one query) and
// …/{searchId}/{searchTypeId} (a message list, narrowed by its own query).
// Only a user who may read the search exports it, and only within the
// streams they may read; a pivot is not exported.
func TestExportStoredSearch(t *testing.T) {
	const other = "5f1a2b3c4d5e6f7a8b9c0d1e"
	ms, err := embedded.Open(filepath.Join(t.TempDir(), "messages"), embedded.Options{})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = ms.Close() })
	at := time.Date(2024, 3, 1, 0, 0, 0, 0, time.UTC)
	var msgs []messages.Message
	for i, src := range []string{"web-1", "web-2", "db-1", "db-2"} {
		st := []string{streams.DefaultStreamID}
		if strings.HasPrefix(src, "db") {
			st = []string{other}
		}
		msgs = append(msgs, messages.Message{ID: src, Timestamp: at.Add(time.Duration(i) * time.Second), Streams: st,
			Fields: []messages.Field{{Key: "source", Value: src}, {Key: "message", Value: "hello, \"" + src + "\""}}})
	}
	if err := ms.Write(t.Context(), "graylog", msgs); err != nil {
		t.Fatal(err)
	}
	if err := ms.Flush(t.Context(), 1); err != nil {
		t.Fatal(err)
	}
	docs, err := bolt.Open(filepath.Join(t.TempDir(), "db"), nil)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = docs.Close() })
	now := func() time.Time { return at.Add(time.Minute) }
	ss := benchStreams{{ID: streams.DefaultStreamID, IndexSetID: "is1"}, {ID: other, IndexSetID: "is1"}}
	sets := benchSets{{ID: "is1", IndexPrefix: "graylog"}}
	exec := search.NewHandler(search.NewService(ms, ss, sets, search.Options{Now: now}))
	c := routertest.Client{H: routertest.Handler(views.NewSearchHandler(views.NewSearches(docs, views.NewService(docs, now), now), exec,
		views.NewJobs(time.Now), views.NewFields(ms, ss, sets)).Routes())}

	const id = "5f1a2b3c4d5e6f7a8b9c0d99"
	body := `{"id":"` + id + `","queries":[{"id":"q1","query":{"type":"elasticsearch","query_string":"source:web*"},` +
		`"timerange":{"type":"relative","range":0},"filter":null,"search_types":[` +
		`{"id":"ml","type":"messages","limit":150,"offset":0,"query":{"type":"elasticsearch","query_string":"source:web-2"}},` +
		`{"id":"chart","type":"pivot","row_groups":[],"column_groups":[],"series":[{"type":"count","id":"count()"}],"sort":[],"rollup":true}]}],"parameters":[]}`
	owner := user(t, "alice", "streams:read:"+streams.DefaultStreamID)
	routertest.WantStatus(t, c.Do(owner, "POST", "/views/search", body), http.StatusCreated)

	format := `{"fields_in_order":["source","message"]}`
	rec := c.Do(owner, "POST", "/views/search/messages/"+id, format)
	routertest.WantStatus(t, rec, http.StatusOK)
	if got, want := rec.Body.String(), "\"source\",\"message\"\n\"web-2\",\"hello, \"\"web-2\"\"\"\n\"web-1\",\"hello, \"\"web-1\"\"\"\n"; got != want {
		t.Errorf("search export:\n%s\nwant\n%s", got, want)
	}
	rec = c.Do(owner, "POST", "/views/search/messages/"+id+"/ml", format)
	routertest.WantStatus(t, rec, http.StatusOK)
	if got, want := rec.Body.String(), "\"source\",\"message\"\n\"web-2\",\"hello, \"\"web-2\"\"\"\n"; got != want {
		t.Errorf("message list export:\n%s\nwant\n%s", got, want)
	}
	// An execution state's query replaces the search's.
	rec = c.Do(owner, "POST", "/views/search/messages/"+id,
		`{"fields_in_order":["source"],"execution_state":{"global_override":{"query":{"type":"elasticsearch","query_string":"*"}}}}`)
	routertest.WantStatus(t, rec, http.StatusOK)
	if got, want := rec.Body.String(), "\"source\"\n\"web-2\"\n\"web-1\"\n"; got != want {
		t.Errorf("export with an execution state:\n%s\nwant\n%s (the caller's streams only)", got, want)
	}
	routertest.WantStatus(t, c.Do(owner, "POST", "/views/search/messages/"+id+"/chart", format), http.StatusBadRequest)
	routertest.WantStatus(t, c.Do(owner, "POST", "/views/search/messages/"+id+"/nope", format), http.StatusNotFound)
	routertest.WantStatus(t, c.Do(owner, "POST", "/views/search/messages/5f1a2b3c4d5e6f7a8b9c0d00", format), http.StatusNotFound)
	// Another user, even one who reads every stream, may not export
	// alice's search.
	mallory := user(t, "mallory", "streams:read:*", "searches:relative")
	routertest.WantStatus(t, c.Do(mallory, "POST", "/views/search/messages/"+id, format), http.StatusForbidden)
	routertest.WantStatus(t, c.Do(mallory, "POST", "/views/search/messages/"+id+"/ml", format), http.StatusForbidden)
	// A search naming a stream the caller lost is refused, not exported.
	body2 := strings.Replace(body, id, "5f1a2b3c4d5e6f7a8b9c0d98", 1)
	body2 = strings.Replace(body2, `"filter":null`, `"filter":{"type":"or","filters":[{"type":"stream","id":"`+streams.DefaultStreamID+`"}]}`, 1)
	routertest.WantStatus(t, c.Do(owner, "POST", "/views/search", body2), http.StatusCreated)
	demoted := user(t, "alice")
	routertest.WantStatus(t, c.Do(demoted, "POST", "/views/search/messages/5f1a2b3c4d5e6f7a8b9c0d98", format), http.StatusForbidden)
}
