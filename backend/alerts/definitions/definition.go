// Package definitions owns Graylog 4.0's event definitions: the
// /events/definitions API, their storage, their scheduling as jobs of the
// scheduler, and the event processor that runs a definition's filter or
// aggregation over a window of stored messages and turns what it finds
// into events.
package definitions

import (
	"bytes"
	"encoding/json"
	"fmt"
	"math"
	"regexp"
	"slices"
	"strings"
	"time"

	"github.com/loggate/loggate/backend/logs/streams"
	"github.com/loggate/loggate/router/api"
)

// Collection holds the event definitions, as Graylog names it.
const Collection = "event_definitions"

// Type names, as Graylog spells them.
const (
	TypeAggregation   = "aggregation-v1"
	TypeExecutionJob  = "event-processor-execution-v1"
	TypePersist       = "persist-to-streams-v1"
	TypeTemplateField = "template-v1"
	TypeLookupField   = "lookup-v1"
)

// Definition is Graylog's EventDefinitionDto, as stored and answered.
type Definition struct {
	ID                   string               `json:"id"`
	Title                string               `json:"title"`
	Description          string               `json:"description"`
	Priority             int64                `json:"priority"`
	Alert                bool                 `json:"alert"`
	Config               Config               `json:"config"`
	FieldSpec            map[string]FieldSpec `json:"field_spec"`
	KeySpec              []string             `json:"key_spec"`
	NotificationSettings NotificationSettings `json:"notification_settings"`
	Notifications        []NotificationRef    `json:"notifications"`
	Storage              []Storage            `json:"storage"`
}

// Config is an aggregation-v1 config (AggregationEventProcessorConfig).
type Config struct {
	Type            string            `json:"type"`
	Query           string            `json:"query"`
	QueryParameters []json.RawMessage `json:"query_parameters"`
	Streams         []string          `json:"streams"`
	GroupBy         []string          `json:"group_by"`
	Series          []Series          `json:"series"`
	Conditions      *Conditions       `json:"conditions"`
	SearchWithinMs  int64             `json:"search_within_ms"`
	ExecuteEveryMs  int64             `json:"execute_every_ms"`
}

// Series is one aggregation function of a config.
type Series struct {
	ID       string  `json:"id"`
	Function string  `json:"function"`
	Field    *string `json:"field"`
}

// Conditions wrap the condition tree.
type Conditions struct {
	Expression *Expr `json:"expression"`
}

// FieldSpec is one custom event field: its providers run in order, the last
// value wins.
type FieldSpec struct {
	DataType  string     `json:"data_type"`
	Providers []Provider `json:"providers"`
}

// Provider computes a custom field: a JMTE template over the source
// message (template-v1), or the value of the source message's key_field in
// the lookup table table_name (lookup-v1).
type Provider struct {
	Type          string `json:"type"`
	Template      string `json:"template,omitempty"`
	RequireValues bool   `json:"require_values"`
	TableName     string `json:"table_name,omitempty"`
	KeyField      string `json:"key_field,omitempty"`
}

// NotificationSettings are a definition's grace period and backlog size.
type NotificationSettings struct {
	GracePeriodMs int64 `json:"grace_period_ms"`
	BacklogSize   int64 `json:"backlog_size"`
}

// NotificationRef names a notification a definition's events go to.
type NotificationRef struct {
	NotificationID         string          `json:"notification_id"`
	NotificationParameters json.RawMessage `json:"notification_parameters"`
}

// Storage is a storage handler; Graylog keeps exactly one, persisting to the
// events stream.
type Storage struct {
	Type    string   `json:"type"`
	Streams []string `json:"streams"`
}

// defaultStorage is the one storage handler every definition has.
func defaultStorage() []Storage {
	return []Storage{{Type: TypePersist, Streams: []string{streams.EventsStreamID}}}
}

// seriesFunctions are the aggregation functions of Graylog 4.0's
// AggregationFunction, and whether they need a field.
var seriesFunctions = map[string]bool{
	"avg": true, "card": true, "count": false, "max": true, "min": true, "stddev": true,
	"sum": true, "sumofsquares": true, "variance": true,
}

// Request bodies, with pointers where Graylog's builder requires a property
// and reports it missing by its Java name.
type definitionIn struct {
	ID                   *string                `json:"id"`
	Title                *string                `json:"title"`
	Description          *string                `json:"description"`
	Priority             *int64                 `json:"priority"`
	Alert                *bool                  `json:"alert"`
	Config               json.RawMessage        `json:"config"`
	FieldSpec            map[string]FieldSpec   `json:"field_spec"`
	KeySpec              []string               `json:"key_spec"`
	NotificationSettings *notificationSettingIn `json:"notification_settings"`
	Notifications        []NotificationRef      `json:"notifications"`
	Storage              []json.RawMessage      `json:"storage"`
}

type notificationSettingIn struct {
	GracePeriodMs *int64 `json:"grace_period_ms"`
	BacklogSize   *int64 `json:"backlog_size"`
}

type configIn struct {
	Type            string            `json:"type"`
	Query           *string           `json:"query"`
	QueryParameters []json.RawMessage `json:"query_parameters"`
	Streams         []string          `json:"streams"`
	GroupBy         []string          `json:"group_by"`
	Series          []Series          `json:"series"`
	Conditions      json.RawMessage   `json:"conditions"`
	SearchWithinMs  *int64            `json:"search_within_ms"`
	ExecuteEveryMs  *int64            `json:"execute_every_ms"`
}

// missing collects the required properties a body left out.
type missing []string

func (m *missing) check(present bool, name string) {
	if !present {
		*m = append(*m, name)
	}
}

func (m missing) err() error {
	if len(m) == 0 {
		return nil
	}
	return api.Errorf(api.Invalid, "Missing required properties: %s", strings.Join(m, " "))
}

// ParseDefinition reads a request body into a definition, as Graylog's
// Jackson model does: unknown properties and missing required ones are 400
// ApiErrors. ids makes series ids for series sent without one. An unknown
// config type is not an error here: Validate reports it.
func ParseDefinition(body []byte, ids func() string) (Definition, error) {
	var in definitionIn
	if err := api.DecodeBytes(body, &in, true); err != nil {
		return Definition{}, err
	}
	var m missing
	m.check(in.Title != nil, "title")
	m.check(in.Description != nil, "description")
	m.check(in.Priority != nil, "priority")
	m.check(in.Alert != nil, "alert")
	m.check(len(in.Config) > 0 && !bytes.Equal(in.Config, []byte("null")), "config")
	m.check(in.KeySpec != nil, "keySpec")
	m.check(in.NotificationSettings != nil, "notificationSettings")
	if in.NotificationSettings != nil {
		m.check(in.NotificationSettings.GracePeriodMs != nil, "gracePeriodMs")
	}
	if err := m.err(); err != nil {
		return Definition{}, err
	}
	d := Definition{Title: *in.Title, Description: *in.Description, Priority: *in.Priority, Alert: *in.Alert,
		FieldSpec: in.FieldSpec, KeySpec: in.KeySpec, Notifications: in.Notifications, Storage: defaultStorage(),
		NotificationSettings: NotificationSettings{GracePeriodMs: *in.NotificationSettings.GracePeriodMs}}
	if in.ID != nil {
		d.ID = *in.ID
	}
	if b := in.NotificationSettings.BacklogSize; b != nil {
		d.NotificationSettings.BacklogSize = *b
	}
	if d.FieldSpec == nil {
		d.FieldSpec = map[string]FieldSpec{}
	}
	if d.Notifications == nil {
		d.Notifications = []NotificationRef{}
	}
	for i := range d.Notifications {
		if len(d.Notifications[i].NotificationParameters) == 0 {
			d.Notifications[i].NotificationParameters = json.RawMessage("null")
		}
	}
	cfg, err := parseConfig(in.Config, ids)
	if err != nil {
		return Definition{}, err
	}
	d.Config = cfg
	return d, nil
}

// parseConfig reads an aggregation-v1 config; another type is kept by its
// name only, for Validate to refuse.
func parseConfig(raw json.RawMessage, ids func() string) (Config, error) {
	var t struct {
		Type string `json:"type"`
	}
	if err := json.Unmarshal(raw, &t); err != nil {
		return Config{}, api.Errorf(api.Invalid, "Unable to parse config: %v", err)
	}
	if t.Type != TypeAggregation {
		return Config{Type: t.Type}, nil
	}
	var in configIn
	if err := api.DecodeBytes(raw, &in, true); err != nil {
		return Config{}, err
	}
	var m missing
	m.check(in.Query != nil, "query")
	m.check(in.Streams != nil, "streams")
	m.check(in.GroupBy != nil, "groupBy")
	m.check(in.Series != nil, "series")
	m.check(in.SearchWithinMs != nil, "searchWithinMs")
	m.check(in.ExecuteEveryMs != nil, "executeEveryMs")
	if err := m.err(); err != nil {
		return Config{}, err
	}
	c := Config{Type: in.Type, Query: *in.Query, QueryParameters: in.QueryParameters, Streams: in.Streams, GroupBy: in.GroupBy,
		Series: in.Series, SearchWithinMs: *in.SearchWithinMs, ExecuteEveryMs: *in.ExecuteEveryMs}
	if c.QueryParameters == nil {
		c.QueryParameters = []json.RawMessage{}
	}
	for i := range c.Series {
		s := &c.Series[i]
		if s.ID == "" {
			s.ID = ids()
		}
		needsField, ok := seriesFunctions[strings.ToLower(s.Function)]
		if !ok {
			return Config{}, api.Errorf(api.Invalid, "Unknown aggregation function %q; known are avg, card, count, max, min, stddev, sum, sumofsquares and variance", s.Function)
		}
		s.Function = strings.ToLower(s.Function)
		if needsField && (s.Field == nil || *s.Field == "") {
			return Config{}, api.Errorf(api.Invalid, "Aggregation function %s needs a field", s.Function)
		}
	}
	if len(in.Conditions) > 0 && !bytes.Equal(in.Conditions, []byte("null")) {
		var cond struct {
			Expression json.RawMessage `json:"expression"`
		}
		if err := api.DecodeBytes(in.Conditions, &cond, true); err != nil {
			return Config{}, err
		}
		c.Conditions = &Conditions{}
		if len(cond.Expression) > 0 {
			e, err := ParseExpr(cond.Expression)
			if err != nil {
				return Config{}, api.Errorf(api.Invalid, "Invalid conditions: %v", err)
			}
			c.Conditions.Expression = e
		}
	}
	return c, nil
}

// Validation is Graylog's ValidationResult, the body of a 400 from the
// events API (and of every answer of /validate).
type Validation struct {
	Failed       bool                `json:"failed"`
	Errors       map[string][]string `json:"errors"`
	ErrorContext map[string]any      `json:"error_context"`
}

func (v *Validation) add(field, msg string) {
	v.Failed = true
	v.Errors[field] = append(v.Errors[field], msg)
}

func newValidation() *Validation {
	return &Validation{Errors: map[string][]string{}, ErrorContext: map[string]any{}}
}

// validKey is Graylog's message field name rule.
var validKey = regexp.MustCompile(`^[\w\-@.]+$`)

// Validate checks a definition as Graylog's EventDefinitionDto.validate
// does, config included.
func (d Definition) Validate() *Validation {
	v := d.Config.Validate()
	if d.Title == "" {
		v.add("title", "Event Definition title cannot be empty.")
	}
	for name := range d.FieldSpec {
		if !validKey.MatchString(name) {
			v.add("field_spec", fmt.Sprintf("Event Definition field_spec contains invalid message field \"%s\"", name))
		}
	}
	for _, k := range d.KeySpec {
		if _, ok := d.FieldSpec[k]; !ok {
			v.add("key_spec", "Event Definition key_spec can only contain fields defined in field_spec.")
			break
		}
	}
	return v
}

// Validate checks a config as AggregationEventProcessorConfig.validate does.
// MaxIntervalMs is the longest search_within_ms and execute_every_ms, in
// milliseconds: half of what a time.Duration holds.
const MaxIntervalMs = math.MaxInt64 / 2 / int64(time.Millisecond)

func (c Config) Validate() *Validation {
	v := newValidation()
	if c.Type != TypeAggregation {
		v.add("config", "Event Definition config type cannot be empty.")
		return v
	}
	if c.SearchWithinMs <= 0 {
		v.add("search_within_ms", "Filter & Aggregation search_within_ms must be greater than 0.")
	}
	if c.ExecuteEveryMs <= 0 {
		v.add("execute_every_ms", "Filter & Aggregation execute_every_ms must be greater than 0.")
	}
	// Windows are moved in time.Duration, nanoseconds: past about 146
	// years, a window and a hop added together would wrap around and
	// move the next window into the past, due again at once.
	if c.SearchWithinMs > MaxIntervalMs {
		v.add("search_within_ms", fmt.Sprintf("Filter & Aggregation search_within_ms must be at most %d (146 years).", MaxIntervalMs))
	}
	if c.ExecuteEveryMs > MaxIntervalMs {
		v.add("execute_every_ms", fmt.Sprintf("Filter & Aggregation execute_every_ms must be at most %d (146 years).", MaxIntervalMs))
	}
	hasConditions := c.Conditions != nil && c.Conditions.Expression != nil
	switch {
	case len(c.GroupBy) > 0 && (len(c.Series) == 0 || !hasConditions):
		if len(c.Series) == 0 {
			v.add("series", "Aggregation with group_by must also contain series")
		}
		if !hasConditions {
			v.add("conditions", "Aggregation with group_by must also contain conditions")
		}
	case hasConditions && len(c.Series) == 0:
		v.add("series", "Aggregation with conditions must also contain series")
	case len(c.Series) > 0 && !hasConditions:
		v.add("conditions", "Aggregation with series must also contain conditions")
	}
	if hasConditions {
		for _, ref := range c.Conditions.Expression.Refs() {
			if !slices.ContainsFunc(c.Series, func(s Series) bool { return s.ID == ref }) {
				v.add("conditions", fmt.Sprintf("Condition refers to series %q, which the config does not have", ref))
			}
		}
	}
	return v
}

// RequiredPermissions are what a caller needs to create or change a
// definition with this config, besides eventdefinitions:*.
func (c Config) RequiredPermissions() []string {
	if len(c.Streams) == 0 {
		return []string{"streams:read"}
	}
	out := make([]string, len(c.Streams))
	for i, s := range c.Streams {
		out[i] = "streams:read:" + s
	}
	return out
}

// IsAggregation reports whether the config aggregates (has series) rather
// than filters.
func (c Config) IsAggregation() bool { return len(c.Series) > 0 }
