package views_test

import (
	"fmt"
	"testing"

	legacyviews "github.com/loggate/loggate/legacy/views"
)

// benchEnv holds 100 dashboards of 4 widgets each.
func benchEnv(b *testing.B) (*env, string) {
	b.Helper()
	e := newEnv(b, nil)
	ctx := as(b, "jane", "dashboards:create")
	var id string
	for i := range 100 {
		var err error
		if id, err = e.svc.CreateDashboard(ctx, legacyviews.DashboardRequest{Title: ptr(fmt.Sprintf("Dashboard %d", i))}); err != nil {
			b.Fatal(err)
		}
		for range 4 {
			if _, err := e.svc.AddWidget(ctx, id, widget(b, countBody)); err != nil {
				b.Fatal(err)
			}
		}
	}
	return e, id
}

func BenchmarkDashboards(b *testing.B) {
	e, _ := benchEnv(b)
	ctx := as(b, "bob", "dashboards:read")
	b.ReportAllocs()
	for b.Loop() {
		if l, err := e.svc.Dashboards(ctx); err != nil || l.Total != 100 {
			b.Fatal(l.Total, err)
		}
	}
}

func BenchmarkDashboard(b *testing.B) {
	e, id := benchEnv(b)
	ctx := as(b, "bob", "dashboards:read")
	b.ReportAllocs()
	for b.Loop() {
		if d, err := e.svc.Dashboard(ctx, id); err != nil || len(d.Widgets) != 4 {
			b.Fatal(err)
		}
	}
}

func BenchmarkParseWidget(b *testing.B) {
	body := []byte(countBody)
	b.ReportAllocs()
	for b.Loop() {
		if _, err := legacyviews.ParseWidget(body); err != nil {
			b.Fatal(err)
		}
	}
}
