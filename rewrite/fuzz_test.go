package rewrite_test

import (
	"bytes"
	"encoding/json"
	"maps"
	"net/url"
	"os"
	"path/filepath"
	"reflect"
	"testing"
	"unicode/utf8"

	"github.com/loggate/loggate/rewrite"
)

// decodeNumbers decodes b keeping numbers as written, so that a comparison
// does not hide a changed digit behind float64 rounding.
func decodeNumbers(t *testing.T, b []byte) any {
	t.Helper()
	dec := json.NewDecoder(bytes.NewReader(b))
	dec.UseNumber()
	var v any
	if err := dec.Decode(&v); err != nil {
		t.Fatalf("decode %q: %v", b, err)
	}
	return v
}

// addGoldenSeeds adds every golden Pretty input to the corpus.
func addGoldenSeeds(f *testing.F, add func(doc []byte)) {
	f.Helper()
	inputs, err := filepath.Glob(filepath.Join("testdata", "pretty", "*.json"))
	if err != nil {
		f.Fatal(err)
	}
	for _, in := range inputs {
		b, err := os.ReadFile(in)
		if err != nil {
			f.Fatal(err)
		}
		add(b)
	}
}

func FuzzPretty(f *testing.F) {
	addGoldenSeeds(f, func(doc []byte) { f.Add(doc) })
	for _, s := range []string{`{}`, `[]`, `[{"a":[{}]}]`, `"\ud800"`, `1e5`, `{"a":1,}`, `[`, "\"\xff\"", ` null `} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, in []byte) {
		isValid := json.Valid(in)
		if rewrite.Valid(in) != isValid {
			t.Fatalf("Valid(%q) = %v, encoding/json says %v", in, !isValid, isValid)
		}
		out := rewrite.Pretty(nil, in)
		if !isValid {
			if !bytes.Equal(out, in) {
				t.Fatalf("Pretty changed invalid input %q to %q", in, out)
			}
			return
		}
		if !json.Valid(out) {
			t.Fatalf("Pretty(%q) = %q, not valid JSON", in, out)
		}
		if !reflect.DeepEqual(decodeNumbers(t, in), decodeNumbers(t, out)) {
			t.Fatalf("Pretty(%q) = %q decodes differently", in, out)
		}
		if again := rewrite.Pretty(nil, out); !bytes.Equal(again, out) {
			t.Fatalf("Pretty is not idempotent on %q:\n%s\n%s", in, out, again)
		}
	})
}

func FuzzRenameField(f *testing.F) {
	addGoldenSeeds(f, func(doc []byte) {
		f.Add(doc, "", "id", "_id")
		f.Add(doc, "streams.#.outputs.#", "id", "_id")
	})
	f.Add([]byte(`{"tokens":[{"id":1,"_id":0},{"id":2}]}`), "tokens.#", "id", "_id")
	f.Add([]byte(`{"a":{"\u0069d":1}}`), "a", "id", "")
	f.Add([]byte(`[[{"x":1}],[{"x":2}]]`), "#.#", "x", "y")
	f.Add([]byte(`{"a.b":{"x":1}}`), `a\.b`, "x", "x")
	f.Add([]byte(`{"x":1`), "", "x", "y")
	f.Fuzz(func(t *testing.T, doc []byte, path, from, to string) {
		orig := bytes.Clone(doc)
		out, err := rewrite.RenameField(doc, path, from, to)
		if !bytes.Equal(doc, orig) {
			t.Fatalf("input modified: %q became %q", orig, doc)
		}
		if err != nil {
			return
		}
		if !json.Valid(out) {
			t.Fatalf("RenameField(%q, %q, %q, %q) = %q, not valid JSON", doc, path, from, to, out)
		}
		// At the root the effect is easy to state on decoded maps: to takes
		// from's value, every other member stays. Invalid UTF-8 decodes to
		// U+FFFD and would blur which key is which, so it is left out.
		if path != "" || !utf8.Valid(doc) || !utf8.ValidString(from) || !utf8.ValidString(to) {
			return
		}
		before, ok := decodeNumbers(t, doc).(map[string]any)
		if !ok {
			return
		}
		want := maps.Clone(before)
		if v, has := before[from]; has && from != to {
			delete(want, from)
			want[to] = v
		}
		if got := decodeNumbers(t, out); !reflect.DeepEqual(got, want) {
			t.Fatalf("RenameField(%q, %q, %q) = %q, want members %v", doc, from, to, out, want)
		}
	})
}

func FuzzTemplateMatch(f *testing.F) {
	f.Add("/users/{username}/tokens/{token}", "/users/GM/tokens/icinga")
	f.Add("/users/{username}/tokens", "/users/GM/tokens/")
	f.Add("/users/{username}", "/users/a%2Fb%20c")
	f.Add("/users/{username}", "/users/%zz")
	f.Add("/", "/")
	f.Add("/system/ldap/settings", "/system/ldap/settings/")
	f.Fuzz(func(t *testing.T, pattern, path string) {
		tmpl, err := rewrite.ParseTemplate(pattern)
		if err != nil {
			return
		}
		vals, ok := tmpl.Match(path, nil)
		if !ok {
			if len(vals) != 0 {
				t.Fatalf("miss returned values %q", vals)
			}
			return
		}
		if len(vals) != len(tmpl.Names()) {
			t.Fatalf("Match(%q) on %q captured %q for names %q", path, pattern, vals, tmpl.Names())
		}
		raw := make([]string, len(vals))
		for i, v := range vals {
			if raw[i], err = url.PathUnescape(v); err != nil {
				raw[i] = v // not a valid escape: Expand escapes the text as is
			}
		}
		expanded := tmpl.Expand(raw...)
		again, ok := tmpl.Match(expanded, nil)
		if !ok {
			t.Fatalf("Expand(%q) = %q does not match %q", raw, expanded, pattern)
		}
		for i, v := range again {
			if u, err := url.PathUnescape(v); err != nil || u != raw[i] {
				t.Fatalf("re-match of %q captured %q, want %q", expanded, again, raw)
			}
		}
	})
}

// FuzzDeleteSetField holds DeleteField and SetField to the same promises as
// FuzzRenameField; the comma handling of deletion is the part most likely to
// break.
func FuzzDeleteSetField(f *testing.F) {
	addGoldenSeeds(f, func(doc []byte) {
		f.Add(doc, "", "id", []byte(`1`))
		f.Add(doc, "streams.#", "rules", []byte(`[]`))
	})
	f.Add([]byte(`{"x":1,"a":2,"x":3,"x":4}`), "", "x", []byte(`{"v":null}`))
	f.Add([]byte(`[{"x":1},{},{"b":2, "x":0 }]`), "#", "x", []byte(` "s" `))
	f.Add([]byte(`{ }`), "", "", []byte(`true`))
	f.Fuzz(func(t *testing.T, doc []byte, path, field string, value []byte) {
		orig := bytes.Clone(doc)
		deleted, delErr := rewrite.DeleteField(doc, path, field)
		set, setErr := rewrite.SetField(doc, path, field, value)
		if !bytes.Equal(doc, orig) {
			t.Fatalf("input modified: %q became %q", orig, doc)
		}
		if delErr == nil && !json.Valid(deleted) {
			t.Fatalf("DeleteField(%q, %q, %q) = %q, not valid JSON", doc, path, field, deleted)
		}
		if setErr == nil && !json.Valid(set) {
			t.Fatalf("SetField(%q, %q, %q, %q) = %q, not valid JSON", doc, path, field, value, set)
		}
		if path != "" || delErr != nil || setErr != nil || !utf8.Valid(doc) || !utf8.ValidString(field) || !utf8.Valid(value) {
			return
		}
		before, ok := decodeNumbers(t, doc).(map[string]any)
		if !ok {
			return
		}
		want := maps.Clone(before)
		delete(want, field)
		if got := decodeNumbers(t, deleted); !reflect.DeepEqual(got, want) {
			t.Fatalf("DeleteField(%q, %q) = %q, want members %v", doc, field, deleted, want)
		}
		want[field] = decodeNumbers(t, value)
		if got := decodeNumbers(t, set); !reflect.DeepEqual(got, want) {
			t.Fatalf("SetField(%q, %q, %q) = %q, want members %v", doc, field, value, set, want)
		}
	})
}
