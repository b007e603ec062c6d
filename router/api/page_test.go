package api

import (
	"encoding/json"
	"fmt"
	"math/rand/v2"
	"net/http/httptest"
	"slices"
	"strings"
	"testing"
	"time"
)

type rec struct{ name, desc string }

func get(r rec, f string) string {
	if f == "desc" {
		return r.desc
	}
	return r.name
}

func TestPageOf(t *testing.T) {
	items := []rec{{"beta", "x"}, {"Alpha", "y"}, {"gamma", "x"}, {"alpha", "z"}}
	tests := []struct {
		name  string
		page  Page
		query string
		want  []string
		total int
	}{
		{"sorted case-insensitively, stable", Page{Page: 1, PerPage: 10, Sort: "name", Order: "asc"}, "", []string{"Alpha", "alpha", "beta", "gamma"}, 4},
		{"descending", Page{Page: 1, PerPage: 10, Sort: "name", Order: "desc"}, "", []string{"gamma", "beta", "Alpha", "alpha"}, 4},
		{"second page", Page{Page: 2, PerPage: 3, Sort: "name", Order: "asc"}, "", []string{"gamma"}, 4},
		{"filtered, total counts matches", Page{Page: 1, PerPage: 1, Sort: "name", Order: "asc"}, "desc:x", []string{"beta"}, 2},
		{"past the end", Page{Page: 9, PerPage: 10, Sort: "name", Order: "asc"}, "", []string{}, 4},
		{"per_page 0: all, whatever the page", Page{Page: 3, PerPage: 0, Sort: "name", Order: "asc"}, "", []string{"Alpha", "alpha", "beta", "gamma"}, 4},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			q, err := ParseQuery(tt.query, "name", "name", "desc")
			if err != nil {
				t.Fatal(err)
			}
			in := slices.Clone(items)
			got, total := PageOf(in, tt.page, q, get)
			names := []string{}
			for _, r := range got {
				names = append(names, r.name)
			}
			if !slices.Equal(names, tt.want) || total != tt.total {
				t.Errorf("got %v (total %d), want %v (total %d)", names, total, tt.want, tt.total)
			}
			if !slices.Equal(in, items) {
				t.Errorf("PageOf reordered its input: %v", in)
			}
		})
	}
}

// Every item appears on exactly one page, whatever the page size.
func TestPageOfPagesPartition(t *testing.T) {
	r := rand.New(rand.NewPCG(1, 2))
	for range 50 {
		n := r.IntN(40)
		items := make([]rec, n)
		for i := range items {
			items[i] = rec{name: fmt.Sprintf("%c%d", 'a'+r.IntN(5), i)}
		}
		per := 1 + r.IntN(7)
		var all []string
		for p := 1; ; p++ {
			got, total := PageOf(items, Page{Page: p, PerPage: per, Sort: "name", Order: "asc"}, Query{}, get)
			if total != n {
				t.Fatalf("total %d, want %d", total, n)
			}
			if len(got) == 0 {
				break
			}
			for _, it := range got {
				all = append(all, it.name)
			}
		}
		want := make([]string, n)
		for i, it := range items {
			want[i] = it.name
		}
		slices.Sort(want)
		if !slices.Equal(all, want) {
			t.Fatalf("pages of %d by %d: %v, want %v", n, per, all, want)
		}
	}
}

func TestListingBody(t *testing.T) {
	var none []rec
	grand := 7
	b, _ := json.Marshal(Listing{Key: "patterns", Items: none, Total: 0, GrandTotal: &grand, Page: Page{Page: 2, PerPage: 5, Query: "q"}}.Body())
	want := `{"count":0,"grand_total":7,"page":2,"patterns":[],"per_page":5,"query":"q","total":0}`
	if string(b) != want {
		t.Errorf("body = %s\nwant   %s", b, want)
	}
}

func TestValidationError(t *testing.T) {
	err := (&ValidationError{}).Add("port", "must be at most %d", 65535).Add("title", "is required").Err()
	if ErrorCode(err) != Invalid {
		t.Fatalf("code %v", ErrorCode(err))
	}
	w := httptest.NewRecorder()
	WriteError(w, nil, fmt.Errorf("save output: %w", err))
	if w.Code != 400 || !strings.Contains(w.Body.String(), `"type":"ValidationApiError"`) ||
		!strings.Contains(w.Body.String(), `"port":[{"error":"must be at most 65535"}]`) {
		t.Errorf("%d %s", w.Code, w.Body)
	}
	if (&ValidationError{}).Err() != nil {
		t.Error("an empty ValidationError is an error")
	}
}

func TestTime(t *testing.T) {
	at := time.Date(2020, 11, 3, 14, 54, 0, 123_456_789, time.FixedZone("x", 3600))
	b, _ := json.Marshal(Time{at})
	if string(b) != `"2020-11-03T13:54:00.123Z"` {
		t.Errorf("marshal = %s", b)
	}
	for _, in := range []string{`"2020-11-03T13:54:00.123Z"`, `"2020-11-03T14:54:00.123+01:00"`, `"2020-11-03T13:54:00.123+0000"`} {
		var got Time
		if err := json.Unmarshal([]byte(in), &got); err != nil || !got.Equal(at.Truncate(time.Millisecond)) {
			t.Errorf("unmarshal %s = %v, %v", in, got, err)
		}
	}
	var bad Time
	if err := json.Unmarshal([]byte(`"yesterday"`), &bad); err == nil || ErrorCode(err) != Invalid {
		t.Errorf("bad date: %v", err)
	}
}
