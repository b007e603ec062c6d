package elastic

import (
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/loggate/loggate/backend/logs/messages"
)

// sortingES answers a scan's searches over a fixed list of documents as
// Elasticsearch does for sort and search_after: hits ordered by the sort
// fields, a missing value last whatever the order, and search_after
// keeping only hits strictly after the given values, so that hits equal
// to them on every sort field are skipped (Elasticsearch's after-document
// has doc id Integer.MAX_VALUE).
func sortingES(t *testing.T, docs []map[string]any) *httptest.Server {
	t.Helper()
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		body, _ := io.ReadAll(r.Body)
		w.Header().Set("Content-Type", "application/json")
		switch {
		case r.Method == "GET" && r.URL.Path == "/":
			_, _ = io.WriteString(w, `{"version":{"number":"7.10.2"}}`)
		case r.Method == "PUT" && r.URL.Path == "/loggate-state":
			_, _ = io.WriteString(w, `{"acknowledged":true}`)
		case strings.HasPrefix(r.URL.Path, "/loggate-state/_doc/"):
			w.WriteHeader(404)
			_, _ = io.WriteString(w, `{"found":false}`)
		case strings.HasPrefix(r.URL.Path, "/_cat/indices/"):
			fmt.Fprintf(w, `[{"index":"graylog_0","status":"open","docs.count":"%d","store.size":"1","creation.date":"0"}]`, len(docs))
		case strings.HasPrefix(r.URL.Path, "/_alias/"):
			_, _ = io.WriteString(w, `{"graylog_0":{"aliases":{"graylog_deflector":{}}}}`)
		case r.URL.Path == "/graylog_*/_search":
			var req struct {
				Size        int                         `json:"size"`
				Sort        []map[string]map[string]any `json:"sort"`
				SearchAfter []any                       `json:"search_after"`
				Aggs        any                         `json:"aggs"`
			}
			if err := json.Unmarshal(body, &req); err != nil {
				t.Errorf("search body %s: %v", body, err)
			}
			if req.Aggs != nil {
				_, _ = io.WriteString(w, `{"hits":{"total":{"value":0,"relation":"eq"},"hits":[]}}`)
				return
			}
			type key struct {
				field string
				desc  bool
			}
			var keys []key
			for _, s := range req.Sort {
				for f, o := range s {
					keys = append(keys, key{f, o["order"] == "desc"})
				}
			}
			values := func(d map[string]any) []any {
				out := make([]any, len(keys))
				for i, k := range keys {
					v, ok := d[k.field]
					if !ok {
						continue
					}
					if k.field == "timestamp" {
						ts, _ := time.Parse(timeLayout, v.(string))
						v = float64(ts.UnixMilli())
					}
					out[i] = v
				}
				return out
			}
			cmpv := func(a, b []any) int {
				for i, k := range keys {
					x, y := a[i], b[i]
					var c int
					switch {
					case x == nil && y == nil:
					case x == nil:
						c = 1 // missing last, in either order
					case y == nil:
						c = -1
					default:
						c = strings.Compare(fmt.Sprint(x), fmt.Sprint(y))
						if xf, ok := x.(float64); ok {
							c = 0
							if yf := y.(float64); xf < yf {
								c = -1
							} else if xf > yf {
								c = 1
							}
						}
						if k.desc {
							c = -c
						}
					}
					if c != 0 {
						return c
					}
				}
				return 0
			}
			sorted := slices.Clone(docs)
			slices.SortStableFunc(sorted, func(a, b map[string]any) int { return cmpv(values(a), values(b)) })
			var hits []string
			for _, d := range sorted {
				v := values(d)
				if req.SearchAfter != nil && cmpv(v, req.SearchAfter) <= 0 {
					continue
				}
				if len(hits) == req.Size {
					break
				}
				src, _ := json.Marshal(d)
				sv, _ := json.Marshal(v)
				hits = append(hits, fmt.Sprintf(`{"_index":"graylog_0","_id":%q,"_source":%s,"sort":%s}`, d["gl2_message_id"], src, sv))
			}
			fmt.Fprintf(w, `{"hits":{"total":{"value":%d,"relation":"eq"},"hits":[%s]}}`, len(docs), strings.Join(hits, ","))
		default:
			t.Errorf("unexpected request %s %s", r.Method, r.URL.RequestURI())
			w.WriteHeader(500)
		}
	}))
	t.Cleanup(srv.Close)
	return srv
}

// TestScanGraylogDocumentsSameTimestamp scans an index Graylog 4.0 wrote:
// its documents have no gl2_loggate_id, but, like every message of
// Graylog 4.0, a gl2_message_id, which Graylog's own search_after export
// breaks ties with. Messages of the same millisecond across a page
// boundary must all be returned.
func TestScanGraylogDocumentsSameTimestamp(t *testing.T) {
	var docs []map[string]any
	for i := range scanPage + 500 {
		docs = append(docs, map[string]any{
			"timestamp":      "2020-12-01 10:00:00.000",
			"message":        fmt.Sprint("message ", i),
			"gl2_message_id": fmt.Sprintf("01ERN0J0Q0000000000000%04d", i),
		})
	}
	srv := sortingES(t, docs)
	s, err := Open(t.Context(), Options{Hosts: []string{srv.URL}})
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	for _, sort := range []messages.Sort{{}, {Field: "message", Asc: true}, {Field: messages.FieldID}} {
		c, err := s.Scan(t.Context(), messages.Query{Prefixes: []string{"graylog"}, Sort: sort})
		if err != nil {
			t.Fatal(err)
		}
		seen := map[string]bool{}
		for h, ok := c.Next(); ok; h, ok = c.Next() {
			seen[h.Message.ID] = true
		}
		if c.Err() != nil || len(seen) != len(docs) {
			t.Errorf("sort %+v: scan returned %d distinct messages of %d (err %v)", sort, len(seen), len(docs), c.Err())
		}
		_ = c.Close()
	}
}
