package api

import (
	"net/http"
	"reflect"
	"slices"
	"strconv"
	"strings"
)

// Page is a parsed request for one page of a listing: Graylog's page,
// per_page, query, sort and order parameters.
type Page struct {
	Page int // 1-based
	// PerPage is the page size; 0 means every item on one page, as
	// Graylog 4.0's paginated listings read per_page=0 (a limit of 0 is
	// no limit, and the skip per_page*(page-1) is 0).
	PerPage int
	Query   string
	Sort    string
	Order   string // "asc" or "desc"
}

// Desc reports whether the listing is sorted in descending order.
func (p Page) Desc() bool { return p.Order == "desc" }

// ParsePage reads the pagination parameters of r. Defaults follow Graylog
// (page 1, per_page 50, order asc, the given sort field; per_page 0 for
// all). Values Graylog would misread — a page below 1, a negative per_page,
// a sort field the listing does not have, an order that is neither asc nor
// desc — are a 400.
func ParsePage(r *http.Request, defaultSort string, sortable ...string) (Page, error) {
	q := r.URL.Query()
	p := Page{Page: 1, PerPage: 50, Query: q.Get("query"), Sort: defaultSort, Order: "asc"}
	var err error
	if p.Page, err = positive(q, "page", 1); err != nil {
		return Page{}, err
	}
	if p.PerPage, err = atLeast(q, "per_page", 0, 50); err != nil {
		return Page{}, err
	}
	if s := q.Get("sort"); s != "" {
		if !slices.Contains(sortable, s) {
			return Page{}, Errorf(Invalid, "Invalid sort field %q; use one of %s", s, strings.Join(sortable, ", "))
		}
		p.Sort = s
	}
	if o := strings.ToLower(q.Get("order")); o != "" {
		if o != "asc" && o != "desc" {
			return Page{}, Errorf(Invalid, "Invalid order %q; use asc or desc", q.Get("order"))
		}
		p.Order = o
	}
	return p, nil
}

func positive(q map[string][]string, name string, def int) (int, error) {
	return atLeast(q, name, 1, def)
}

func atLeast(q map[string][]string, name string, least, def int) (int, error) {
	v := ""
	if vs := q[name]; len(vs) > 0 {
		v = vs[0]
	}
	if v == "" {
		return def, nil
	}
	n, err := strconv.Atoi(v)
	if err != nil || n < least {
		return 0, Errorf(Invalid, "Invalid %s %q; it must be a whole number of at least %d", name, v, least)
	}
	return n, nil
}

// Slice returns the items of page p from a sorted, filtered listing. Pages
// past the end, however large the numbers, are empty; per_page 0 is every
// item, whatever the page.
func Slice[T any](items []T, p Page) []T {
	if p.PerPage == 0 {
		return items
	}
	if p.Page < 1 || p.PerPage < 1 || len(items) == 0 || p.Page-1 > (len(items)-1)/p.PerPage {
		return items[:0]
	}
	start := (p.Page - 1) * p.PerPage // < len(items): no overflow
	end := start + min(p.PerPage, len(items)-start)
	return items[start:end]
}

// PageQuery names the query parameters of every paginated listing, for the
// API browser.
var PageQuery = []string{"page", "per_page", "query", "sort", "order"}

// PageOf is the one pagination of every listing: it keeps the items matching
// q, sorts them by p.Sort (case-insensitively, stable, descending when p asks)
// and returns page p of them with the number that matched. get returns an
// item's value of a field, for both the query and the sort. A listing already
// in the requested order is not sorted again, so services that keep their
// items sorted by the default field pay only for the filter.
func PageOf[T any](items []T, p Page, q Query, get func(item T, field string) string) (page []T, total int) {
	matched := items
	if len(q.terms) > 0 {
		matched = make([]T, 0, len(items))
		for _, it := range items {
			if q.Match(func(f string) string { return get(it, f) }) {
				matched = append(matched, it)
			}
		}
	}
	keys := make([]string, len(matched))
	for i, it := range matched {
		keys[i] = strings.ToLower(get(it, p.Sort))
	}
	ordered := func(a, b string) int {
		if p.Desc() {
			return strings.Compare(b, a)
		}
		return strings.Compare(a, b)
	}
	if !slices.IsSortedFunc(keys, ordered) {
		idx := make([]int, len(matched))
		for i := range idx {
			idx[i] = i
		}
		slices.SortStableFunc(idx, func(a, b int) int { return ordered(keys[a], keys[b]) })
		sorted := make([]T, len(matched))
		for i, j := range idx {
			sorted[i] = matched[j]
		}
		matched = sorted
	}
	return Slice(matched, p), len(matched)
}

// Listing is Graylog's generic PaginatedResponse: the page's items under a
// resource's own key (users, patterns, views, …) beside total (the number
// that matched the query), count, page and per_page, plus the query and, for
// listings that have them, grand_total (the number before filtering) and a
// context object.
type Listing struct {
	Key        string
	Items      any
	Count      int
	Total      int
	GrandTotal *int
	Page       Page
	Context    any
}

// Body returns the listing's JSON object.
func (l Listing) Body() map[string]any {
	body := map[string]any{
		"total": l.Total, "count": l.Count, "page": l.Page.Page, "per_page": l.Page.PerPage,
		"query": l.Page.Query, l.Key: l.Items,
	}
	// A nil slice is an empty list to clients, never null.
	if v := reflect.ValueOf(l.Items); v.Kind() == reflect.Slice && v.IsNil() {
		body[l.Key] = []any{}
	}
	if l.GrandTotal != nil {
		body["grand_total"] = *l.GrandTotal
	}
	if l.Context != nil {
		body["context"] = l.Context
	}
	return body
}
