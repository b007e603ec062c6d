package extractors

import (
	"net/http"
	"strings"

	"github.com/loggate/loggate/router/api"
)

// The regex tester of Graylog's /tools: the web interface's extractor page
// runs its "Try" buttons (the regex extractor, a regex condition) through
// it. Any authenticated user may ask.

const regexTestBody = `{"regex":"took (\\d+) ms","string":"GET / took 12 ms"}`

func (h *Handler) toolRoutes() []api.Route {
	return []api.Route{
		{Method: "GET", Path: "/tools/regex_tester", Summary: "Test a regular expression against a string", Query: []string{"regex", "string"}, Handler: api.JSON(h.regexTestGET)},
		{Method: "POST", Path: "/tools/regex_tester", Summary: "Test a regular expression against a string", Body: regexTestBody, Handler: api.JSON(h.regexTestPOST)},
	}
}

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
// answers its first group (offsets in bytes; Java's are UTF-16 units, the
// same for ASCII text).
func regexTest(regex, s string) (regexTestResponse, error) {
	re, err := compileJava(regex)
	if err != nil {
		return regexTestResponse{}, err
	}
	res := regexTestResponse{Regex: regex, String: s}
	m := re.FindStringSubmatchIndex(s)
	res.Matched = m != nil
	if len(m) >= 4 && m[2] >= 0 {
		res.Match = &regexMatch{Match: s[m[2]:m[3]], Start: m[2], End: m[3]}
	}
	return res, nil
}
