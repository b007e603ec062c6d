package api

import (
	"net/http"
	"slices"
	"strconv"
	"strings"
)

// Page is a parsed request for one page of a listing: Graylog's page,
// per_page, query, sort and order parameters.
type Page struct {
	Page    int // 1-based
	PerPage int
	Query   string
	Sort    string
	Order   string // "asc" or "desc"
}

// Desc reports whether the listing is sorted in descending order.
func (p Page) Desc() bool { return p.Order == "desc" }

// ParsePage reads the pagination parameters of r. Defaults follow Graylog
// (page 1, per_page 50, order asc, the given sort field). Values Graylog
// would misread — a page below 1, per_page below 1, a sort field the listing
// does not have, an order that is neither asc nor desc — are a 400.
func ParsePage(r *http.Request, defaultSort string, sortable ...string) (Page, error) {
	q := r.URL.Query()
	p := Page{Page: 1, PerPage: 50, Query: q.Get("query"), Sort: defaultSort, Order: "asc"}
	var err error
	if p.Page, err = positive(q, "page", 1); err != nil {
		return Page{}, err
	}
	if p.PerPage, err = positive(q, "per_page", 50); err != nil {
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
	v := ""
	if vs := q[name]; len(vs) > 0 {
		v = vs[0]
	}
	if v == "" {
		return def, nil
	}
	n, err := strconv.Atoi(v)
	if err != nil || n < 1 {
		return 0, Errorf(Invalid, "Invalid %s %q; it must be a whole number of at least 1", name, v)
	}
	return n, nil
}

// Slice returns the items of page p from a sorted, filtered listing. Pages
// past the end, however large the numbers, are empty.
func Slice[T any](items []T, p Page) []T {
	if p.Page < 1 || p.PerPage < 1 || len(items) == 0 || p.Page-1 > (len(items)-1)/p.PerPage {
		return items[:0]
	}
	start := (p.Page - 1) * p.PerPage // < len(items): no overflow
	end := start + min(p.PerPage, len(items)-start)
	return items[start:end]
}
