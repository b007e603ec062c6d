package functions_test

import (
	"encoding/json"
	"path/filepath"
	"reflect"
	"strings"
	"testing"
	"time"

	"github.com/loggate/loggate/backend/logs/lookup"
	"github.com/loggate/loggate/backend/logs/messages"
	"github.com/loggate/loggate/backend/logs/pipelines/functions"
	"github.com/loggate/loggate/backend/logs/pipelines/lang"
	"github.com/loggate/loggate/backend/store/bolt"
)

// TestLookupFunctions runs the eight lookup functions, in order, against a
// writable table of a real lookup service with a default single value.
func TestLookupFunctions(t *testing.T) {
	ctx := t.Context()
	st, err := bolt.Open(filepath.Join(t.TempDir(), "db"), lookup.Indexes)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = st.Close() })
	svc, err := lookup.NewService(ctx, st, lookup.Options{Now: func() time.Time { return testNow }})
	if err != nil {
		t.Fatal(err)
	}
	a, err := svc.CreateComponent(ctx, lookup.Adapters, lookup.Component{Title: "kv", Name: "kv", Config: json.RawMessage(`{"type":"mongodb"}`)})
	if err != nil {
		t.Fatal(err)
	}
	c, err := svc.CreateComponent(ctx, lookup.Caches, lookup.Component{Title: "c", Name: "c", Config: json.RawMessage(`{"type":"guava_cache"}`)})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := svc.CreateTable(ctx, lookup.Table{Title: "t", Name: "kv", CacheID: c.ID, DataAdapterID: a.ID,
		DefaultSingleValue: "none", DefaultSingleValueType: "STRING"}); err != nil {
		t.Fatal(err)
	}
	lib := functions.New(functions.Deps{Lookup: svc, Now: func() time.Time { return testNow }})
	steps := []struct {
		expr string
		want any
	}{
		{`lookup_value("kv", "host")`, "none"},
		{`lookup_value("kv", $message.missing, "d")`, "d"},
		{`lookup("kv", "host")`, map[string]any{"value": "none"}},
		{`lookup_set_value("kv", "host", 42)`, "42"},
		{`lookup_value("kv", "host")`, "42"},
		{`lookup("kv", "host")`, map[string]any{"value": []any{"42"}}},
		{`lookup_string_list("kv", "nope", ["x"])`, []any{"x"}},
		{`lookup_set_string_list("kv", "l", ["a", "b"])`, []any{"a", "b"}},
		{`lookup_add_string_list("kv", "l", ["b", "c"])`, []any{"a", "b", "c"}},
		{`lookup_add_string_list("kv", "l", ["a"], true)`, []any{"a", "b", "c", "a"}},
		{`lookup_remove_string_list("kv", "l", ["a"])`, []any{"b", "c"}},
		{`lookup_string_list("kv", "l")`, []any{"b", "c"}},
		{`lookup_clear_key("kv", "l")`, nil},
		{`lookup_string_list("kv", "l")`, []any{}},
	}
	for _, s := range steps {
		e, err := lang.ParseExpr(s.expr, lib)
		if err != nil {
			t.Fatalf("%s: parse: %v", s.expr, err)
		}
		m := &lang.Message{Message: &messages.Message{ID: "m1", Timestamp: testNow}}
		got, err := e.Eval(lang.NewContext(m, func() time.Time { return testNow }))
		if err != nil || !reflect.DeepEqual(got, s.want) {
			t.Errorf("%s = %#v, %v; want %#v", s.expr, got, err, s.want)
		}
	}
	// A constant table name must name a table; another is a parse error.
	if _, err := lang.ParseExpr(`lookup_value("nope", "k")`, lib); err == nil || !strings.Contains(err.Error(), "Lookup table <nope> not found") {
		t.Errorf("unknown table: %v", err)
	}
}
