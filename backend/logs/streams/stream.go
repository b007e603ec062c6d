// Package streams owns /streams: the streams that messages are routed into,
// their rules, the outputs they forward to, and the rule matcher the message
// pipeline runs for every message and stream.
package streams

import (
	"encoding/json"
	"fmt"
	"strings"

	"github.com/loggate/loggate/router/api"
)

// Collection holds the stored streams. A stream's rules are embedded in its
// document, so that a stream and its rules change in one atomic write.
const Collection = "streams"

// The ids of the streams Graylog 4.0 creates at its first start
// (Stream.DEFAULT_STREAM_ID, DEFAULT_EVENTS_STREAM_ID,
// DEFAULT_SYSTEM_EVENTS_STREAM_ID).
const (
	DefaultStreamID      = "000000000000000000000001"
	EventsStreamID       = "000000000000000000000002"
	SystemEventsStreamID = "000000000000000000000003"
)

// IsBuiltin reports whether id is one of the streams loggate creates itself.
// They cannot be edited, deleted, paused, resumed, cloned or given rules.
func IsBuiltin(id string) bool {
	return id == DefaultStreamID || id == EventsStreamID || id == SystemEventsStreamID
}

// MatchingType says whether a message must match all of a stream's rules
// (AND) or any of them (OR).
type MatchingType string

// The matching types, spelled as Graylog's Stream.MatchingType enum.
const (
	MatchAnd MatchingType = "AND"
	MatchOr  MatchingType = "OR"
)

// ParseMatchingType reads a matching type as Java's valueOf does: exactly
// "AND" or "OR", case-sensitive.
func ParseMatchingType(s string) (MatchingType, error) {
	switch MatchingType(s) {
	case MatchAnd, MatchOr:
		return MatchingType(s), nil
	}
	return "", api.Errorf(api.Invalid, "Invalid matching type '%s' specified. Should be one of: [AND, OR]", s)
}

// AlertReceivers are the legacy alert receivers of a stream.
type AlertReceivers struct {
	Emails []string `json:"emails"`
	Users  []string `json:"users"`
}

// Stream is a stream as stored and as served in /streams/paginated (Graylog's
// StreamDTO, whose outputs are ids). The single-stream endpoints serve it as
// a StreamResponse, with the outputs resolved.
//
// A *Stream obtained from the Service is shared and must not be modified.
type Stream struct {
	ID            string       `json:"id"`
	CreatorUserID string       `json:"creator_user_id"`
	Title         string       `json:"title"`
	Description   *string      `json:"description"`
	MatchingType  MatchingType `json:"matching_type"`
	CreatedAt     api.Time     `json:"created_at"`
	// Disabled is true for a paused stream.
	Disabled bool   `json:"disabled"`
	Rules    []Rule `json:"rules"`
	// AlertConditions are Graylog's legacy alert conditions; loggate keeps
	// what it is given and creates none.
	AlertConditions []json.RawMessage `json:"alert_conditions"`
	AlertReceivers  AlertReceivers    `json:"alert_receivers"`
	ContentPack     *string           `json:"content_pack"`
	// Outputs are the ids of the outputs the stream forwards to.
	Outputs                        []string `json:"outputs"`
	IndexSetID                     string   `json:"index_set_id"`
	RemoveMatchesFromDefaultStream bool     `json:"remove_matches_from_default_stream"`
	IsDefault                      bool     `json:"is_default"`

	// Derived when the stream enters the snapshot: listings filter, search
	// and sort by these for every request.
	lowerTitle, lowerDesc, readPerm string
	matcher                         *Matcher
}

// Rule is a stream rule (Graylog's StreamRule): the stored form and the JSON
// of /streams/{streamid}/rules.
type Rule struct {
	ID          string   `json:"id"`
	Type        RuleType `json:"type"`
	Value       string   `json:"value"`
	Field       string   `json:"field"`
	Inverted    bool     `json:"inverted"`
	StreamID    string   `json:"stream_id"`
	Description *string  `json:"description"`
	ContentPack *string  `json:"content_pack,omitempty"`
}

// RuleType is the numeric type of a stream rule, numbered as Graylog's
// StreamRuleType.
type RuleType int

// The rule types.
const (
	RuleExact      RuleType = 1 // the field's value equals the rule's value
	RuleRegex      RuleType = 2 // the rule's regular expression is found in the field's value
	RuleGreater    RuleType = 3 // the field's value is a number greater than the rule's
	RuleSmaller    RuleType = 4 // the field's value is a number smaller than the rule's
	RulePresence   RuleType = 5 // the field is present and not empty
	RuleContains   RuleType = 6 // the field's value contains the rule's value
	RuleAlways     RuleType = 7 // every message matches
	RuleMatchInput RuleType = 8 // the message came in through the input named by the rule's value
)

// RuleTypeInfo describes a rule type in /streams/{streamid}/rules/types.
type RuleTypeInfo struct {
	ID        RuleType `json:"id"`
	Name      string   `json:"name"`
	ShortDesc string   `json:"short_desc"`
	LongDesc  string   `json:"long_desc"`
}

var ruleTypes = []RuleTypeInfo{
	{RuleExact, "EXACT", "match exactly", "match exactly"},
	{RuleRegex, "REGEX", "match regular expression", "match regular expression"},
	{RuleGreater, "GREATER", "greater than", "be greater than"},
	{RuleSmaller, "SMALLER", "smaller than", "be smaller than"},
	{RulePresence, "PRESENCE", "field presence", "be present"},
	{RuleContains, "CONTAINS", "contain", "contain"},
	{RuleAlways, "ALWAYS_MATCH", "always match", "always match"},
	{RuleMatchInput, "MATCH_INPUT", "match input", "match input"},
}

// RuleTypes returns every rule type, in Graylog's order.
func RuleTypes() []RuleTypeInfo { return append([]RuleTypeInfo(nil), ruleTypes...) }

// Valid reports whether t is a known rule type.
func (t RuleType) Valid() bool { return t >= RuleExact && t <= RuleMatchInput }

// String returns the enum name of t, such as "REGEX".
func (t RuleType) String() string {
	if t.Valid() {
		return ruleTypes[t-1].Name
	}
	return fmt.Sprintf("RuleType(%d)", int(t))
}

// derive fills the fields the snapshot needs and replaces missing lists by
// empty ones, which clients expect as [] rather than null.
func (s *Stream) derive() {
	if s.Rules == nil {
		s.Rules = []Rule{}
	}
	if s.Outputs == nil {
		s.Outputs = []string{}
	}
	if s.AlertConditions == nil {
		s.AlertConditions = []json.RawMessage{}
	}
	if s.AlertReceivers.Emails == nil {
		s.AlertReceivers.Emails = []string{}
	}
	if s.AlertReceivers.Users == nil {
		s.AlertReceivers.Users = []string{}
	}
	if s.MatchingType == "" {
		s.MatchingType = MatchAnd
	}
	s.lowerTitle = strings.ToLower(s.Title)
	s.lowerDesc = ""
	if s.Description != nil {
		s.lowerDesc = strings.ToLower(*s.Description)
	}
	s.readPerm = "streams:read:" + s.ID
	s.matcher = Compile(s)
}

// field returns a stream's value of a searchable or sortable listing field,
// already lower-cased: both the query and the sort ignore case.
func field(s *Stream, name string) string {
	if name == "description" {
		return s.lowerDesc
	}
	return s.lowerTitle
}

// ruleIndex returns the position of a rule in s.Rules, or -1.
func (s *Stream) ruleIndex(id string) int {
	for i := range s.Rules {
		if s.Rules[i].ID == id {
			return i
		}
	}
	return -1
}

func decodeStream(doc []byte) (*Stream, error) {
	var s Stream
	if err := json.Unmarshal(doc, &s); err != nil {
		return nil, fmt.Errorf("decode stream: %w", err)
	}
	return &s, nil
}
