package lang

import (
	"encoding/json"
	"fmt"
	"iter"
	"maps"
	"net/netip"
	"net/url"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/loggate/loggate/backend/logs/indexsets"
	"github.com/loggate/loggate/backend/logs/messages"
)

// Period is Joda's Period: an amount of each field, not a fixed duration
// (a month is added as a calendar month), as index sets' rotation periods
// are.
type Period = indexsets.Period

// plusPeriod adds two periods field by field (subtracts with sign -1).
func plusPeriod(p, q Period, sign int) Period {
	return Period{Years: p.Years + sign*q.Years, Months: p.Months + sign*q.Months, Weeks: p.Weeks + sign*q.Weeks,
		Days: p.Days + sign*q.Days, Hours: p.Hours + sign*q.Hours, Minutes: p.Minutes + sign*q.Minutes,
		Seconds: p.Seconds + sign*q.Seconds, Millis: p.Millis + sign*q.Millis}
}

// JSONNode is a parsed JSON value (Jackson's JsonNode): V is what
// encoding/json decodes into any, numbers kept as json.Number.
type JSONNode struct{ V any }

func (j JSONNode) String() string {
	b, _ := json.Marshal(j.V)
	return string(b)
}

// MatchResult is what regex() and grok() return: the captures, read as a
// map, and whether the pattern matched, read as the property .matches.
//
// A function with distinct names for its captures gives them as a list
// (NewMatchList), which a message's rules mostly read one by one or hand
// to set_fields whole: the map is built only when a rule needs one.
// A result belongs to the rule evaluation that made it and is not safe
// for concurrent use.
type MatchResult struct {
	Matches bool
	groups  map[string]any
	caps    []capture
}

type capture struct {
	name  string
	value any
}

// NewMatchResult returns a result with its captures as a map.
func NewMatchResult(matches bool, groups map[string]any) *MatchResult {
	return &MatchResult{Matches: matches, groups: groups}
}

// NewMatchList returns a result for up to n captures, given with Add.
// A result of up to 8 captures takes one allocation, of about its size.
func NewMatchList(matches bool, n int) *MatchResult {
	switch {
	case n <= 2:
		st := new(struct {
			r MatchResult
			c [2]capture
		})
		return st.r.init(matches, st.c[:])
	case n <= 4:
		st := new(struct {
			r MatchResult
			c [4]capture
		})
		return st.r.init(matches, st.c[:])
	case n <= 8:
		st := new(struct {
			r MatchResult
			c [8]capture
		})
		return st.r.init(matches, st.c[:])
	}
	return new(MatchResult).init(matches, make([]capture, n))
}

func (r *MatchResult) init(matches bool, caps []capture) *MatchResult {
	r.Matches, r.caps = matches, caps[:0]
	return r
}

// Add adds a capture to a result of NewMatchList; its name must not be
// taken.
func (r *MatchResult) Add(name string, v any) {
	r.caps = append(r.caps, capture{name, v})
}

// Get returns the capture with that name, nil when there is none.
func (r *MatchResult) Get(name string) any {
	if r.groups != nil {
		return r.groups[name]
	}
	for _, c := range r.caps {
		if c.name == name {
			return c.value
		}
	}
	return nil
}

// Sorted yields the captures in name order. grok() gives its captures in
// that order already, and regex() up to ten groups ("0" … "9"): those are
// yielded as they are.
func (r *MatchResult) Sorted() iter.Seq2[string, any] {
	return func(yield func(string, any) bool) {
		if r.groups == nil && slices.IsSortedFunc(r.caps, byName) {
			for _, c := range r.caps {
				if !yield(c.name, c.value) {
					return
				}
			}
			return
		}
		m := r.Map()
		var buf [16]string
		keys := slices.AppendSeq(buf[:0], maps.Keys(m))
		slices.Sort(keys)
		for _, k := range keys {
			if !yield(k, m[k]) {
				return
			}
		}
	}
}

func byName(a, b capture) int { return strings.Compare(a.name, b.name) }

// Map returns the captures as a map, built on first use; callers must
// not change it.
func (r *MatchResult) Map() map[string]any {
	if r.groups == nil {
		r.groups = make(map[string]any, len(r.caps))
		for _, c := range r.caps {
			r.groups[c.name] = c.value
		}
	}
	return r.groups
}

// AsMap returns the map form of a value that is one (a Map, a regex
// match, a JSON object), and whether it is.
func AsMap(v any) (map[string]any, bool) {
	switch x := v.(type) {
	case map[string]any:
		return x, true
	case *MatchResult:
		return x.Map(), true
	case JSONNode:
		m, ok := x.V.(map[string]any)
		if !ok {
			return nil, false
		}
		out := make(map[string]any, len(m))
		for k, e := range m {
			out[k] = FromJSON(e)
		}
		return out, true
	}
	return nil, false
}

// AsList returns the list form of a value that is one.
func AsList(v any) ([]any, bool) {
	switch x := v.(type) {
	case []any:
		return x, true
	case []string:
		out := make([]any, len(x))
		for i, s := range x {
			out[i] = s
		}
		return out, true
	case JSONNode:
		a, ok := x.V.([]any)
		if !ok {
			return nil, false
		}
		out := make([]any, len(a))
		for i, e := range a {
			out[i] = FromJSON(e)
		}
		return out, true
	}
	return nil, false
}

// FromJSON turns a decoded JSON value into the language's values: scalars
// become strings, longs, doubles and booleans; objects and arrays stay
// JSON nodes, as Jackson's tree keeps them.
func FromJSON(v any) any {
	switch x := v.(type) {
	case json.Number:
		if n, err := x.Int64(); err == nil {
			return n
		}
		f, _ := x.Float64()
		return f
	case float64:
		if x == float64(int64(x)) && !strings.ContainsAny(strconv.FormatFloat(x, 'g', -1, 64), ".e") {
			return int64(x)
		}
		return x
	case map[string]any, []any:
		return JSONNode{V: x}
	}
	return v
}

// ToString is Java's String.valueOf for the values that have a text form,
// and whether v has one.
func ToString(v any) (string, bool) {
	switch x := v.(type) {
	case string:
		return x, true
	case int64:
		return strconv.FormatInt(x, 10), true
	case int:
		return strconv.Itoa(x), true
	case float64:
		return messages.JavaDouble(x), true
	case bool:
		return strconv.FormatBool(x), true
	case time.Time:
		return FormatTime(x), true
	case netip.Addr:
		return x.String(), true
	case Period:
		return x.String(), true
	case time.Duration:
		return "PT" + strconv.FormatFloat(x.Seconds(), 'f', -1, 64) + "S", true
	case JSONNode:
		return x.String(), true
	case *url.URL:
		return x.String(), true
	case []any, map[string]any:
		return javaString(x), true
	case *MatchResult:
		return javaString(x.Map()), true
	case *Message:
		return fmt.Sprintf("source: %s | message: %s { %s }", fieldText(x, "source"), fieldText(x, "message"), x.ID), true
	}
	return "", false
}

func fieldText(m *Message, key string) string {
	s, _ := ToString(m.Field(key))
	return s
}

// javaString prints lists and maps as Java's collections print themselves.
func javaString(v any) string {
	switch x := v.(type) {
	case []any:
		parts := make([]string, len(x))
		for i, e := range x {
			parts[i] = javaString(e)
		}
		return "[" + strings.Join(parts, ", ") + "]"
	case map[string]any:
		keys := SortedKeys(x)
		parts := make([]string, len(keys))
		for i, k := range keys {
			parts[i] = k + "=" + javaString(x[k])
		}
		return "{" + strings.Join(parts, ", ") + "}"
	case nil:
		return "null"
	}
	s, _ := ToString(v)
	return s
}

// FormatTime prints a time as Joda's DateTime.toString does, in its own
// zone: 2020-12-01T10:00:00.000Z or …+01:00.
func FormatTime(t time.Time) string {
	if _, off := t.Zone(); off == 0 {
		return t.Format("2006-01-02T15:04:05.000Z")
	}
	return t.Format("2006-01-02T15:04:05.000-07:00")
}

// SortedKeys returns a map's keys in order, for results that must not
// depend on map order.
func SortedKeys[V any](m map[string]V) []string { return slices.Sorted(maps.Keys(m)) }
