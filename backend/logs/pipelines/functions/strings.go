package functions

import (
	"errors"
	"fmt"
	"strconv"
	"strings"
	"unicode"
	"unicode/utf16"
	"unicode/utf8"

	"golang.org/x/text/cases"
	"golang.org/x/text/language"

	"github.com/loggate/loggate/backend/logs/pipelines/lang"
)

func value1(desc string) lang.Param { return req("value", lang.TString, desc) }

func stringFunctions() []*lang.Function {
	str := func(name, desc string, f func(s string) string) *lang.Function {
		return fn(name, lang.TString, desc, func(_ *lang.Context, a lang.Args) (any, error) {
			if a.Get(0) == nil {
				return nil, nil // StringUtils: null in, null out
			}
			return f(a.String(0, "")), nil
		}, value1("The input string"))
	}
	cased := func(name, desc string, upper bool) *lang.Function {
		return fn(name, lang.TString, desc, func(_ *lang.Context, a lang.Args) (any, error) {
			if a.Get(0) == nil {
				return nil, nil // StringUtils: null in, null out
			}
			return javaCase(a.String(0, ""), a.String(1, "en"), upper), nil
		}, value1("The input string"), opt("locale", lang.TString, "The locale to use, defaults to English"))
	}
	test := func(name, desc, argName string, f func(s, x string) bool) *lang.Function {
		return fn(name, lang.TBoolean, desc, func(_ *lang.Context, a lang.Args) (any, error) {
			if a.Get(0) == nil || a.Get(1) == nil {
				// StringUtils: contains is false with a null; startsWith
				// and endsWith are true only when both are null.
				return name != "contains" && a.Get(0) == nil && a.Get(1) == nil, nil
			}
			s, x := a.String(0, ""), a.String(1, "")
			if a.Bool(2, false) {
				s, x = strings.ToLower(s), strings.ToLower(x)
			}
			return f(s, x), nil
		}, value1("The string to check"), req(argName, lang.TString, "The substring to find"),
			opt("ignore_case", lang.TBoolean, "Whether to search case insensitive, defaults to false"))
	}
	return []*lang.Function{
		fn("abbreviate", lang.TString, "Abbreviates a String using ellipses, the width defines the maximum length of the resulting string", func(_ *lang.Context, a lang.Args) (any, error) {
			if a.Get(0) == nil || a.Get(1) == nil {
				return nil, nil
			}
			s := a.String(0, "")
			width := max(a.Long(1, 0), 4)
			if int64(javaLen(s)) <= width {
				return s, nil
			}
			return javaPrefix(s, int(width-3)) + "...", nil
		}, value1("The string to abbreviate"), req("width", lang.TLong, "The maximum number of characters including the ellipses (minimum 4)")),
		str("capitalize", "Capitalizes a String changing the first letter to title case from lower case", func(s string) string {
			r, n := utf8.DecodeRuneInString(s)
			if n == 0 {
				return s
			}
			return string(unicode.ToTitle(r)) + s[n:]
		}),
		str("uncapitalize", "Uncapitalizes a String changing the first letter to lower case from title case", func(s string) string {
			r, n := utf8.DecodeRuneInString(s)
			if n == 0 {
				return s
			}
			return string(unicode.ToLower(r)) + s[n:]
		}),
		str("swapcase", "Swaps the case of a String changing upper and title case to lower case, and lower case to upper case", func(s string) string {
			return strings.Map(func(r rune) rune {
				switch {
				case unicode.IsUpper(r), unicode.IsTitle(r):
					return unicode.ToLower(r)
				case unicode.IsLower(r):
					return unicode.ToUpper(r)
				}
				return r
			}, s)
		}),
		cased("lowercase", "Lowercases a string", false),
		cased("uppercase", "Uppercases a string", true),
		fn("concat", lang.TString, "Concatenates two strings", func(_ *lang.Context, a lang.Args) (any, error) {
			return a.String(0, "") + a.String(1, ""), nil
		}, req("first", lang.TString, "First string"), req("second", lang.TString, "Second string")),
		test("contains", "Checks if a string contains another string", "search", strings.Contains),
		test("starts_with", "Checks if a string starts with a given prefix", "prefix", strings.HasPrefix),
		test("ends_with", "Checks if a string ends with a given suffix", "suffix", strings.HasSuffix),
		fn("substring", lang.TString, "Extract a substring from a string", func(_ *lang.Context, a lang.Args) (any, error) {
			if a.Get(0) == nil || a.Get(1) == nil {
				return nil, nil
			}
			u := utf16.Encode([]rune(a.String(0, "")))
			n := int64(len(u))
			start, end := a.Long(1, 0), a.Long(2, n)
			if end < 0 {
				end += n
			}
			if start < 0 {
				start += n
			}
			end = min(end, n)
			start = max(start, 0)
			end = max(end, 0)
			if start > end {
				return "", nil
			}
			return string(utf16.Decode(u[start:end])), nil
		}, value1("The string to extract from"), req("start", lang.TLong, "The position to start from, negative means count back from the end of the String by this many characters"),
			opt("end", lang.TLong, "The position to end at (exclusive), negative means count back from the end of the String by this many characters, defaults to length of the input string")),
		fn("join", lang.TString, "Joins the specified range of elements of the provided array into a single string", func(_ *lang.Context, a lang.Args) (any, error) {
			v := a.Get(0)
			if v == nil {
				return "", nil
			}
			l, ok := lang.AsList(v)
			if !ok {
				return nil, fmt.Errorf("'elements' must be a list, not %T", v)
			}
			// As Graylog: a negative index is the default; an index
			// past the end, or start after end, is List.subList's error.
			n := int64(len(l))
			start, end := a.Long(2, 0), a.Long(3, n)
			if start < 0 {
				start = 0
			}
			if end < 0 {
				end = n
			}
			if end > n {
				return nil, fmt.Errorf("end index (%d) must not be greater than size (%d)", end, n)
			}
			if start > end {
				return nil, fmt.Errorf("start index (%d) must not be greater than end index (%d)", start, end)
			}
			parts := make([]string, 0, max(end-start, 0))
			for i := start; i < end; i++ {
				s, _ := lang.ToString(l[i])
				if l[i] == nil {
					s = ""
				}
				parts = append(parts, s)
			}
			return strings.Join(parts, a.String(1, "")), nil
		}, req("elements", lang.TObject, "The list of strings to join together, may be null"),
			opt("delimiter", lang.TString, "The delimiter that separates each element. Default: none"),
			opt("start", lang.TLong, "The first index to start joining from. It is an error to pass in an index larger than the number of elements"),
			opt("end", lang.TLong, "The index to stop joining from (exclusive). It is an error to pass in an index larger than the number of elements")),
		fn("replace", lang.TString, "Replaces the first \"max\" or all occurrences of a string within another string", func(_ *lang.Context, a lang.Args) (any, error) {
			if a.Get(0) == nil {
				return nil, nil
			}
			s, search := a.String(0, ""), a.String(1, "")
			if search == "" {
				return s, nil
			}
			max := a.Long(3, -1)
			if max < 0 {
				max = -1
			}
			return strings.Replace(s, search, a.String(2, ""), int(max)), nil
		}, value1("The text to search and replace in"), req("search", lang.TString, "The string to search for"),
			opt("replacement", lang.TString, "The string to replace it with. Default: \"\""),
			opt("max", lang.TLong, "Maximum number of values to replace. Default: -1 (no maximum)")),
		fn("length", lang.TLong, "Counts the characters in a string. If `bytes=true` it counts the number of bytes instead (assumes UTF-8 encoding)", func(_ *lang.Context, a lang.Args) (any, error) {
			if a.Get(0) == nil {
				return nil, errors.New("value must not be null") // Objects.requireNonNull
			}
			s := a.String(0, "")
			if a.Bool(1, false) {
				return int64(len(s)), nil
			}
			return int64(javaLen(s)), nil
		}, value1("The input string"), opt("bytes", lang.TBoolean, "Count the number of bytes instead of characters")),
		fn("first_non_null", lang.TObject, "Returns first element found in the specified list which is not null", func(_ *lang.Context, a lang.Args) (any, error) {
			l, _ := lang.AsList(a.Get(0))
			for _, v := range l {
				if v != nil {
					return v, nil
				}
			}
			return nil, nil
		}, req("value", lang.TList, "The list of fields to find first non-null value")),
		keyValue(),
	}
}

// javaCase is String.toLowerCase/toUpperCase(Locale.forLanguageTag(tag)):
// full case mapping ("ß" → "SS", final sigma), with the rules of Turkish,
// Azeri and Lithuanian for those languages.
func javaCase(s, tag string, upper bool) string {
	lang := language.Und
	if base, _ := language.Make(tag).Base(); base.String() == "tr" || base.String() == "az" || base.String() == "lt" {
		lang = language.Make(base.String())
	}
	if lang == language.Und && isASCII(s) {
		if upper {
			return strings.ToUpper(s)
		}
		return strings.ToLower(s)
	}
	if upper {
		return cases.Upper(lang).String(s)
	}
	return cases.Lower(lang).String(s)
}

func isASCII(s string) bool {
	for i := 0; i < len(s); i++ {
		if s[i] >= utf8.RuneSelf {
			return false
		}
	}
	return true
}

// javaLen is String.length: UTF-16 units.
func javaLen(s string) int {
	n := 0
	for _, r := range s {
		n += utf16.RuneLen(r)
	}
	return n
}

// javaPrefix is String.substring(0, n) in UTF-16 units.
func javaPrefix(s string, n int) string {
	u := utf16.Encode([]rune(s))
	if n > len(u) {
		n = len(u)
	}
	return string(utf16.Decode(u[:n]))
}

// keyValue is key_value(), as Graylog's MapSplitter: the pairs are split on
// any of the delimiter characters, each trimmed of white space, empty ones
// skipped; each pair is split on the first key/value delimiter character
// after its key, key and value trimmed of white space (Guava's
// omitEmptyStrings().limit(2).trimResults()), then of the characters
// given.
func keyValue() *lang.Function {
	return fn("key_value", lang.TMap, "Extracts key/value pairs from a string", func(_ *lang.Context, a lang.Args) (any, error) {
		s := a.String(0, "")
		if s == "" {
			return nil, nil // Strings.isNullOrEmpty
		}
		isDelim := unicode.IsSpace
		if d, ok := a.Get(1).(string); ok {
			isDelim = func(r rune) bool { return strings.ContainsRune(d, r) }
		}
		kvDelims := a.String(2, "=")
		isKVDelim := func(r rune) bool { return strings.ContainsRune(kvDelims, r) }
		ignoreEmpty := a.Bool(3, true)
		allowDup := a.Bool(4, true)
		handle := a.String(5, "take_first")
		how := strings.ToLower(handle)
		trimKey, trimValue := a.String(6, ""), a.String(7, "")
		out := map[string]any{}
		for _, pair := range strings.FieldsFunc(s, isDelim) {
			key, rest := splitEntry(strings.TrimFunc(pair, unicode.IsSpace), isKVDelim)
			if key == "" {
				continue
			}
			k := strings.Trim(key, trimKey)
			old, dup := out[k]
			if dup && !allowDup {
				//lint:ignore ST1005 Graylog's words
				return nil, fmt.Errorf("Duplicate key %s is not allowed in key_value function", k)
			}
			if dup && how == "take_first" {
				continue
			}
			if rest == "" {
				// Only a key: an error unless empty values are ignored.
				if !ignoreEmpty {
					//lint:ignore ST1005 Graylog's words
					return nil, fmt.Errorf("Missing value for key %s", k)
				}
				continue
			}
			v := strings.Trim(rest, trimValue)
			switch {
			case !dup:
				out[k] = v
			case how == "take_last":
				out[k] = v
			default:
				out[k] = old.(string) + handle + v
			}
		}
		return out, nil
	}, value1("The string to extract key/value pairs from"),
		opt("delimiters", lang.TString, "The characters used to separate pairs, defaults to whitespace"),
		opt("kv_delimiters", lang.TString, "The characters used to separate keys from values, defaults to '='"),
		opt("ignore_empty_values", lang.TBoolean, "Whether to ignore keys with empty values, defaults to true"),
		opt("allow_dup_keys", lang.TBoolean, "Whether to allow duplicate keys, defaults to true"),
		opt("handle_dup_keys", lang.TString, "How to handle duplicate keys: 'take_first': only use first value, 'take_last': only take last value, default is to concatenate the values"),
		opt("trim_key_chars", lang.TString, "The characters to trim from keys, default is not to trim"),
		opt("trim_value_chars", lang.TString, "The characters to trim from values, default is not to trim"))
}

// splitEntry splits a key/value pair as Guava's
// Splitter.on(kvDelims).omitEmptyStrings().limit(2).trimResults() does:
// the key is the first piece not blank, the value all that follows the
// next piece not blank, each trimmed of white space; "" when missing.
func splitEntry(pair string, isKVDelim func(rune) bool) (key, value string) {
	rest := pair
	for rest != "" {
		piece := rest
		i := strings.IndexFunc(rest, isKVDelim)
		if i >= 0 {
			piece = rest[:i]
			_, size := utf8.DecodeRuneInString(rest[i:])
			rest = rest[i+size:]
		} else {
			rest = ""
		}
		if piece = strings.TrimFunc(piece, unicode.IsSpace); piece != "" {
			key = piece
			break
		}
	}
	if key == "" {
		return "", ""
	}
	// The value starts at the next piece not blank and runs to the end.
	for {
		start := strings.TrimLeftFunc(rest, unicode.IsSpace)
		if start == "" {
			return key, ""
		}
		r, size := utf8.DecodeRuneInString(start)
		if !isKVDelim(r) {
			return key, strings.TrimRightFunc(start, unicode.IsSpace)
		}
		rest = start[size:]
	}
}

// errWrongType is a run-time error for an argument of the wrong kind.
func errWrongType(name string, v any) error {
	return fmt.Errorf("'%s' has the wrong type %T", name, v)
}

var errNullPattern = errors.New("pattern must not be null")

// itoa names capture groups "0", "1", … as Graylog's regex() does.
func itoa(i int) string { return strconv.Itoa(i) }
