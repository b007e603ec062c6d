package functions

import (
	"encoding/json"
	"fmt"
	"strconv"
	"strings"

	"github.com/loggate/loggate/backend/logs/pipelines/lang"
)

func jsonFunctions() []*lang.Function {
	paths := req("paths", lang.TMap, "A map of field names to a list of JsonPath expressions, see http://goessner.net/articles/JsonPath/ for syntax")
	paths.Prepare = func(v any) (any, error) {
		m, ok := lang.AsMap(v)
		if !ok {
			return nil, errWrongType("paths", v)
		}
		out := make(map[string]jsonPath, len(m))
		for k, e := range m {
			s, ok := e.(string)
			if !ok {
				return nil, fmt.Errorf("path of %s is not a string", k)
			}
			p, err := parseJSONPath(s)
			if err != nil {
				return nil, err
			}
			out[k] = p
		}
		return out, nil
	}
	return []*lang.Function{
		fn("parse_json", lang.TJSON, "Parses a string as a JSON tree", func(_ *lang.Context, a lang.Args) (any, error) {
			dec := json.NewDecoder(strings.NewReader(a.String(0, "")))
			dec.UseNumber()
			var v any
			if err := dec.Decode(&v); err != nil {
				// Graylog logs and returns a missing node.
				return lang.JSONNode{}, nil
			}
			return lang.JSONNode{V: v}, nil
		}, req("value", lang.TString, "The string to parse as a JSON tree")),
		fn("select_jsonpath", lang.TMap, "Selects one or more named JSON Path expressions from a JSON tree", func(_ *lang.Context, a lang.Args) (any, error) {
			node, ok := a.Get(0).(lang.JSONNode)
			if !ok {
				return nil, errWrongType("json", a.Get(0))
			}
			ps, _ := a.Get(1).(map[string]jsonPath)
			out := make(map[string]any, len(ps))
			for name, p := range ps {
				out[name] = p.selectFrom(node.V)
			}
			return out, nil
		}, req("json", lang.TJSON, "A parsed JSON tree"), paths),
	}
}

// jsonPath is the subset of Jayway JsonPath rules use: $, .name, ['name'],
// [n], [*], .*; a path with a wildcard yields a list.
type jsonPath struct {
	steps []pathStep
	multi bool
}

type pathStep struct {
	name  string
	index int
	kind  byte // 'n' name, 'i' index, '*' wildcard
}

func parseJSONPath(s string) (jsonPath, error) {
	var p jsonPath
	rest := strings.TrimSpace(s)
	if !strings.HasPrefix(rest, "$") {
		return p, fmt.Errorf("invalid JsonPath %q: it must start with $", s)
	}
	rest = rest[1:]
	for rest != "" {
		switch {
		case strings.HasPrefix(rest, ".*"), strings.HasPrefix(rest, "[*]"):
			p.steps = append(p.steps, pathStep{kind: '*'})
			p.multi = true
			if rest[0] == '.' {
				rest = rest[2:]
			} else {
				rest = rest[3:]
			}
		case strings.HasPrefix(rest, ".."):
			return p, fmt.Errorf("invalid JsonPath %q: deep scan (..) is not supported", s)
		case rest[0] == '.':
			end := strings.IndexAny(rest[1:], ".[")
			if end < 0 {
				end = len(rest) - 1
			}
			name := rest[1 : end+1]
			if name == "" {
				return p, fmt.Errorf("invalid JsonPath %q", s)
			}
			p.steps = append(p.steps, pathStep{kind: 'n', name: name})
			rest = rest[end+1:]
		case rest[0] == '[':
			end := strings.IndexByte(rest, ']')
			if end < 0 {
				return p, fmt.Errorf("invalid JsonPath %q: missing ]", s)
			}
			inner := strings.TrimSpace(rest[1:end])
			rest = rest[end+1:]
			if len(inner) >= 2 && (inner[0] == '\'' || inner[0] == '"') && inner[len(inner)-1] == inner[0] {
				p.steps = append(p.steps, pathStep{kind: 'n', name: inner[1 : len(inner)-1]})
				continue
			}
			n, err := strconv.Atoi(inner)
			if err != nil {
				return p, fmt.Errorf("invalid JsonPath %q: unsupported selector [%s]", s, inner)
			}
			p.steps = append(p.steps, pathStep{kind: 'i', index: n})
		default:
			return p, fmt.Errorf("invalid JsonPath %q", s)
		}
	}
	return p, nil
}

func (p jsonPath) selectFrom(root any) any {
	cur := []any{root}
	for _, st := range p.steps {
		var next []any
		for _, v := range cur {
			switch x := v.(type) {
			case map[string]any:
				switch st.kind {
				case 'n':
					if e, ok := x[st.name]; ok {
						next = append(next, e)
					}
				case '*':
					for _, k := range lang.SortedKeys(x) {
						next = append(next, x[k])
					}
				}
			case []any:
				switch st.kind {
				case 'i':
					i := st.index
					if i < 0 {
						i += len(x)
					}
					if i >= 0 && i < len(x) {
						next = append(next, x[i])
					}
				case '*':
					next = append(next, x...)
				}
			}
		}
		cur = next
	}
	if p.multi {
		out := make([]any, len(cur))
		for i, v := range cur {
			out[i] = lang.FromJSON(v)
		}
		return out
	}
	if len(cur) == 0 {
		return nil
	}
	return lang.FromJSON(cur[0])
}
