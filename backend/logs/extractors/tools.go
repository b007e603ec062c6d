package extractors

import (
	"encoding/json"
	"errors"
	"math"
	"net/http"
	"net/url"
	"strings"

	"github.com/loggate/loggate/router/api"
)

// The testers of Graylog's /tools: the web interface's extractor page runs
// its "Try" buttons and condition checks through them. Each runs the
// extractor code loggate runs on messages, on one example text. Any
// authenticated user may ask, except for /tools/lookup_table_tester, which
// needs lookuptables:read (Graylog checks it on the POST form only; its GET
// form would let any user look keys up in every table, HTTP adapters
// included).
//
// Offsets in answers are Java's: UTF-16 units, as the web interface
// indexes its strings.

const (
	regexTestBody        = `{"regex":"took (\\d+) ms","string":"GET / took 12 ms"}`
	regexReplaceTestBody = `{"regex":"took (\\d+) ms","replacement":"$1","replace_all":false,"string":"GET / took 12 ms"}`
	substringTestBody    = `{"start":0,"end":3,"string":"GET / took 12 ms"}`
	splitTestBody        = `{"split_by":" ","index":2,"string":"GET / took 12 ms"}`
	containsTestBody     = `{"search_string":"took","string":"GET / took 12 ms"}`
	jsonTestBody         = `{"flatten":false,"list_separator":", ","key_separator":"_","kv_separator":"=","replace_key_whitespace":false,"key_whitespace_replacement":"_","key_prefix":"","string":"{\"took\":12,\"http\":{\"method\":\"GET\"}}"}`
	grokTestBody         = `{"pattern":"%{WORD:method} %{NOTSPACE:path} took %{NUMBER:took:int} ms","string":"GET / took 12 ms","named_captures_only":true}`
	lookupTestBody       = `{"lookup_table_name":"<table name>","string":"<key>"}`
)

func (h *Handler) toolRoutes() []api.Route {
	replaceGET, replacePOST := tool(replaceQuery, replaceCheck, func(_ *http.Request, in replaceIn) (any, error) {
		return regexReplaceTest(*in.Regex, *in.Replacement, in.ReplaceAll, *in.String)
	})
	substringGET, substringPOST := tool(substringQuery, substringCheck, func(_ *http.Request, in substringIn) (any, error) {
		return substringTest(*in.String, in.Start, in.End)
	})
	splitGET, splitPOST := tool(splitQuery, splitCheck, func(_ *http.Request, in splitIn) (any, error) {
		return splitTest(*in.String, *in.SplitBy, in.Index)
	})
	containsGET, containsPOST := tool(containsQuery, containsCheck, func(_ *http.Request, in containsIn) (any, error) {
		return containsTest(*in.String, *in.SearchString), nil
	})
	jsonGET, jsonPOST := tool(jsonQuery, jsonCheck, func(_ *http.Request, in jsonTestRequest) (any, error) { return jsonTest(in) })
	grokGET, grokPOST := tool(grokQuery, grokCheck, func(r *http.Request, in grokIn) (any, error) {
		return h.grokTest(r, *in.Pattern, *in.String, in.NamedCapturesOnly), nil
	})
	lookupGET, lookupPOST := tool(lookupQuery, lookupCheck, func(r *http.Request, in lookupTestIn) (any, error) {
		return h.lookupTest(r, *in.LookupTableName, *in.String), nil
	})
	return []api.Route{
		{Method: "GET", Path: "/tools/regex_tester", Summary: "Test a regular expression against a string", Query: []string{"regex", "string"}, Handler: api.JSON(h.regexTestGET)},
		{Method: "POST", Path: "/tools/regex_tester", Summary: "Test a regular expression against a string", Body: regexTestBody, Handler: api.JSON(h.regexTestPOST)},
		{Method: "GET", Path: "/tools/regex_tester/validate", Summary: "Validate a regular expression", Query: []string{"regex"}, Handler: api.JSON(h.regexValidate)},
		{Method: "GET", Path: "/tools/regex_replace_tester", Summary: "Test the regex replace extractor", Query: []string{"regex", "replacement", "replace_all", "string"}, Handler: api.JSON(replaceGET)},
		{Method: "POST", Path: "/tools/regex_replace_tester", Summary: "Test the regex replace extractor", Body: regexReplaceTestBody, Handler: api.JSON(replacePOST)},
		{Method: "GET", Path: "/tools/substring_tester", Summary: "Test the substring extractor", Query: []string{"begin_index", "end_index", "string"}, Handler: api.JSON(substringGET)},
		{Method: "POST", Path: "/tools/substring_tester", Summary: "Test the substring extractor", Body: substringTestBody, Handler: api.JSON(substringPOST)},
		{Method: "GET", Path: "/tools/split_and_index_tester", Summary: "Test the split and index extractor", Query: []string{"split_by", "index", "string"}, Handler: api.JSON(splitGET)},
		{Method: "POST", Path: "/tools/split_and_index_tester", Summary: "Test the split and index extractor", Body: splitTestBody, Handler: api.JSON(splitPOST)},
		{Method: "GET", Path: "/tools/contains_string_tester", Summary: "Test whether a string contains another (a string condition)", Query: []string{"string", "search_string"}, Handler: api.JSON(containsGET)},
		{Method: "POST", Path: "/tools/contains_string_tester", Summary: "Test whether a string contains another (a string condition)", Body: containsTestBody, Handler: api.JSON(containsPOST)},
		{Method: "GET", Path: "/tools/json_tester", Summary: "Test the JSON extractor", Query: []string{"string", "flatten", "list_separator", "key_separator", "kv_separator", "replace_key_whitespace", "key_whitespace_replacement", "key_prefix"}, Handler: api.JSON(jsonGET)},
		{Method: "POST", Path: "/tools/json_tester", Summary: "Test the JSON extractor", Body: jsonTestBody, Handler: api.JSON(jsonPOST)},
		{Method: "GET", Path: "/tools/grok_tester", Summary: "Test a grok pattern against a string", Query: []string{"pattern", "string", "named_captures_only"}, Handler: api.JSON(grokGET)},
		{Method: "POST", Path: "/tools/grok_tester", Summary: "Test a grok pattern against a string", Body: grokTestBody, Handler: api.JSON(grokPOST)},
		{Method: "GET", Path: "/tools/lookup_table_tester", Summary: "Look a string up in a lookup table", Permission: "lookuptables:read", Query: []string{"lookup_table_name", "string"}, Handler: api.JSON(lookupGET)},
		{Method: "POST", Path: "/tools/lookup_table_tester", Summary: "Look a string up in a lookup table", Permission: "lookuptables:read", Body: lookupTestBody, Handler: api.JSON(lookupPOST)},
	}
}

// tool builds a tester's two forms, as Graylog's resources have them: the
// GET form reads its input from the query (query reports problems through
// p), the POST form decodes it from the body, refusing unknown properties,
// and check refuses what the request model refuses; both then run.
func tool[T any](query func(p *params) T, check func(*T) error, run func(*http.Request, T) (any, error)) (get, post func(*http.Request) (any, error)) {
	get = func(r *http.Request) (any, error) {
		p := params{q: r.URL.Query()}
		in := query(&p)
		if p.err != nil {
			return nil, p.err
		}
		return run(r, in)
	}
	post = func(r *http.Request) (any, error) {
		var in T
		if err := api.Decode(r, &in, true); err != nil {
			return nil, err
		}
		if err := check(&in); err != nil {
			return nil, err
		}
		return run(r, in)
	}
	return get, post
}

// The testers' inputs: their request models' properties, and how the GET
// forms' parameters fill them.

type replaceIn struct {
	String      *string `json:"string"`
	Regex       *string `json:"regex"`
	Replacement *string `json:"replacement"`
	ReplaceAll  bool    `json:"replace_all"`
}

func replaceQuery(p *params) replaceIn {
	return replaceIn{Regex: p.ptr(p.notEmpty("regex")), Replacement: p.ptr(p.notNull("replacement")),
		String: p.ptr(p.notNull("string")), ReplaceAll: p.bool("replace_all")}
}

func replaceCheck(in *replaceIn) error {
	if err := firstNull(in.String, "string", in.Regex, "regex", in.Replacement, "replacement"); err != nil {
		return err
	}
	if *in.Regex == "" {
		return api.Invalidf("regex", "must not be empty")
	}
	return nil
}

type substringIn struct {
	String *string `json:"string"`
	Start  int32   `json:"start"`
	End    int32   `json:"end"`
}

func substringQuery(p *params) substringIn {
	return substringIn{Start: p.int("begin_index", 0), End: p.int("end_index", 1), String: p.ptr(p.notNull("string"))}
}

func substringCheck(in *substringIn) error { return firstNull(in.String, "string") }

type splitIn struct {
	String  *string `json:"string"`
	SplitBy *string `json:"split_by"`
	Index   int32   `json:"index"`
}

func splitQuery(p *params) splitIn {
	return splitIn{SplitBy: p.ptr(p.notNull("split_by")), Index: p.int("index", 0), String: p.ptr(p.notNull("string"))}
}

func splitCheck(in *splitIn) error { return firstNull(in.String, "string", in.SplitBy, "splitBy") }

type containsIn struct {
	SearchString *string `json:"search_string"`
	String       *string `json:"string"`
}

func containsQuery(p *params) containsIn {
	return containsIn{String: p.ptr(p.notEmpty("string")), SearchString: p.ptr(p.notEmpty("search_string"))}
}

func containsCheck(in *containsIn) error {
	return firstNull(in.SearchString, "searchString", in.String, "string")
}

// jsonQuery reads the JSON tester's parameters. Graylog fails with a 500
// (a null in an ImmutableMap) when key_whitespace_replacement or key_prefix
// is missing: a 400 here.
func jsonQuery(p *params) jsonTestRequest {
	in := jsonTestRequest{Flatten: p.bool("flatten"), ReplaceKeyWhitespace: p.bool("replace_key_whitespace")}
	for _, f := range []struct {
		name string
		dst  **string
	}{
		{"string", &in.String}, {"list_separator", &in.ListSeparator}, {"key_separator", &in.KeySeparator},
		{"kv_separator", &in.KVSeparator}, {"key_whitespace_replacement", &in.KeyWhitespaceReplacement}, {"key_prefix", &in.KeyPrefix},
	} {
		if p.q.Has(f.name) {
			*f.dst = p.ptr(p.q.Get(f.name))
		}
	}
	if in.KeyWhitespaceReplacement == nil {
		p.fail(api.Invalidf("key_whitespace_replacement", "must not be null"))
	}
	if in.KeyPrefix == nil {
		p.fail(api.Invalidf("key_prefix", "must not be null"))
	}
	return in
}

func jsonCheck(in *jsonTestRequest) error {
	return firstNull(in.ListSeparator, "listSeparator", in.KeySeparator, "keySeparator", in.KVSeparator, "kvSeparator",
		in.KeyWhitespaceReplacement, "keyWhitespaceReplacement", in.KeyPrefix, "keyPrefix", in.String, "string")
}

type grokIn struct {
	String            *string `json:"string"`
	Pattern           *string `json:"pattern"`
	NamedCapturesOnly bool    `json:"named_captures_only"`
}

func grokQuery(p *params) grokIn {
	return grokIn{Pattern: p.ptr(p.notEmpty("pattern")), String: p.ptr(p.notNull("string")), NamedCapturesOnly: p.bool("named_captures_only")}
}

func grokCheck(in *grokIn) error { return firstNull(in.String, "string", in.Pattern, "pattern") }

type lookupTestIn struct {
	String          *string `json:"string"`
	LookupTableName *string `json:"lookup_table_name"`
}

func lookupQuery(p *params) lookupTestIn {
	return lookupTestIn{LookupTableName: p.ptr(p.notEmpty("lookup_table_name")), String: p.ptr(p.notEmpty("string"))}
}

func lookupCheck(in *lookupTestIn) error {
	if err := firstNull(in.String, "string", in.LookupTableName, "lookupTableName"); err != nil {
		return err
	}
	switch {
	case *in.String == "":
		return api.Invalidf("string", "must not be empty")
	case *in.LookupTableName == "":
		return api.Invalidf("lookup_table_name", "must not be empty")
	}
	return nil
}

// Query parameters as Jersey reads them for Graylog's resources, and the
// bean validation Graylog declares on them.

// notEmptyParam is a @NotEmpty String: absent or empty is a 400.
// params reads a tester's query parameters; the first problem sticks,
// and err reports it.
type params struct {
	q   url.Values
	err error
}

func (p *params) fail(err error) {
	if p.err == nil {
		p.err = err
	}
}

// notEmpty is a @NotEmpty String: absent or empty is a 400.
func (p *params) notEmpty(name string) string {
	v := p.q.Get(name)
	if v == "" {
		p.fail(api.Invalidf(name, "must not be empty"))
	}
	return v
}

// notNull is a @NotNull String: absent is a 400, empty is a value.
func (p *params) notNull(name string) string {
	if !p.q.Has(name) {
		p.fail(api.Invalidf(name, "must not be null"))
	}
	return p.q.Get(name)
}

// bool is a boolean: true only for "true" in any case, as
// Boolean.valueOf reads it; absent is false.
func (p *params) bool(name string) bool { return strings.EqualFold(p.q.Get(name), "true") }

// ptr is v as a request model's property.
func (p *params) ptr(v string) *string { return &v }

// int is an int with @Min(least); absent is 0, as Jersey gives a
// primitive. One that is no Java int is a 400 (Jersey answers 404).
func (p *params) int(name string, least int) int32 {
	n, err := api.IntParam(p.q, name, 0, math.MinInt32, api.MaxInt32)
	if err != nil {
		p.fail(err)
		return 0
	}
	if n < least {
		p.fail(api.Invalidf(name, "must be greater than or equal to %d", least))
	}
	return int32(n)
}

// nullError is what Graylog answers for a request model's property that
// is missing or null (AutoValue's check, through Jackson): a 400 naming
// the Java property.
func nullError(property string) error { return api.Errorf(api.Invalid, "Null %s", property) }

// firstNull returns the error of the first nil pointer of pairs (a
// *string, then its Java property name).
func firstNull(pairs ...any) error {
	for i := 0; i+1 < len(pairs); i += 2 {
		if p, _ := pairs[i].(*string); p == nil {
			return nullError(pairs[i+1].(string))
		}
	}
	return nil
}

// configOf builds an extractor configuration from Go values.
func configOf(kv ...any) config {
	c := config{}
	for i := 0; i+1 < len(kv); i += 2 {
		c[kv[i].(string)], _ = json.Marshal(kv[i+1])
	}
	return c
}

// clientMessage is the message of err a client is shown.
func clientMessage(err error) string {
	if e, ok := errors.AsType[*api.Error](err); ok {
		return e.Message
	}
	return err.Error()
}

// utf16Offset turns a byte offset of s into Java's index (UTF-16 units);
// a negative one (none) is kept.
func utf16Offset(s string, off int) int {
	if off <= 0 {
		return off
	}
	n := 0
	for _, r := range s[:off] {
		if r >= 0x10000 {
			n += 2
		} else {
			n++
		}
	}
	return n
}

// utf16Len is Java's String.length.
func utf16Len(s string) int { return utf16Offset(s, len(s)) }

// regexMatch and regexTestResponse are Graylog's RegexTesterResponse.
type regexMatch struct {
	Match string `json:"match"`
	Start int    `json:"start"`
	End   int    `json:"end"`
}

type regexTestResponse struct {
	Matched bool        `json:"matched"`
	Match   *regexMatch `json:"match"`
	Regex   string      `json:"regex"`
	String  string      `json:"string"`
}

func (h *Handler) regexTestGET(r *http.Request) (any, error) {
	q := r.URL.Query()
	if strings.TrimSpace(q.Get("regex")) == "" {
		return nil, api.Errorf(api.Invalid, "Missing required parameter `regex`")
	}
	return regexTest(q.Get("regex"), q.Get("string"))
}

func (h *Handler) regexTestPOST(r *http.Request) (any, error) {
	var req struct {
		Regex  *string `json:"regex"`
		String *string `json:"string"`
	}
	if err := api.Decode(r, &req, false); err != nil {
		return nil, err
	}
	if req.Regex == nil || *req.Regex == "" || req.String == nil {
		return nil, api.Errorf(api.Invalid, "regex and string are required")
	}
	return regexTest(*req.Regex, *req.String)
}

// regexTest finds the first match of regex in s and, as Graylog does,
// answers its first group.
func regexTest(regex, s string) (regexTestResponse, error) {
	re, err := compileJava(regex)
	if err != nil {
		return regexTestResponse{}, err
	}
	res := regexTestResponse{Regex: regex, String: s}
	m := re.FindStringSubmatchIndex(s)
	res.Matched = m != nil
	if len(m) >= 4 && m[2] >= 0 {
		res.Match = &regexMatch{Match: s[m[2]:m[3]], Start: utf16Offset(s, m[2]), End: utf16Offset(s, m[3])}
	}
	return res, nil
}

// regexValidationResponse is Graylog's RegexValidationResponse.
type regexValidationResponse struct {
	Regex             string `json:"regex"`
	IsValid           bool   `json:"is_valid"`
	ValidationMessage string `json:"validation_message,omitempty"`
}

// regexValidate compiles the regex as the regex extractor and condition
// do: one RE2 cannot run (a lookaround, a backreference) is not valid.
func (h *Handler) regexValidate(r *http.Request) (any, error) {
	p := params{q: r.URL.Query()}
	regex := p.notEmpty("regex")
	if p.err != nil {
		return nil, p.err
	}
	res := regexValidationResponse{Regex: regex, IsValid: true}
	if _, err := compileJava(regex); err != nil {
		res.IsValid = false
		res.ValidationMessage = clientMessage(err)
	}
	return res, nil
}

// regexReplaceTestResponse is Graylog's RegexReplaceTesterResponse.
type regexReplaceTestResponse struct {
	Matched     bool        `json:"matched"`
	Match       *regexMatch `json:"match,omitempty"`
	Regex       string      `json:"regex"`
	Replacement string      `json:"replacement"`
	ReplaceAll  bool        `json:"replace_all"`
	String      string      `json:"string"`
}

// regexReplaceTest runs the regex_replace extractor on s, as Graylog's
// tester runs RegexReplaceExtractor.runExtractor: the match is the
// replaced text with the first group's range (-1 when there is none).
func regexReplaceTest(regex, replacement string, all bool, s string) (any, error) {
	run, err := newRunner(typeRegexReplace, configOf("regex", regex, "replacement", replacement, "replace_all", all), deps{})
	if err != nil {
		return nil, err
	}
	res := regexReplaceTestResponse{Regex: regex, Replacement: replacement, ReplaceAll: all, String: s}
	out, err := run(s)
	if err != nil {
		// Graylog answers 500 (a replacement naming a group the regex
		// lacks); the request is what is wrong.
		return nil, api.Wrap(api.Invalid, "Error while trying to replace string: "+err.Error(), err)
	}
	if len(out) > 0 {
		v, _ := out[0].value.(string)
		res.Matched = true
		res.Match = &regexMatch{Match: v, Start: utf16Offset(s, out[0].begin), End: utf16Offset(s, out[0].end)}
	}
	return res, nil
}

// cutResponse is Graylog's SubstringTesterResponse and
// SplitAndIndexTesterResponse.
type cutResponse struct {
	Successful bool    `json:"successful"`
	Cut        *string `json:"cut"`
	BeginIndex int     `json:"begin_index"`
	EndIndex   int     `json:"end_index"`
}

// substringTest runs the substring extractor (Graylog's safeSubstring)
// and answers the indexes asked for.
func substringTest(s string, begin, end int32) (any, error) {
	run, err := newRunner(typeSubstring, configOf("begin_index", begin, "end_index", end), deps{})
	if err != nil {
		return nil, err
	}
	res := cutResponse{BeginIndex: int(begin), EndIndex: int(end)}
	out, err := run(s)
	if err != nil {
		return nil, err
	}
	if len(out) > 0 {
		v, _ := out[0].value.(string)
		res.Successful, res.Cut = true, &v
	}
	return res, nil
}

// splitTest is Graylog's tester: the split_and_index extractor's part
// (index counts from 1) and SplitAndIndexExtractor.getCutIndices, which
// it answers even when there is no part (0 and 0 when the separator is
// not found often enough).
func splitTest(s, by string, index int32) (any, error) {
	if by == "" {
		// Graylog fails with a 500 (charAt(0) of an empty separator).
		return nil, api.Invalidf("split_by", "must not be empty")
	}
	run, err := newRunner(typeSplitIndex, configOf("split_by", by, "index", index), deps{})
	if err != nil {
		return nil, err
	}
	var res cutResponse
	out, err := run(s)
	if err != nil {
		return nil, err
	}
	if len(out) > 0 {
		v, _ := out[0].value.(string)
		res.Successful, res.Cut = true, &v
	}
	if b, e := cutIndices(s, by, int(index)-1); b >= 0 {
		res.BeginIndex, res.EndIndex = utf16Offset(s, b), utf16Offset(s, e)
	}
	return res, nil
}

// containsMatch and containsResponse are Graylog's
// ContainsStringTesterResponse.
type containsMatch struct {
	Start int `json:"start"`
	End   int `json:"end"`
}

type containsResponse struct {
	Matched      bool           `json:"matched"`
	Match        *containsMatch `json:"match,omitempty"`
	SearchString string         `json:"search_string"`
	String       string         `json:"string"`
}

// containsTest is the string condition (the text contains the value) with
// where it is found.
func containsTest(s, search string) containsResponse {
	res := containsResponse{SearchString: search, String: s}
	if i := strings.Index(s, search); i >= 0 {
		start := utf16Offset(s, i)
		res.Matched = true
		res.Match = &containsMatch{Start: start, End: start + utf16Len(search)}
	}
	return res
}

// jsonTestRequest is Graylog's JsonTestRequest.
type jsonTestRequest struct {
	Flatten                  bool    `json:"flatten"`
	ListSeparator            *string `json:"list_separator"`
	KeySeparator             *string `json:"key_separator"`
	KVSeparator              *string `json:"kv_separator"`
	ReplaceKeyWhitespace     bool    `json:"replace_key_whitespace"`
	KeyWhitespaceReplacement *string `json:"key_whitespace_replacement"`
	KeyPrefix                *string `json:"key_prefix"`
	String                   *string `json:"string"`
}

// jsonTestResponse is Graylog's JsonTesterResponse (the list separator is
// line_separator there).
type jsonTestResponse struct {
	Matches       map[string]any `json:"matches"`
	Flatten       bool           `json:"flatten"`
	ListSeparator string         `json:"line_separator"`
	KeySeparator  string         `json:"key_separator"`
	KVSeparator   string         `json:"kv_separator"`
	String        string         `json:"string"`
}

// jsonTest runs the json extractor with the request's options on its
// string and answers the fields it extracts.
func jsonTest(req jsonTestRequest) (any, error) {
	for _, p := range []struct {
		v    *string
		name string
	}{{req.String, "string"}, {req.ListSeparator, "list_separator"}, {req.KeySeparator, "key_separator"}, {req.KVSeparator, "kv_separator"}} {
		if p.v == nil || *p.v == "" {
			return nil, api.Invalidf(p.name, "must not be empty")
		}
	}
	kwr, prefix := "", ""
	if req.KeyWhitespaceReplacement != nil {
		kwr = *req.KeyWhitespaceReplacement
	}
	if req.KeyPrefix != nil {
		prefix = *req.KeyPrefix
	}
	j, err := newJSONExtractor(configOf("flatten", req.Flatten, "list_separator", *req.ListSeparator, "key_separator", *req.KeySeparator,
		"kv_separator", *req.KVSeparator, "replace_key_whitespace", req.ReplaceKeyWhitespace, "key_whitespace_replacement", kwr, "key_prefix", prefix))
	if err != nil {
		return nil, err
	}
	out, err := j.run(*req.String)
	if err != nil {
		return nil, err
	}
	matches := make(map[string]any, len(out))
	for _, r := range out {
		matches[r.key] = r.value
	}
	return jsonTestResponse{Matches: matches, Flatten: req.Flatten, ListSeparator: *req.ListSeparator,
		KeySeparator: *req.KeySeparator, KVSeparator: *req.KVSeparator, String: *req.String}, nil
}

// grokMatch and grokTestResponse are Graylog's GrokTesterResponse.
type grokMatch struct {
	Name  string `json:"name"`
	Match string `json:"match"`
}

type grokTestResponse struct {
	Matched      bool        `json:"matched"`
	Matches      []grokMatch `json:"matches"`
	Pattern      string      `json:"pattern"`
	String       string      `json:"string"`
	ErrorMessage string      `json:"error_message,omitempty"`
}

// grokTest runs the grok extractor with the node's patterns: a pattern
// that does not compile is answered in error_message, with a 200, as
// Graylog answers it; the captures are sorted by name, their values as
// Java's toString writes them.
func (h *Handler) grokTest(r *http.Request, pattern, s string, namedOnly bool) grokTestResponse {
	res := grokTestResponse{Pattern: pattern, String: s, Matches: []grokMatch{}}
	if h.s.grok == nil {
		res.ErrorMessage = "No grok patterns are available on this node"
		return res
	}
	if g, ok := h.s.grok.(followedGrok); ok {
		// Patterns another node saved a moment ago count, as Graylog
		// loads them all for each test.
		if err := g.Refresh(r.Context()); err != nil {
			api.Logger(r.Context()).Warn("refreshing the grok patterns failed", "err", err)
		}
	}
	run, err := newRunner(typeGrok, configOf("grok_pattern", pattern, "named_captures_only", namedOnly), deps{grok: h.s.grok})
	if err != nil {
		res.ErrorMessage = clientMessage(err)
		return res
	}
	out, err := run(s)
	if err != nil {
		res.ErrorMessage = err.Error()
		return res
	}
	for _, c := range out {
		res.Matches = append(res.Matches, grokMatch{Name: c.key, Match: javaText(c.value)})
	}
	res.Matched = len(res.Matches) > 0
	return res
}

// lookupTestResponse is Graylog's LookupTableTesterResponse.
type lookupTestResponse struct {
	Empty        bool    `json:"empty"`
	Error        bool    `json:"error"`
	ErrorMessage string  `json:"error_message"`
	Key          *string `json:"key"`
	Value        any     `json:"value"`
}

// lookupTest looks the string, trimmed, up in the table as the
// lookup_table extractor does (by name, with the table's defaults) and
// answers the key as sent.
func (h *Handler) lookupTest(r *http.Request, name, s string) lookupTestResponse {
	d := deps{tables: h.s.opts.Lookup, strict: true}
	if d.lookupTable(name) != nil {
		return lookupTestResponse{Empty: true, Error: true, ErrorMessage: "Lookup table <" + name + "> doesn't exist"}
	}
	res := lookupTestResponse{Empty: true, Key: &s}
	found, err := lookupIn(r.Context(), d.tables, name, javaTrim(s))
	if err != nil {
		// Gone since: Graylog's lookup answers an empty result.
		return res
	}
	res.Empty, res.Value = found.Empty(), found.Single
	return res
}

// javaTrim is Java's String.trim: every character up to the space goes.
func javaTrim(s string) string {
	return strings.TrimFunc(s, func(r rune) bool { return r <= ' ' })
}
