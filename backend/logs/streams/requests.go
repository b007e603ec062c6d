package streams

import (
	"encoding/json"
	"regexp"

	"github.com/loggate/loggate/backend/logs/javaregex"

	"github.com/loggate/loggate/router/api"
)

// createRequest is Graylog's CreateStreamRequest. It is strict: unknown
// properties are refused, in the rules too.
type createRequest struct {
	Title                          *string       `json:"title"`
	Description                    *string       `json:"description"`
	Rules                          []ruleRequest `json:"rules"`
	ContentPack                    *string       `json:"content_pack"`
	MatchingType                   *string       `json:"matching_type"`
	RemoveMatchesFromDefaultStream *bool         `json:"remove_matches_from_default_stream"`
	IndexSetID                     *string       `json:"index_set_id"`
}

// stream validates the request and returns the stream it asks for, paused,
// as Graylog creates every stream. The index set is checked by the service.
func (c createRequest) stream(creator string) (*Stream, error) {
	mt := MatchAnd
	// Graylog's valueOfOrDefault: null and "" are the default.
	if c.MatchingType != nil && *c.MatchingType != "" {
		var err error
		if mt, err = ParseMatchingType(*c.MatchingType); err != nil {
			return nil, err
		}
	}
	v := &api.ValidationError{}
	filled(v, "title", c.Title)
	filled(v, "index_set_id", c.IndexSetID)
	if err := v.Err(); err != nil {
		return nil, err
	}
	st := &Stream{
		Title: *c.Title, Description: c.Description, CreatorUserID: creator, MatchingType: mt,
		Disabled: true, ContentPack: c.ContentPack, IndexSetID: *c.IndexSetID,
		RemoveMatchesFromDefaultStream: c.RemoveMatchesFromDefaultStream != nil && *c.RemoveMatchesFromDefaultStream,
		Rules:                          make([]Rule, 0, len(c.Rules)),
	}
	for _, rr := range c.Rules {
		r, err := rr.rule()
		if err != nil {
			return nil, err
		}
		st.Rules = append(st.Rules, r)
	}
	return st, nil
}

// filled adds Graylog's FilledStringValidator failure for a missing or empty
// string.
func filled(v *api.ValidationError, field string, s *string) {
	switch {
	case s == nil:
		v.Add(field, `Value "null" is not a valid non-empty String!`)
	case *s == "":
		v.Add(field, `Value "" is not a valid non-empty String!`)
	}
}

// updateRequest is Graylog's UpdateStreamRequest: lenient, and its rules are
// accepted and ignored.
type updateRequest struct {
	Title                          *string         `json:"title"`
	Description                    *string         `json:"description"`
	MatchingType                   *string         `json:"matching_type"`
	Rules                          json.RawMessage `json:"rules"`
	RemoveMatchesFromDefaultStream *bool           `json:"remove_matches_from_default_stream"`
	IndexSetID                     *string         `json:"index_set_id"`
}

// settings returns the change the request asks for. An empty title,
// description or index set id leaves the old value, as in Graylog; an empty
// matching type is invalid.
func (u updateRequest) settings() (Settings, error) {
	var set Settings
	if u.Title != nil && *u.Title != "" {
		set.Title = u.Title
	}
	if u.Description != nil && *u.Description != "" {
		set.Description = u.Description
	}
	if u.IndexSetID != nil && *u.IndexSetID != "" {
		set.IndexSetID = u.IndexSetID
	}
	if u.MatchingType != nil {
		mt, err := ParseMatchingType(*u.MatchingType)
		if err != nil {
			return Settings{}, err
		}
		set.MatchingType = &mt
	}
	set.RemoveMatchesFromDefaultStream = u.RemoveMatchesFromDefaultStream
	return set, nil
}

// cloneRequest is Graylog's CloneStreamRequest (strict).
type cloneRequest struct {
	Title                          *string `json:"title"`
	Description                    *string `json:"description"`
	RemoveMatchesFromDefaultStream bool    `json:"remove_matches_from_default_stream"`
	IndexSetID                     *string `json:"index_set_id"`
}

func (c cloneRequest) clone(creator string) (CloneRequest, error) {
	v := &api.ValidationError{}
	filled(v, "title", c.Title)
	filled(v, "index_set_id", c.IndexSetID)
	if err := v.Err(); err != nil {
		return CloneRequest{}, err
	}
	return CloneRequest{
		Title: *c.Title, Description: c.Description, IndexSetID: *c.IndexSetID,
		RemoveMatchesFromDefaultStream: c.RemoveMatchesFromDefaultStream, CreatorUserID: creator,
	}, nil
}

// ruleRequest is Graylog's CreateStreamRuleRequest, the body of the rule
// endpoints and an element of a new stream's rules.
type ruleRequest struct {
	Type        int     `json:"type"`
	Value       *string `json:"value"`
	Field       *string `json:"field"`
	Inverted    bool    `json:"inverted"`
	Description *string `json:"description"`
}

// rule validates the request: a known type; a field for every type but
// ALWAYS_MATCH; a value for the types that compare one; a regular
// expression that compiles; a number for GREATER and SMALLER.
func (rr ruleRequest) rule() (Rule, error) {
	t := RuleType(rr.Type)
	if !t.Valid() {
		return Rule{}, api.Errorf(api.Invalid, "Unknown stream rule type %d", rr.Type)
	}
	r := Rule{Type: t, Inverted: rr.Inverted, Description: rr.Description}
	if rr.Field != nil {
		r.Field = *rr.Field
	}
	if rr.Value != nil {
		r.Value = *rr.Value
	}
	v := &api.ValidationError{}
	if t != RuleAlways {
		filled(v, "field", rr.Field)
	}
	switch t {
	case RulePresence, RuleAlways:
	default:
		filled(v, "value", rr.Value)
	}
	if r.Value != "" {
		switch t {
		case RuleRegex:
			// Compiled without the DOTALL flag compileRegex adds, so
			// that the error quotes the expression as given.
			if err := javaregex.CheckSize(r.Value); err != nil {
				v.Add("value", "Invalid regular expression: %v", err)
			} else if _, err := regexp.Compile(r.Value); err != nil {
				v.Add("value", "Invalid regular expression: %v", err)
			}
		case RuleGreater, RuleSmaller:
			if _, ok := parseJavaDouble(r.Value); !ok {
				v.Add("value", "Value %q is not a number", r.Value)
			}
		}
	}
	return r, v.Err()
}
