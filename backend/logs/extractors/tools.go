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
	return []api.Route{
		{Method: "GET", Path: "/tools/regex_tester", Summary: "Test a regular expression against a string", Query: []string{"regex", "string"}, Handler: api.JSON(h.regexTestGET)},
		{Method: "POST", Path: "/tools/regex_tester", Summary: "Test a regular expression against a string", Body: regexTestBody, Handler: api.JSON(h.regexTestPOST)},
		{Method: "GET", Path: "/tools/regex_tester/validate", Summary: "Validate a regular expression", Query: []string{"regex"}, Handler: api.JSON(h.regexValidate)},
		{Method: "GET", Path: "/tools/regex_replace_tester", Summary: "Test the regex replace extractor", Query: []string{"regex", "replacement", "replace_all", "string"}, Handler: api.JSON(h.regexReplaceTestGET)},
		{Method: "POST", Path: "/tools/regex_replace_tester", Summary: "Test the regex replace extractor", Body: regexReplaceTestBody, Handler: api.JSON(h.regexReplaceTestPOST)},
		{Method: "GET", Path: "/tools/substring_tester", Summary: "Test the substring extractor", Query: []string{"begin_index", "end_index", "string"}, Handler: api.JSON(h.substringTestGET)},
		{Method: "POST", Path: "/tools/substring_tester", Summary: "Test the substring extractor", Body: substringTestBody, Handler: api.JSON(h.substringTestPOST)},
		{Method: "GET", Path: "/tools/split_and_index_tester", Summary: "Test the split and index extractor", Query: []string{"split_by", "index", "string"}, Handler: api.JSON(h.splitTestGET)},
		{Method: "POST", Path: "/tools/split_and_index_tester", Summary: "Test the split and index extractor", Body: splitTestBody, Handler: api.JSON(h.splitTestPOST)},
		{Method: "GET", Path: "/tools/contains_string_tester", Summary: "Test whether a string contains another (a string condition)", Query: []string{"string", "search_string"}, Handler: api.JSON(h.containsTestGET)},
		{Method: "POST", Path: "/tools/contains_string_tester", Summary: "Test whether a string contains another (a string condition)", Body: containsTestBody, Handler: api.JSON(h.containsTestPOST)},
		{Method: "GET", Path: "/tools/json_tester", Summary: "Test the JSON extractor", Query: []string{"string", "flatten", "list_separator", "key_separator", "kv_separator", "replace_key_whitespace", "key_whitespace_replacement", "key_prefix"}, Handler: api.JSON(h.jsonTestGET)},
		{Method: "POST", Path: "/tools/json_tester", Summary: "Test the JSON extractor", Body: jsonTestBody, Handler: api.JSON(h.jsonTestPOST)},
		{Method: "GET", Path: "/tools/grok_tester", Summary: "Test a grok pattern against a string", Query: []string{"pattern", "string", "named_captures_only"}, Handler: api.JSON(h.grokTestGET)},
		{Method: "POST", Path: "/tools/grok_tester", Summary: "Test a grok pattern against a string", Body: grokTestBody, Handler: api.JSON(h.grokTestPOST)},
		{Method: "GET", Path: "/tools/lookup_table_tester", Summary: "Look a string up in a lookup table", Permission: "lookuptables:read", Query: []string{"lookup_table_name", "string"}, Handler: api.JSON(h.lookupTestGET)},
		{Method: "POST", Path: "/tools/lookup_table_tester", Summary: "Look a string up in a lookup table", Permission: "lookuptables:read", Body: lookupTestBody, Handler: api.JSON(h.lookupTestPOST)},
	}
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

func (h *Handler) regexReplaceTestGET(r *http.Request) (any, error) {
	p := params{q: r.URL.Query()}
	regex := p.notEmpty("regex")
	replacement := p.notNull("replacement")
	s := p.notNull("string")
	if p.err != nil {
		return nil, p.err
	}
	return regexReplaceTest(regex, replacement, p.bool("replace_all"), s)
}

func (h *Handler) regexReplaceTestPOST(r *http.Request) (any, error) {
	var req struct {
		String      *string `json:"string"`
		Regex       *string `json:"regex"`
		Replacement *string `json:"replacement"`
		ReplaceAll  bool    `json:"replace_all"`
	}
	if err := api.Decode(r, &req, true); err != nil {
		return nil, err
	}
	if err := firstNull(req.String, "string", req.Regex, "regex", req.Replacement, "replacement"); err != nil {
		return nil, err
	}
	if *req.Regex == "" {
		return nil, api.Invalidf("regex", "must not be empty")
	}
	return regexReplaceTest(*req.Regex, *req.Replacement, req.ReplaceAll, *req.String)
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

func (h *Handler) substringTestGET(r *http.Request) (any, error) {
	p := params{q: r.URL.Query()}
	begin := p.int("begin_index", 0)
	end := p.int("end_index", 1)
	s := p.notNull("string")
	if p.err != nil {
		return nil, p.err
	}
	return substringTest(s, begin, end)
}

func (h *Handler) substringTestPOST(r *http.Request) (any, error) {
	var req struct {
		String *string `json:"string"`
		Start  int32   `json:"start"`
		End    int32   `json:"end"`
	}
	if err := api.Decode(r, &req, true); err != nil {
		return nil, err
	}
	if req.String == nil {
		return nil, nullError("string")
	}
	return substringTest(*req.String, req.Start, req.End)
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

func (h *Handler) splitTestGET(r *http.Request) (any, error) {
	p := params{q: r.URL.Query()}
	by := p.notNull("split_by")
	index := p.int("index", 0)
	s := p.notNull("string")
	if p.err != nil {
		return nil, p.err
	}
	return splitTest(s, by, index)
}

func (h *Handler) splitTestPOST(r *http.Request) (any, error) {
	var req struct {
		String  *string `json:"string"`
		SplitBy *string `json:"split_by"`
		Index   int32   `json:"index"`
	}
	if err := api.Decode(r, &req, true); err != nil {
		return nil, err
	}
	if err := firstNull(req.String, "string", req.SplitBy, "splitBy"); err != nil {
		return nil, err
	}
	return splitTest(*req.String, *req.SplitBy, req.Index)
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

func (h *Handler) containsTestGET(r *http.Request) (any, error) {
	p := params{q: r.URL.Query()}
	s := p.notEmpty("string")
	search := p.notEmpty("search_string")
	if p.err != nil {
		return nil, p.err
	}
	return containsTest(s, search), nil
}

func (h *Handler) containsTestPOST(r *http.Request) (any, error) {
	var req struct {
		SearchString *string `json:"search_string"`
		String       *string `json:"string"`
	}
	if err := api.Decode(r, &req, true); err != nil {
		return nil, err
	}
	if err := firstNull(req.SearchString, "searchString", req.String, "string"); err != nil {
		return nil, err
	}
	return containsTest(*req.String, *req.SearchString), nil
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

func (h *Handler) jsonTestGET(r *http.Request) (any, error) {
	q := params{q: r.URL.Query()}
	req := jsonTestRequest{Flatten: q.bool("flatten"), ReplaceKeyWhitespace: q.bool("replace_key_whitespace")}
	for _, p := range []struct {
		name string
		dst  **string
	}{
		{"string", &req.String}, {"list_separator", &req.ListSeparator}, {"key_separator", &req.KeySeparator},
		{"kv_separator", &req.KVSeparator}, {"key_whitespace_replacement", &req.KeyWhitespaceReplacement}, {"key_prefix", &req.KeyPrefix},
	} {
		if q.q.Has(p.name) {
			v := q.q.Get(p.name)
			*p.dst = &v
		}
	}
	// Graylog fails with a 500 (a null in an ImmutableMap) when
	// key_whitespace_replacement or key_prefix is missing: a 400 here.
	for _, p := range []struct {
		v    *string
		name string
	}{{req.KeyWhitespaceReplacement, "key_whitespace_replacement"}, {req.KeyPrefix, "key_prefix"}} {
		if p.v == nil {
			return nil, api.Invalidf(p.name, "must not be null")
		}
	}
	return jsonTest(req)
}

func (h *Handler) jsonTestPOST(r *http.Request) (any, error) {
	var req jsonTestRequest
	if err := api.Decode(r, &req, true); err != nil {
		return nil, err
	}
	if err := firstNull(req.ListSeparator, "listSeparator", req.KeySeparator, "keySeparator", req.KVSeparator, "kvSeparator",
		req.KeyWhitespaceReplacement, "keyWhitespaceReplacement", req.KeyPrefix, "keyPrefix", req.String, "string"); err != nil {
		return nil, err
	}
	return jsonTest(req)
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

func (h *Handler) grokTestGET(r *http.Request) (any, error) {
	p := params{q: r.URL.Query()}
	pattern := p.notEmpty("pattern")
	s := p.notNull("string")
	if p.err != nil {
		return nil, p.err
	}
	return h.grokTest(r, pattern, s, p.bool("named_captures_only")), nil
}

func (h *Handler) grokTestPOST(r *http.Request) (any, error) {
	var req struct {
		String            *string `json:"string"`
		Pattern           *string `json:"pattern"`
		NamedCapturesOnly bool    `json:"named_captures_only"`
	}
	if err := api.Decode(r, &req, true); err != nil {
		return nil, err
	}
	if err := firstNull(req.String, "string", req.Pattern, "pattern"); err != nil {
		return nil, err
	}
	return h.grokTest(r, *req.Pattern, *req.String, req.NamedCapturesOnly), nil
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

func (h *Handler) lookupTestGET(r *http.Request) (any, error) {
	p := params{q: r.URL.Query()}
	name := p.notEmpty("lookup_table_name")
	s := p.notEmpty("string")
	if p.err != nil {
		return nil, p.err
	}
	return h.lookupTest(r, name, s), nil
}

func (h *Handler) lookupTestPOST(r *http.Request) (any, error) {
	var req struct {
		String          *string `json:"string"`
		LookupTableName *string `json:"lookup_table_name"`
	}
	if err := api.Decode(r, &req, true); err != nil {
		return nil, err
	}
	if err := firstNull(req.String, "string", req.LookupTableName, "lookupTableName"); err != nil {
		return nil, err
	}
	switch {
	case *req.String == "":
		return nil, api.Invalidf("string", "must not be empty")
	case *req.LookupTableName == "":
		return nil, api.Invalidf("lookup_table_name", "must not be empty")
	}
	return h.lookupTest(r, *req.LookupTableName, *req.String), nil
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
