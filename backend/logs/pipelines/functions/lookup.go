package functions

import (
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/loggate/loggate/backend/logs/lookup"
	"github.com/loggate/loggate/backend/logs/pipelines/lang"
)

// LookupTables are the lookup tables rules read and write by name;
// *lookup.Service satisfies it.
type LookupTables interface {
	Exists(ctx context.Context, name string) bool
	Lookup(ctx context.Context, table string, key any) (lookup.Result, error)
	SetValue(ctx context.Context, table string, key, value any) (any, error)
	ClearKey(ctx context.Context, table string, key any) error
	SetStringList(ctx context.Context, table string, key any, values []string) ([]string, error)
	AddStringList(ctx context.Context, table string, key any, values []string, keepDuplicates bool) ([]string, error)
	RemoveStringList(ctx context.Context, table string, key any, values []string) ([]string, error)
}

// lookupTimeout bounds a lookup a rule makes (an HTTP or DNS adapter).
const lookupTimeout = 30 * time.Second

// lookupFunctions are Graylog's lookup table functions. The table is named
// by the first argument; a constant name of a table that does not exist
// fails the rule's parse, as Graylog's pre-computed table argument does.
func lookupFunctions(d Deps) []*lang.Function {
	tables := d.Lookup
	table := req("lookup_table", lang.TString, "The existing lookup table to use to lookup the given key")
	table.Prepare = func(v any) (any, error) {
		name, ok := v.(string)
		if !ok {
			return nil, errWrongType("lookup_table", v)
		}
		if tables == nil || !tables.Exists(context.Background(), name) {
			return nil, fmt.Errorf("Lookup table <%s> not found", name) //lint:ignore ST1005 Graylog's words
		}
		return name, nil
	}
	key := req("key", lang.TObject, "The key to lookup in the table")
	list := func(name, desc string) lang.Param { return req(name, lang.TList, desc) }
	// call runs fn on the table the rule names, with the key as text.
	call := func(a lang.Args, fn func(ctx context.Context, table string, key any) (any, error)) (any, error) {
		if tables == nil {
			return nil, errors.New("lookup tables are not available")
		}
		ctx, cancel := context.WithTimeout(context.Background(), lookupTimeout)
		defer cancel()
		var k any
		if a.Has(1) {
			k, _ = lang.ToString(a.Get(1))
		}
		return fn(ctx, a.String(0, ""), k)
	}
	return []*lang.Function{
		fn("lookup", lang.TMap, "Looks up a multi value in the named lookup table.", func(_ *lang.Context, a lang.Args) (any, error) {
			return call(a, func(ctx context.Context, t string, k any) (any, error) {
				r, err := tables.Lookup(ctx, t, k)
				if err != nil || k == nil || r.Multi == nil {
					return map[string]any{"value": a.Get(2)}, nil
				}
				return langValue(r.Multi), nil
			})
		}, table, key, opt("default", lang.TObject, "The default multi value that should be used if there is no lookup result")),
		fn("lookup_value", lang.TObject, "Looks up a single value in the named lookup table.", func(_ *lang.Context, a lang.Args) (any, error) {
			return call(a, func(ctx context.Context, t string, k any) (any, error) {
				r, err := tables.Lookup(ctx, t, k)
				if err != nil || k == nil || r.Single == nil {
					return a.Get(2), nil
				}
				return langValue(r.Single), nil
			})
		}, table, key, opt("default", lang.TObject, "The default single value that should be used if there is no lookup result")),
		fn("lookup_string_list", lang.TList, "Looks up a string list value in the named lookup table.", func(_ *lang.Context, a lang.Args) (any, error) {
			return call(a, func(ctx context.Context, t string, k any) (any, error) {
				r, err := tables.Lookup(ctx, t, k)
				if err != nil || k == nil || r.StringList == nil {
					if l, ok := lang.AsList(a.Get(2)); ok {
						return l, nil
					}
					return []any{}, nil
				}
				return langValue(r.StringList), nil
			})
		}, table, key, opt("default", lang.TList, "The default value that should be used if there is no lookup result")),
		fn("lookup_set_value", lang.TObject, "Set a single value in the named lookup table. Returns the new value on success, null on failure.", func(_ *lang.Context, a lang.Args) (any, error) {
			return call(a, func(ctx context.Context, t string, k any) (any, error) {
				if k == nil {
					return nil, nil
				}
				v, _ := lang.ToString(a.Get(2))
				return tables.SetValue(ctx, t, k, v)
			})
		}, table, key, req("value", lang.TObject, "The single value that should be set into the lookup table")),
		fn("lookup_clear_key", lang.TVoid, "Clears (removes) a key in the named lookup table.", func(_ *lang.Context, a lang.Args) (any, error) {
			return call(a, func(ctx context.Context, t string, k any) (any, error) {
				if k == nil {
					return nil, nil
				}
				return nil, tables.ClearKey(ctx, t, k)
			})
		}, table, key),
		fn("lookup_set_string_list", lang.TList, "Set a string list in the named lookup table. Returns the new value on success, null on failure.", func(_ *lang.Context, a lang.Args) (any, error) {
			return call(a, func(ctx context.Context, t string, k any) (any, error) {
				if k == nil {
					return nil, nil
				}
				out, err := tables.SetStringList(ctx, t, k, textList(a.Get(2)))
				return listOrNil(out, err)
			})
		}, table, key, list("value", "The list value that should be set into the lookup table")),
		fn("lookup_add_string_list", lang.TList, "Add a string list in the named lookup table. Returns the updated list on success, null on failure.", func(_ *lang.Context, a lang.Args) (any, error) {
			return call(a, func(ctx context.Context, t string, k any) (any, error) {
				if k == nil {
					return nil, nil
				}
				out, err := tables.AddStringList(ctx, t, k, textList(a.Get(2)), a.Bool(3, false))
				return listOrNil(out, err)
			})
		}, table, key, list("value", "The list value that should be added into the lookup table"),
			opt("keep_duplicates", lang.TBoolean, "Keep duplicate entries (default: false)")),
		fn("lookup_remove_string_list", lang.TList, "Remove the entries of the given string list from the named lookup table. Returns the updated list on success, null on failure.", func(_ *lang.Context, a lang.Args) (any, error) {
			return call(a, func(ctx context.Context, t string, k any) (any, error) {
				if k == nil {
					return nil, nil
				}
				out, err := tables.RemoveStringList(ctx, t, k, textList(a.Get(2)))
				return listOrNil(out, err)
			})
		}, table, key, list("value", "The list value that should be removed from the lookup table")),
	}
}

// textList is a list argument's items as text.
func textList(v any) []string {
	items, _ := lang.AsList(v)
	out := make([]string, 0, len(items))
	for _, it := range items {
		if s, ok := lang.ToString(it); ok {
			out = append(out, s)
		}
	}
	return out
}

func listOrNil(vs []string, err error) (any, error) {
	if err != nil {
		return nil, err
	}
	return langValue(vs), nil
}

// langValue turns a lookup result's values into the language's: JSON
// numbers that are whole become longs, string lists lists.
func langValue(v any) any {
	switch x := v.(type) {
	case float64:
		return lang.FromJSON(x)
	case []string:
		out := make([]any, len(x))
		for i, s := range x {
			out[i] = s
		}
		return out
	case []any:
		out := make([]any, len(x))
		for i, e := range x {
			out[i] = langValue(e)
		}
		return out
	case map[string]any:
		out := make(map[string]any, len(x))
		for k, e := range x {
			out[k] = langValue(e)
		}
		return out
	}
	return v
}
