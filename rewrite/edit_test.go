package rewrite_test

import (
	"bytes"
	"errors"
	"testing"

	"github.com/loggate/loggate/rewrite"
)

// editCase is one row of the field edit tables. want is the exact output:
// edits splice bytes, so everything they do not touch keeps its spacing.
type editCase struct {
	name, doc, path, want string
}

// runEdits runs each case through edit and checks the output and that the
// input was left alone.
func runEdits(t *testing.T, tests []editCase, edit func(doc []byte, path string) ([]byte, error)) {
	t.Helper()
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			doc := []byte(tt.doc)
			got, err := edit(doc, tt.path)
			if err != nil {
				t.Fatalf("error: %v", err)
			}
			if string(got) != tt.want {
				t.Errorf("path %q on %s\n got %s\nwant %s", tt.path, tt.doc, got, tt.want)
			}
			if string(doc) != tt.doc {
				t.Errorf("input modified: %s", doc)
			}
		})
	}
}

func TestRenameField(t *testing.T) {
	runEdits(t, []editCase{
		{"root", `{"id":"x","title":"t"}`, "", `{"_id":"x","title":"t"}`},
		{"keeps raw value and spacing", `{ "a" : 1, "id" : {"n": [1, 2]} }`, "", `{ "a" : 1, "_id" : {"n": [1, 2]} }`},
		{"single object at key", `{"outputs":{"id":1},"id":2}`, "outputs", `{"outputs":{"_id":1},"id":2}`},
		{"every element", `{"tokens":[{"id":1},{"name":"n"},{"id":3}]}`, "tokens.#", `{"tokens":[{"_id":1},{"name":"n"},{"_id":3}]}`},
		{"nested arrays", `{"streams":[{"id":"s1","outputs":[{"id":"o1"},{"id":"o2"}]},{"outputs":[]},{"outputs":[{"id":"o3"}]}]}`,
			"streams.#.outputs.#", `{"streams":[{"id":"s1","outputs":[{"_id":"o1"},{"_id":"o2"}]},{"outputs":[]},{"outputs":[{"_id":"o3"}]}]}`},
		{"array index", `{"a":[{"id":0},{"id":1}]}`, "a.1", `{"a":[{"id":0},{"_id":1}]}`},
		{"root array", `[{"id":1},2,{"id":3}]`, "#", `[{"_id":1},2,{"_id":3}]`},
		{"existing target dropped, first", `{"_id":"old","id":"new","x":1}`, "", `{"_id":"new","x":1}`},
		{"existing target dropped after earlier edits", `{"t":[{"id":1},{"_id":0,"id":2},{"id":3}]}`, "t.#", `{"t":[{"_id":1},{"_id":2},{"_id":3}]}`},
		{"existing target dropped, last", `{"id":"new","x":1,"_id":"old"}`, "", `{"_id":"new","x":1}`},
		{"escaped key in document", `{"\u0069d":1}`, "", `{"_id":1}`},
		{"escaped path segment", `{"a.b":{"id":1},"a":{"b":{"id":2}}}`, `a\.b`, `{"a.b":{"_id":1},"a":{"b":{"id":2}}}`},
		{"first of duplicate path keys", `{"o":{"id":1},"o":{"id":2}}`, "o", `{"o":{"_id":1},"o":{"id":2}}`},
	}, func(doc []byte, path string) ([]byte, error) {
		return rewrite.RenameField(doc, path, "id", "_id")
	})
	runEdits(t, []editCase{
		{"quotes new name", `{"a":1}`, "", `{"say \"hi\"\n":1}`},
	}, func(doc []byte, path string) ([]byte, error) {
		return rewrite.RenameField(doc, path, "a", "say \"hi\"\n")
	})
}

func TestDeleteField(t *testing.T) {
	runEdits(t, []editCase{
		{"only member", `{"x":1}`, "", `{}`},
		{"first", `{"x":1,"a":2}`, "", `{"a":2}`},
		{"middle", `{"a":1, "x":2, "b":3}`, "", `{"a":1, "b":3}`},
		{"last", `{"a":1 , "x":2 }`, "", `{"a":1 }`},
		{"duplicates", `{"x":1,"a":2,"x":3,"x":4}`, "", `{"a":2}`},
		{"all duplicates", `{"x":1,"x":2}`, "", `{}`},
		{"every element", `{"users":[{"x":1,"n":"a"},{"n":"b"},{"n":"c","x":[{"x":0}]}]}`, "users.#", `{"users":[{"n":"a"},{"n":"b"},{"n":"c"}]}`},
		{"only the addressed object", `{"a":{"x":1},"x":{"x":2}}`, "a", `{"a":{},"x":{"x":2}}`},
	}, func(doc []byte, path string) ([]byte, error) {
		return rewrite.DeleteField(doc, path, "x")
	})
}

func TestSetField(t *testing.T) {
	runEdits(t, []editCase{
		{"replace", `{"a":1,"x":"old"}`, "", `{"a":1,"x":{"v":[true]}}`},
		{"append", `{"a":1}`, "", `{"a":1,"x":{"v":[true]}}`},
		{"empty object", `{ }`, "", `{"x":{"v":[true]} }`},
		{"every element", `[{"x":0},{},{"b":2}]`, "#", `[{"x":{"v":[true]}},{"x":{"v":[true]}},{"b":2,"x":{"v":[true]}}]`},
		{"non-objects skipped", `[1,"s",null,[{}]]`, "#", `[1,"s",null,[{}]]`},
	}, func(doc []byte, path string) ([]byte, error) {
		return rewrite.SetField(doc, path, "x", []byte(` {"v":[true]} `))
	})
}

func TestEditsNoMatch(t *testing.T) {
	doc := []byte(`{"streams":[{"id":"s","outputs":[{"title":"t"}]}],"total":1,"s":"x"}`)
	one := []byte(`1`)
	edits := map[string]func() ([]byte, error){
		"rename absent field":       func() ([]byte, error) { return rewrite.RenameField(doc, "streams.#.outputs.#", "id", "_id") },
		"rename to itself":          func() ([]byte, error) { return rewrite.RenameField(doc, "streams.#", "id", "id") },
		"rename on missing path":    func() ([]byte, error) { return rewrite.RenameField(doc, "missing.#", "id", "_id") },
		"# on an object":            func() ([]byte, error) { return rewrite.RenameField(doc, "#", "id", "_id") },
		"index out of range":        func() ([]byte, error) { return rewrite.RenameField(doc, "streams.5", "id", "_id") },
		"key on an array":           func() ([]byte, error) { return rewrite.RenameField(doc, "streams.id", "id", "_id") },
		"path through a scalar":     func() ([]byte, error) { return rewrite.RenameField(doc, "total.x", "id", "_id") },
		"addressed value is string": func() ([]byte, error) { return rewrite.RenameField(doc, "s", "id", "_id") },
		"delete absent field":       func() ([]byte, error) { return rewrite.DeleteField(doc, "streams.#", "x") },
		"set on missing path":       func() ([]byte, error) { return rewrite.SetField(doc, "nope", "x", one) },
	}
	for name, edit := range edits {
		t.Run(name, func(t *testing.T) {
			got, err := edit()
			if err != nil {
				t.Fatal(err)
			}
			if &got[0] != &doc[0] || len(got) != len(doc) {
				t.Errorf("got %s, want the input slice itself", got)
			}
			if n := testing.AllocsPerRun(50, func() { _, _ = edit() }); n != 0 {
				t.Errorf("allocates %v times, want 0", n)
			}
		})
	}
}

func TestEditErrors(t *testing.T) {
	valid := []byte(`{"a":[{"id":1}]}`)
	tests := []struct {
		name string
		edit func() ([]byte, error)
		want error
	}{
		{"rename invalid doc", func() ([]byte, error) { return rewrite.RenameField([]byte(`{"id":1`), "", "id", "_id") }, rewrite.ErrInvalidJSON},
		{"rename empty doc", func() ([]byte, error) { return rewrite.RenameField(nil, "", "id", "_id") }, rewrite.ErrInvalidJSON},
		{"rename trailing garbage", func() ([]byte, error) { return rewrite.RenameField([]byte(`{} x`), "", "id", "_id") }, rewrite.ErrInvalidJSON},
		{"delete invalid doc", func() ([]byte, error) { return rewrite.DeleteField([]byte(`{"id":01}`), "", "id") }, rewrite.ErrInvalidJSON},
		{"set invalid doc", func() ([]byte, error) { return rewrite.SetField([]byte(`[`), "", "id", []byte(`1`)) }, rewrite.ErrInvalidJSON},
		{"set invalid value", func() ([]byte, error) { return rewrite.SetField(valid, "", "id", []byte(`{`)) }, rewrite.ErrInvalidJSON},
		{"set empty value", func() ([]byte, error) { return rewrite.SetField(valid, "", "id", nil) }, rewrite.ErrInvalidJSON},
		{"wildcard", func() ([]byte, error) { return rewrite.RenameField(valid, "a.*", "id", "_id") }, rewrite.ErrInvalidPath},
		{"question mark", func() ([]byte, error) { return rewrite.RenameField(valid, "?", "id", "_id") }, rewrite.ErrInvalidPath},
		{"query", func() ([]byte, error) { return rewrite.DeleteField(valid, `a.#(id==1)`, "id") }, rewrite.ErrInvalidPath},
		{"pipe", func() ([]byte, error) { return rewrite.DeleteField(valid, "a|b", "id") }, rewrite.ErrInvalidPath},
		{"modifier", func() ([]byte, error) { return rewrite.DeleteField(valid, "@reverse", "id") }, rewrite.ErrInvalidPath},
		{"empty segment", func() ([]byte, error) { return rewrite.SetField(valid, "a..b", "id", []byte(`1`)) }, rewrite.ErrInvalidPath},
		{"trailing dot", func() ([]byte, error) { return rewrite.SetField(valid, "a.", "id", []byte(`1`)) }, rewrite.ErrInvalidPath},
		{"trailing backslash", func() ([]byte, error) { return rewrite.SetField(valid, `a\`, "id", []byte(`1`)) }, rewrite.ErrInvalidPath},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := tt.edit()
			if !errors.Is(err, tt.want) {
				t.Fatalf("error = %v, want %v", err, tt.want)
			}
			if got != nil {
				t.Errorf("got %s with an error, want nil", got)
			}
		})
	}
	if !bytes.Equal(valid, []byte(`{"a":[{"id":1}]}`)) {
		t.Errorf("input modified: %s", valid)
	}
}

// Edits copy <, > and & as they are and quote new names as Jackson does,
// without \u003c escapes.
func TestEditsKeepHTMLCharacters(t *testing.T) {
	doc := []byte(`{"q":"a<b>&c","n":1}`)
	got, err := rewrite.RenameField(doc, "", "n", "<n&>")
	if err != nil || string(got) != `{"q":"a<b>&c","<n&>":1}` {
		t.Errorf("rename: %s, %v", got, err)
	}
	if got, err = rewrite.SetField(doc, "", "<x>", []byte(`"&"`)); err != nil || string(got) != `{"q":"a<b>&c","n":1,"<x>":"&"}` {
		t.Errorf("set: %s, %v", got, err)
	}
}

// DeleteFields is DeleteField one member after the other, and refuses
// what DeleteField refuses.
func TestDeleteFields(t *testing.T) {
	doc := []byte(`{"users":[{"id":"1","x":1,"n":"a"},{"n":"b","y":2}],"x":3,"total":2}`)
	members := []rewrite.Member{{Path: "users.#", Field: "x"}, {Path: "", Field: "x"}, {Path: "users.#", Field: "y"}}
	want := doc
	for _, m := range members {
		var err error
		if want, err = rewrite.DeleteField(want, m.Path, m.Field); err != nil {
			t.Fatal(err)
		}
	}
	got, err := rewrite.DeleteFields(doc, members...)
	if err != nil || string(got) != string(want) || string(got) != `{"users":[{"id":"1","n":"a"},{"n":"b"}],"total":2}` {
		t.Errorf("DeleteFields = %s, %v; want %s", got, err, want)
	}
	if _, err := rewrite.DeleteFields([]byte(`{"x":`), members...); !errors.Is(err, rewrite.ErrInvalidJSON) {
		t.Errorf("invalid document: %v", err)
	}
	if _, err := rewrite.DeleteFields(doc, rewrite.Member{Path: "users..x", Field: "x"}); err == nil {
		t.Error("an invalid path was taken")
	}
	if got, err := rewrite.DeleteFields(doc); err != nil || string(got) != string(doc) {
		t.Errorf("no members: %s, %v", got, err)
	}
}
