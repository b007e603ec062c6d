package extractors

import (
	"bytes"
	"context"
	"fmt"
	"math"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"time"
	"unicode/utf8"

	"github.com/go-json-experiment/json/jsontext"

	"github.com/loggate/loggate/backend/logs/grok"
	"github.com/loggate/loggate/backend/logs/javaregex"
	"github.com/loggate/loggate/backend/logs/lookup"
	"github.com/loggate/loggate/backend/logs/messages"
	"github.com/loggate/loggate/router/api"
)

// result is one value an extractor returns: key is "" for the target
// field; begin and end are the byte range of the source it came from, -1
// when the extractor reports none (then it never cuts).
type result struct {
	key        string
	value      any
	begin, end int
}

// runFunc extracts from a source value; nil means nothing was found.
type runFunc func(src string) ([]result, error)

// Grok compiles grok expressions with the stored patterns; *grok.Service
// satisfies it.
type Grok interface {
	Compile(pattern string) (*grok.Matcher, error)
	CompileNamedOnly(pattern string) (*grok.Matcher, error)
}

var _ Grok = (*grok.Service)(nil)

// LookupTables are the tables of the lookup_table extractor and converter;
// *lookup.Service satisfies it.
type LookupTables interface {
	Exists(ctx context.Context, name string) bool
	Lookup(ctx context.Context, table string, key any) (lookup.Result, error)
}

// deps are what extractors and converters are built with.
type deps struct {
	grok   Grok
	tables LookupTables
	now    func() time.Time
	// strict, when a request is checked, refuses lookup tables that do
	// not exist; a stored extractor is built whatever its table, which
	// may come later (from another node) and is looked up by name.
	strict bool
}

// lookupTimeout bounds one lookup of an extractor or converter.
const lookupTimeout = 30 * time.Second

// lookupIn is one lookup of an extractor, a converter or the lookup
// table tester, bounded by lookupTimeout.
func lookupIn(ctx context.Context, tables LookupTables, table, key string) (lookup.Result, error) {
	ctx, cancel := context.WithTimeout(ctx, lookupTimeout)
	defer cancel()
	return tables.Lookup(ctx, table, key)
}

// lookupSingle is a table's single value for key, if it has one.
func lookupSingle(tables LookupTables, table, key string) (any, bool) {
	r, err := lookupIn(context.Background(), tables, table, key)
	if err != nil || r.Single == nil {
		return nil, false
	}
	return r.Single, true
}

// lookupTable checks a lookup table name of an extractor or converter.
func (d deps) lookupTable(name string) error {
	if d.tables == nil || (d.strict && !d.tables.Exists(context.Background(), name)) {
		return api.Errorf(api.Internal, "Configured lookup table <%s> doesn't exist", name)
	}
	return nil
}

// configError is Graylog's ConfigurationException: a 400.
func configError(format string, args ...any) error {
	return api.Errorf(api.Invalid, format, args...)
}

// compileJava compiles a Java regular expression with DOTALL, as Graylog's
// extractors do. Go's regexp is RE2, linear in time: what it cannot
// express (lookaround, backreferences, possessive quantifiers, atomic
// groups) is refused with a 400 naming the problem.
func compileJava(pattern string) (*regexp.Regexp, error) {
	if err := javaregex.CheckSize(pattern); err != nil {
		return nil, api.Errorf(api.Invalid, "Invalid regular expression [%s]: %s", clip(pattern, 200), err.Error())
	}
	re, err := regexp.Compile("(?s)" + pattern)
	if err != nil {
		return nil, api.Errorf(api.Invalid, "Invalid regular expression [%s]: %s. loggate's regular expressions are RE2 (Go's regexp): lookaround, backreferences, possessive quantifiers and atomic groups are not supported", pattern, strings.TrimPrefix(err.Error(), "error parsing regexp: "))
	}
	return re, nil
}

// clip shortens a pattern quoted in an error.
func clip(s string, n int) string {
	if len(s) <= n {
		return s
	}
	return strings.ToValidUTF8(s[:n], "") + "…"
}

// newRunner builds the extraction of one extractor type.
func newRunner(typ string, c config, d deps) (runFunc, error) {
	switch typ {
	case typeRegex:
		pattern, _ := c.str("regex_value")
		if pattern == "" {
			return nil, configError("Missing regex configuration field: regex_value")
		}
		re, err := compileJava(pattern)
		if err != nil {
			return nil, err
		}
		return func(src string) ([]result, error) {
			loc := re.FindStringSubmatchIndex(src)
			if len(loc) < 4 || loc[2] < 0 {
				return nil, nil
			}
			return []result{{value: src[loc[2]:loc[3]], begin: loc[2], end: loc[3]}}, nil
		}, nil
	case typeRegexReplace:
		pattern, _ := c.str("regex")
		if pattern == "" {
			return nil, configError("Missing regex configuration field: regex")
		}
		re, err := compileJava(pattern)
		if err != nil {
			return nil, err
		}
		all, err := c.boolean("replace_all", false)
		if err != nil {
			return nil, configError("%s", err.Error())
		}
		tmpl, terr := javaregex.Replacement(c.strOr("replacement", "$1"), re)
		return func(src string) ([]result, error) {
			loc := re.FindStringSubmatchIndex(src)
			if loc == nil {
				return nil, nil
			}
			if terr != nil {
				return nil, fmt.Errorf("error while trying to replace string: %w", terr)
			}
			begin, end := -1, -1
			if len(loc) >= 4 {
				begin, end = loc[2], loc[3]
			}
			var out []byte
			last := 0
			for _, m := range re.FindAllStringSubmatchIndex(src, -1) {
				out = append(out, src[last:m[0]]...)
				out = re.ExpandString(out, tmpl, src, m)
				last = m[1]
				if !all {
					break
				}
			}
			out = append(out, src[last:]...)
			return []result{{value: string(out), begin: begin, end: end}}, nil
		}, nil
	case typeSubstring:
		begin, okB, fitsB := c.integer("begin_index")
		end, okE, fitsE := c.integer("end_index")
		if !okB || !okE {
			return nil, configError("Missing configuration field: begin_index and end_index must be integers")
		}
		if !fitsB || !fitsE {
			return nil, configError("Index positions cannot be casted to Integer.")
		}
		return func(src string) ([]result, error) {
			n := int64(utf8.RuneCountInString(src))
			if begin < 0 || end <= 0 || end <= begin || begin > n || end > n {
				return nil, nil
			}
			b, e := runeOffset(src, int(begin)), runeOffset(src, int(end))
			return []result{{value: src[b:e], begin: b, end: e}}, nil
		}, nil
	case typeSplitIndex:
		by, okBy := c.str("split_by")
		index, okIdx, _ := c.integer("index")
		if !okBy || by == "" || !okIdx {
			return nil, configError("Missing configuration field: split_by and index are required")
		}
		return func(src string) ([]result, error) {
			parts := javaSplit(src, by)
			if index < 1 || int(index) > len(parts) || parts[index-1] == "" {
				return nil, nil
			}
			b, e := cutIndices(src, by, int(index)-1)
			return []result{{value: parts[index-1], begin: b, end: e}}, nil
		}, nil
	case typeCopyInput:
		return func(src string) ([]result, error) {
			return []result{{value: src, begin: 0, end: len(src)}}, nil
		}, nil
	case typeGrok:
		pattern, _ := c.str("grok_pattern")
		if pattern == "" {
			return nil, configError("grok_pattern not set")
		}
		namedOnly, err := c.boolean("named_captures_only", false)
		if err != nil {
			return nil, api.Errorf(api.Internal, "java.lang.String cannot be cast to java.lang.Boolean")
		}
		compile := d.grok.Compile
		if namedOnly {
			compile = d.grok.CompileNamedOnly
		}
		m, err := compile(pattern)
		if err != nil {
			return nil, err
		}
		return func(src string) ([]result, error) {
			captures := m.Match(src)
			if len(captures) == 0 {
				return nil, nil
			}
			keys := make([]string, 0, len(captures))
			for k := range captures {
				keys = append(keys, k)
			}
			slices.Sort(keys)
			out := make([]result, 0, len(keys))
			for _, k := range keys {
				if captures[k] == nil || !finite(captures[k]) {
					// A float capture of "NaN" or "Infinity": a message
					// field cannot hold it (Elasticsearch refuses it, a
					// search answer cannot encode it).
					continue
				}
				out = append(out, result{key: k, value: scalar(captures[k]), begin: -1, end: -1})
			}
			return out, nil
		}, nil
	case typeJSON:
		j, err := newJSONExtractor(c)
		if err != nil {
			return nil, err
		}
		return j.run, nil
	case typeLookupTable:
		name, _ := c.str("lookup_table_name")
		if name == "" {
			return nil, configError("Missing configuration field: lookup_table_name")
		}
		if err := d.lookupTable(name); err != nil {
			return nil, err
		}
		tables := d.tables
		return func(src string) ([]result, error) {
			v, ok := lookupSingle(tables, name, src)
			if !ok {
				return nil, nil
			}
			return []result{{value: v, begin: -1, end: -1}}, nil
		}, nil
	}
	return nil, fmt.Errorf("extractor type %s has no runner", typ)
}

// scalar turns a grok capture into a message value.
func scalar(v any) any {
	switch x := v.(type) {
	case int:
		return int64(x)
	case int32:
		return int64(x)
	case float32:
		return float64(x)
	}
	return v
}

// finite reports whether v is not a NaN or infinite float.
func finite(v any) bool {
	switch x := v.(type) {
	case float64:
		return !math.IsNaN(x) && !math.IsInf(x, 0)
	case float32:
		return !math.IsNaN(float64(x)) && !math.IsInf(float64(x), 0)
	}
	return true
}

// runeOffset is the byte offset of the n-th character of s: Java indexes
// strings by character.
func runeOffset(s string, n int) int {
	for i := range s {
		if n == 0 {
			return i
		}
		n--
	}
	return len(s)
}

// cutIndices is SplitAndIndexExtractor.getCutIndices: the range of the
// index-th (0-based) part, found by the first character of the separator
// (a character, not a byte: the lead byte of a multi-byte separator would
// match other characters and cut one in half).
func cutIndices(s, by string, index int) (int, int) {
	target, _ := utf8.DecodeRuneInString(by)
	found := 0
	for i, r := range s {
		if r == target {
			found++
		}
		if found == index {
			_, w := utf8.DecodeRuneInString(s[i:])
			next := i + w
			begin := i
			if begin != 0 {
				begin = next
			}
			end := strings.IndexRune(s[next:], target)
			if end < 0 {
				end = len(s)
			} else {
				end += next
			}
			return min(begin, end), end
		}
	}
	return -1, -1
}

// jsonExtractor is JsonExtractor.
type jsonExtractor struct {
	flatten                          bool
	listSep, keySep, kvSep           string
	replaceWhitespace                bool
	whitespaceReplacement, keyPrefix string
}

func newJSONExtractor(c config) (*jsonExtractor, error) {
	// Graylog's firstNonNull: an empty text is kept, only a missing or
	// null one takes the default.
	j := &jsonExtractor{
		listSep: c.strOrNull("list_separator", ", "), keySep: c.strOrNull("key_separator", "_"), kvSep: c.strOrNull("kv_separator", "="),
		whitespaceReplacement: c.strOrNull("key_whitespace_replacement", "_"),
	}
	j.keyPrefix, _ = c.str("key_prefix")
	var err error
	if j.flatten, err = c.boolean("flatten", false); err != nil {
		return nil, configError("%s", err.Error())
	}
	if j.replaceWhitespace, err = c.boolean("replace_key_whitespace", false); err != nil {
		return nil, configError("%s", err.Error())
	}
	return j, nil
}

// ordered is a JSON object with its keys in order.
type ordered struct {
	keys []string
	vals []any
}

// parseJSON decodes a JSON value keeping object key order, integers as
// int64 and other numbers as float64, as Jackson reads them.
func parseJSON(dec *jsontext.Decoder) (any, error) {
	tok, err := dec.ReadToken()
	if err != nil {
		return nil, err
	}
	switch tok.Kind() {
	case '{':
		o := &ordered{}
		for dec.PeekKind() != '}' {
			k, err := dec.ReadToken()
			if err != nil {
				return nil, err
			}
			// The token is void after the next read.
			key := k.String()
			v, err := parseJSON(dec)
			if err != nil {
				return nil, err
			}
			o.keys, o.vals = append(o.keys, key), append(o.vals, v)
		}
		_, err := dec.ReadToken()
		return o, err
	case '[':
		list := []any{}
		for dec.PeekKind() != ']' {
			v, err := parseJSON(dec)
			if err != nil {
				return nil, err
			}
			list = append(list, v)
		}
		_, err := dec.ReadToken()
		return list, err
	case '0':
		text := tok.String()
		if n, err := strconv.ParseInt(text, 10, 64); err == nil {
			return n, nil
		}
		return tok.Float(), nil
	case '"':
		return tok.String(), nil
	case 't', 'f':
		return tok.Bool(), nil
	}
	return nil, nil
}

func (j *jsonExtractor) run(src string) ([]result, error) {
	dec := jsontext.NewDecoder(strings.NewReader(src), jsontext.AllowDuplicateNames(true), jsontext.AllowInvalidUTF8(true))
	v, err := parseJSON(dec)
	if err != nil {
		// Not JSON: Graylog logs it and extracts nothing.
		return nil, nil
	}
	// Text after the object is ignored, as Jackson's readValue ignores
	// trailing tokens by default.
	o, ok := v.(*ordered)
	if !ok {
		return nil, nil
	}
	var out []result
	for i, k := range o.keys {
		out = j.parse(out, j.keyPrefix+k, o.vals[i])
	}
	return out, nil
}

// key is JsonExtractor.parseKey, applied to the whole key (prefix and
// parents included): when it has a space, every whitespace character
// (Java's \s) is replaced.
func (j *jsonExtractor) key(k string) string {
	if !j.replaceWhitespace || !strings.Contains(k, " ") {
		return k
	}
	var b strings.Builder
	for i := 0; i < len(k); i++ {
		if isSpace(k[i]) {
			b.WriteString(j.whitespaceReplacement)
		} else {
			b.WriteByte(k[i])
		}
	}
	return b.String()
}

func (j *jsonExtractor) parse(out []result, key string, v any) []result {
	key = j.key(key)
	switch x := v.(type) {
	case nil:
		return out
	case *ordered:
		if j.flatten {
			var b strings.Builder
			first := true
			for i, k := range x.keys {
				if x.vals[i] == nil {
					continue
				}
				if !first {
					b.WriteString(j.listSep)
				}
				first = false
				b.WriteString(k + j.kvSep + javaText(x.vals[i]))
			}
			return append(out, result{key: key, value: b.String(), begin: -1, end: -1})
		}
		for i, k := range x.keys {
			out = j.parse(out, key+j.keySep+k, x.vals[i])
		}
		return out
	case []any:
		var b strings.Builder
		first := true
		for _, e := range x {
			if e == nil {
				continue
			}
			if !first {
				b.WriteString(j.listSep)
			}
			first = false
			b.WriteString(javaText(e))
		}
		return append(out, result{key: key, value: b.String(), begin: -1, end: -1})
	}
	return append(out, result{key: key, value: v, begin: -1, end: -1})
}

// javaText renders a parsed JSON value as Java's toString does, for the
// joined forms of arrays and flattened objects.
func javaText(v any) string {
	switch x := v.(type) {
	case nil:
		return "null"
	case string:
		return x
	case int64:
		return strconv.FormatInt(x, 10)
	case float64:
		return messages.JavaDouble(x)
	case bool:
		return strconv.FormatBool(x)
	case []any:
		parts := make([]string, len(x))
		for i, e := range x {
			parts[i] = javaText(e)
		}
		return "[" + strings.Join(parts, ", ") + "]"
	case *ordered:
		var b bytes.Buffer
		b.WriteByte('{')
		for i, k := range x.keys {
			if i > 0 {
				b.WriteString(", ")
			}
			b.WriteString(k + "=" + javaText(x.vals[i]))
		}
		b.WriteByte('}')
		return b.String()
	}
	return fmt.Sprint(v)
}
