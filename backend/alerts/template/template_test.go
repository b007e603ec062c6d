package template

import (
	"encoding/json"
	"errors"
	"slices"
	"strconv"
	"strings"
	"testing"
)

func TestExecute(t *testing.T) {
	var model map[string]any
	_ = json.Unmarshal([]byte(`{"event_definition_title":"Errors","event":{"message":"too many","priority":2,"alert":true,
		"source_streams":["a","b"],"fields":{"z":"1","a":"2"},"key":""},"backlog":[{"message":"m1"},{"message":"m2"}],"empty":[]}`), &model)
	tests := []struct{ name, src, want string }{
		{"value", "${event_definition_title}: ${event.message}", "Errors: too many"},
		{"number and bool", "${event.priority} ${event.alert}", "2 true"},
		{"list", "${event.source_streams}", "[a, b]"},
		{"absent", "[${event.nothing}][${nothing.at.all}]", "[][]"},
		{"default", `${event.key!none} ${event.missing!"n/a"}`, "none n/a"},
		{"renderer ignored", "${event.message;upper}", "too many"},
		{"map entries in key order", "${foreach event.fields f}${f.key}=${f.value};${end}", "a=2;z=1;"},
		{"list with separator", "${foreach backlog m , }${m.message}${end}", "m1, m2"},
		{"if", "${if backlog}B${end}${if empty}E${else}no E${end}${if !empty}!E${end}", "Bno E!E"},
		{"outer names inside foreach", "${foreach backlog m}${event_definition_title}${end}", "ErrorsErrors"},
		{"escape", `\${event.message} costs $5`, "${event.message} costs $5"},
		{"unclosed is text", "${event.message} and ${event", "too many and ${event"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			tpl, err := Parse(tt.src)
			if err != nil {
				t.Fatal(err)
			}
			if got, err := tpl.Execute(model); err != nil || got != tt.want {
				t.Errorf("got %q, %v; want %q", got, err, tt.want)
			}
		})
	}
}

func TestParseErrors(t *testing.T) {
	for _, src := range []string{"${if a}", "${end}", "${foreach a}${end}", "${}", "${if a}${else}", "${if }x${end}"} {
		if _, err := Parse(src); err == nil {
			t.Errorf("%q parsed", src)
		}
	}
}

func FuzzTemplate(f *testing.F) {
	for _, s := range []string{"${a}", "${foreach a b , }${b}${end}", "${if !a}x${else}y${end}", `\${a}`, "$$", "${a!b;c}"} {
		f.Add(s)
	}
	model := map[string]any{"a": []any{"x", map[string]any{"k": 1.5}}, "b": true}
	f.Fuzz(func(t *testing.T, src string) {
		tpl, err := Parse(src)
		if err != nil {
			return
		}
		_, _ = tpl.Execute(model)
	})
}

// TestExecuteBounded: nested loops multiply. Twelve foreach over a message
// of ten fields are 10¹² renderings: one template, a field of an event
// definition or an email, kept the scheduler busy for hours. A rendering
// stops past MaxSteps or MaxOutput with ErrTooBig.
func TestExecuteBounded(t *testing.T) {
	source := map[string]any{}
	for _, k := range []string{"a", "b", "c", "d", "e", "f", "g", "h", "i", "j"} {
		source[k] = strings.Repeat(k, 100)
	}
	model := map[string]any{"source": source}
	for name, src := range map[string]string{
		"steps":  strings.Repeat("${foreach source f}", 12) + "x" + strings.Repeat("${end}", 12),
		"output": strings.Repeat("${foreach source f}", 5) + "${f}" + strings.Repeat("${end}", 5), // 10⁵ × 100 bytes
	} {
		tpl, err := Parse(src)
		if err != nil {
			t.Fatal(err)
		}
		if got, err := tpl.Execute(model); !errors.Is(err, ErrTooBig) || got != "" {
			t.Errorf("%s: %d bytes, %v; want ErrTooBig", name, len(got), err)
		}
	}
	// Within the bounds, nesting renders.
	tpl, _ := Parse(strings.Repeat("${foreach source f}", 3) + "x" + strings.Repeat("${end}", 3))
	if got, err := tpl.Execute(model); err != nil || len(got) != 1000 {
		t.Errorf("three loops: %d bytes, %v; want 1000", len(got), err)
	}
}

func TestRender(t *testing.T) {
	tpl, err := Parse("${if user}${user}${else}-${end} ${foreach tags t , }<${t}>${end} ${n} ${missing!none}")
	if err != nil {
		t.Fatal(err)
	}
	if got, want := tpl.Variables(), []string{"user", "tags", "n", "missing"}; !slices.Equal(got, want) {
		t.Errorf("Variables = %q, want %q", got, want)
	}
	model := map[string]any{"tags": []any{"a", "b"}, "n": 2.0}
	// A model that knows its doubles prints them as Java does.
	javaDouble := func(v any) string {
		if f, ok := v.(float64); ok {
			return strconv.FormatFloat(f, 'f', 1, 64)
		}
		return Format(v)
	}
	for _, c := range []struct {
		o    RenderOptions
		want string
		err  error
	}{
		{RenderOptions{}, "- <a>, <b> 2 none", nil},
		{RenderOptions{Format: javaDouble}, "- <a>, <b> 2.0 none", nil},
		{RenderOptions{MaxOutput: 6}, "- <a>,", ErrTooBig},
		{RenderOptions{MaxSteps: 3}, "- ", ErrTooBig},
	} {
		got, err := tpl.Render(model, c.o)
		if got != c.want || !errors.Is(err, c.err) {
			t.Errorf("Render(%+v) = %q, %v; want %q, %v", c.o, got, err, c.want, c.err)
		}
	}
	// A cut never leaves half a character.
	tpl, _ = Parse("${s}")
	if got, err := tpl.Render(map[string]any{"s": "aé"}, RenderOptions{MaxOutput: 2}); got != "a" || err == nil {
		t.Errorf("cut in a character: %q, %v", got, err)
	}
}
