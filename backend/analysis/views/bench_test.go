package views_test

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http/httptest"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/loggate/loggate/auth"
	"github.com/loggate/loggate/backend/analysis/views"
	"github.com/loggate/loggate/backend/store/bolt"
	"github.com/loggate/loggate/router/routertest"
)

// dashboardState is a dashboard's state with n aggregation widgets, the
// size the web interface writes.
func dashboardState(n int) map[string]json.RawMessage {
	var widgets, mapping, positions []string
	for i := range n {
		widgets = append(widgets, fmt.Sprintf(`{"id":"w%d","type":"aggregation","filter":null,"timerange":{"type":"relative","range":300},`+
			`"query":{"type":"elasticsearch","query_string":"source:web-%d"},"streams":["5f0000000000000000000001"],`+
			`"config":{"row_pivots":[{"field":"source","type":"values","config":{"limit":15}}],"column_pivots":[],`+
			`"series":[{"config":{"name":null},"function":"count()"}],"sort":[],"visualization":"bar","rollup":true}}`, i, i))
		mapping = append(mapping, fmt.Sprintf(`"w%d":["st%d"]`, i, i))
		positions = append(positions, fmt.Sprintf(`"w%d":{"col":1,"row":%d,"height":4,"width":"Infinity"}`, i, i*4+1))
	}
	st := `{"selected_fields":null,"static_message_list_id":null,"titles":{"tab":{"title":"Overview"}},"widgets":[` +
		strings.Join(widgets, ",") + `],"widget_mapping":{` + strings.Join(mapping, ",") + `},"positions":{` +
		strings.Join(positions, ",") + `},"formatting":{"highlighting":[]},"display_mode_settings":{"positions":{}}}`
	return map[string]json.RawMessage{"q1": json.RawMessage(st)}
}

func BenchmarkCreateBody(b *testing.B) {
	st := dashboardState(10)
	body, err := json.Marshal(map[string]any{
		"type": "DASHBOARD", "title": "Web", "summary": "", "description": "", "search_id": "5f0000000000000000000001",
		"properties": []string{}, "requires": map[string]any{}, "state": st,
	})
	if err != nil {
		b.Fatal(err)
	}
	dir := b.TempDir()
	db, err := bolt.Open(filepath.Join(dir, "db"), nil)
	if err != nil {
		b.Fatal(err)
	}
	b.Cleanup(func() { _ = db.Close() })
	// Only the decoding and validation: the handler answers 403 before it
	// writes, for want of dashboards:create.
	h := routertest.Handler(views.NewHandler(views.NewService(db, time.Now), nil).Routes())
	p := user(b, "alice")
	b.SetBytes(int64(len(body)))
	b.ReportAllocs()
	for b.Loop() {
		r := httptest.NewRequest("POST", "/views", strings.NewReader(string(body)))
		r = r.WithContext(auth.WithPrincipal(r.Context(), p))
		w := httptest.NewRecorder()
		h.ServeHTTP(w, r)
		if w.Code != 403 {
			b.Fatalf("status %d: %s", w.Code, w.Body)
		}
	}
}

// benchViews stores n dashboards of 10 widgets each, a quarter of them
// alice's.
func benchViews(b *testing.B, n int) (*views.Service, []string) {
	b.Helper()
	db, err := bolt.Open(filepath.Join(b.TempDir(), "db"), nil)
	if err != nil {
		b.Fatal(err)
	}
	b.Cleanup(func() { _ = db.Close() })
	svc := views.NewService(db, time.Now)
	st := dashboardState(10)
	ids := make([]string, n)
	for i := range n {
		owner := "bob"
		if i%4 == 0 {
			owner = "alice"
		}
		v, err := svc.Create(context.Background(), views.View{
			Type: views.Dashboard, Title: fmt.Sprintf("Dashboard %04d", n-i), Description: "web servers",
			SearchID: "5f0000000000000000000001", Properties: []string{}, Requires: map[string]json.RawMessage{}, State: st,
		}, owner)
		if err != nil {
			b.Fatal(err)
		}
		ids[i] = v.ID
	}
	return svc, ids
}

func BenchmarkList(b *testing.B) {
	for _, tc := range []struct {
		name, path string
		perms      []string
	}{
		{"owner", "/views?per_page=50", nil},
		{"reader", "/views?per_page=50", []string{"view:read:*"}},
		{"reader-query", "/dashboards?per_page=50&query=summary:web%20title:9&sort=created_at&order=desc", []string{"view:read:*"}},
	} {
		b.Run(tc.name, func(b *testing.B) {
			svc, _ := benchViews(b, 1000)
			h := routertest.Handler(views.NewHandler(svc, nil).Routes())
			p := user(b, "alice", tc.perms...)
			b.ReportAllocs()
			for b.Loop() {
				r := httptest.NewRequest("GET", tc.path, nil)
				r = r.WithContext(auth.WithPrincipal(r.Context(), p))
				w := httptest.NewRecorder()
				h.ServeHTTP(w, r)
				if w.Code != 200 {
					b.Fatalf("status %d: %s", w.Code, w.Body)
				}
			}
		})
	}
}

func BenchmarkGet(b *testing.B) {
	svc, ids := benchViews(b, 100)
	h := routertest.Handler(views.NewHandler(svc, nil).Routes())
	p := user(b, "alice")
	path := "/views/" + ids[0]
	b.ReportAllocs()
	for b.Loop() {
		r := httptest.NewRequest("GET", path, nil)
		r = r.WithContext(auth.WithPrincipal(r.Context(), p))
		w := httptest.NewRecorder()
		h.ServeHTTP(w, r)
		if w.Code != 200 {
			b.Fatalf("status %d: %s", w.Code, w.Body)
		}
	}
}

func BenchmarkCounts(b *testing.B) {
	svc, _ := benchViews(b, 1000)
	b.ReportAllocs()
	for b.Loop() {
		if d, _, err := svc.Counts(context.Background()); err != nil || d != 1000 {
			b.Fatalf("Counts = %d, %v", d, err)
		}
	}
}
