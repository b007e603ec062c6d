package indexsets

import (
	"encoding/json"
	"fmt"
	"maps"
	"math"
	"slices"
	"strings"

	"github.com/loggate/loggate/router/api"
)

// Rotation and retention strategy classes, by Graylog's Java class names:
// clients send and read these exact strings.
const (
	MessageCountRotation = "org.graylog2.indexer.rotation.strategies.MessageCountRotationStrategy"
	SizeBasedRotation    = "org.graylog2.indexer.rotation.strategies.SizeBasedRotationStrategy"
	TimeBasedRotation    = "org.graylog2.indexer.rotation.strategies.TimeBasedRotationStrategy"

	DeletionRetention = "org.graylog2.indexer.retention.strategies.DeletionRetentionStrategy"
	ClosingRetention  = "org.graylog2.indexer.retention.strategies.ClosingRetentionStrategy"
	NoopRetention     = "org.graylog2.indexer.retention.strategies.NoopRetentionStrategy"
)

// configType is the class of a strategy's configuration, which Graylog
// writes as the config's "type" (Jackson's class type id).
func configType(class string) string { return class + "Config" }

// RotationConfig is a rotation strategy's configuration. Type is the config
// class and says which of the other fields applies: MaxDocsPerIndex
// (message count), MaxSize in bytes (size based) or RotationPeriod (time
// based).
type RotationConfig struct {
	Type            string  `json:"type"`
	MaxDocsPerIndex int     `json:"max_docs_per_index,omitempty"`
	MaxSize         int64   `json:"max_size,omitempty"`
	RotationPeriod  *Period `json:"rotation_period,omitempty"`
}

// RetentionConfig is a retention strategy's configuration: how many indices
// an index set keeps before the strategy deletes, closes or (noop) ignores
// the oldest.
type RetentionConfig struct {
	Type               string `json:"type"`
	MaxNumberOfIndices int    `json:"max_number_of_indices"`
}

// property is one configuration property of a strategy, for its JSON schema.
type property struct {
	name   string
	schema map[string]any
}

// strategy describes one rotation or retention strategy: its class, its
// default configuration (what GET …/strategies shows) and how a client's
// configuration is read.
type strategy[C any] struct {
	class    string
	defaults C
	props    []property
	// decode reads a configuration whose type is already known to match;
	// its errors are the client's, worded for the config field.
	decode func(raw []byte) (C, error)
}

// integer is the schema of a count that must be at least one.
var integer = map[string]any{"type": "integer", "minimum": 1}

// rotations are the rotation strategies Graylog 4.0 ships, with its defaults
// (elasticsearch_max_docs_per_index, …_max_size_per_index, …_max_time_per_index).
var rotations = byClass(
	strategy[RotationConfig]{
		class:    MessageCountRotation,
		defaults: RotationConfig{Type: configType(MessageCountRotation), MaxDocsPerIndex: 20_000_000},
		props:    []property{{"max_docs_per_index", integer}},
		decode: func(raw []byte) (RotationConfig, error) {
			var c struct {
				Type string `json:"type"`
				Max  *int32 `json:"max_docs_per_index"`
			}
			if err := decodeConfig(raw, &c); err != nil {
				return RotationConfig{}, err
			}
			n, err := atLeastOne("max_docs_per_index", c.Max)
			return RotationConfig{Type: c.Type, MaxDocsPerIndex: int(n)}, err
		},
	},
	strategy[RotationConfig]{
		class:    SizeBasedRotation,
		defaults: RotationConfig{Type: configType(SizeBasedRotation), MaxSize: 1 << 30},
		props:    []property{{"max_size", integer}},
		decode: func(raw []byte) (RotationConfig, error) {
			var c struct {
				Type string `json:"type"`
				Max  *int64 `json:"max_size"`
			}
			if err := decodeConfig(raw, &c); err != nil {
				return RotationConfig{}, err
			}
			n, err := atLeastOne("max_size", c.Max)
			return RotationConfig{Type: c.Type, MaxSize: n}, err
		},
	},
	strategy[RotationConfig]{
		class:    TimeBasedRotation,
		defaults: RotationConfig{Type: configType(TimeBasedRotation), RotationPeriod: ptr(Period{Days: 1})},
		props:    []property{{"rotation_period", map[string]any{"type": "string", "format": "duration"}}},
		decode: func(raw []byte) (RotationConfig, error) {
			var c struct {
				Type   string  `json:"type"`
				Period *string `json:"rotation_period"`
			}
			if err := decodeConfig(raw, &c); err != nil {
				return RotationConfig{}, err
			}
			if c.Period == nil {
				return RotationConfig{}, fmt.Errorf("rotation_period must not be null")
			}
			p, err := ParsePeriod(*c.Period)
			if err != nil {
				return RotationConfig{}, fmt.Errorf("invalid rotation_period: %w", err)
			}
			if !p.Positive() {
				return RotationConfig{}, fmt.Errorf("invalid rotation_period %q: the period must be longer than zero, such as P1D or PT1H", *c.Period)
			}
			return RotationConfig{Type: c.Type, RotationPeriod: &p}, nil
		},
	},
)

// retentions are the retention strategies Graylog 4.0 ships. The noop
// strategy's default keeps "all" indices, which Graylog writes as Java's
// Integer.MAX_VALUE.
var retentions = byClass(
	retention(DeletionRetention, 20),
	retention(ClosingRetention, 20),
	retention(NoopRetention, math.MaxInt32),
)

func retention(class string, keep int) strategy[RetentionConfig] {
	return strategy[RetentionConfig]{
		class:    class,
		defaults: RetentionConfig{Type: configType(class), MaxNumberOfIndices: keep},
		props:    []property{{"max_number_of_indices", integer}},
		decode: func(raw []byte) (RetentionConfig, error) {
			var c struct {
				Type string `json:"type"`
				Max  *int32 `json:"max_number_of_indices"`
			}
			if err := decodeConfig(raw, &c); err != nil {
				return RetentionConfig{}, err
			}
			n, err := atLeastOne("max_number_of_indices", c.Max)
			return RetentionConfig{Type: c.Type, MaxNumberOfIndices: int(n)}, err
		},
	}
}

func byClass[C any](list ...strategy[C]) map[string]strategy[C] {
	m := make(map[string]strategy[C], len(list))
	for _, s := range list {
		m[s.class] = s
	}
	return m
}

// decodeConfig reads a configuration strictly: Graylog's config classes
// refuse properties they do not have.
func decodeConfig(raw []byte, v any) error {
	if err := api.DecodeBytes(raw, v, true); err != nil {
		return fmt.Errorf("%s", strings.TrimPrefix(err.Error(), "Unable to parse JSON: "))
	}
	return nil
}

func atLeastOne[N int32 | int64](name string, v *N) (N, error) {
	switch {
	case v == nil:
		return 0, fmt.Errorf("%s must not be null", name)
	case *v < 1:
		return 0, fmt.Errorf("%s must be greater than or equal to 1", name)
	}
	return *v, nil
}

// readStrategy reads a strategy class and its configuration from a request:
// the class must be one of known, and the configuration's type the class's
// config class. Failures are recorded on the two fields in verr; kind
// ("rotation" or "retention") words the messages.
func readStrategy[C any](verr *api.ValidationError, kind string, known map[string]strategy[C], class *string, raw json.RawMessage) (string, C) {
	var zero C
	classField, configField := kind+"_strategy_class", kind+"_strategy"
	if class == nil {
		verr.Add(classField, "must not be null")
	}
	if isNull(raw) {
		verr.Add(configField, "must not be null")
	}
	if class == nil || isNull(raw) {
		return "", zero
	}
	s, ok := known[*class]
	if !ok {
		verr.Add(classField, "Unknown %s strategy %q; use one of %s", kind, *class, strings.Join(slices.Sorted(maps.Keys(known)), ", "))
		return "", zero
	}
	var typed struct {
		Type *string `json:"type"`
	}
	if err := json.Unmarshal(raw, &typed); err != nil {
		verr.Add(configField, "must be a JSON object with a type, such as %s", s.exampleJSON())
		return "", zero
	}
	want := configType(s.class)
	switch {
	case typed.Type == nil:
		verr.Add(configField, "Missing type id property 'type'; use %q", want)
		return "", zero
	case *typed.Type != want:
		verr.Add(configField, "Config type %q does not belong to %s strategy %s; use %q", *typed.Type, kind, s.class, want)
		return "", zero
	}
	cfg, err := s.decode(raw)
	if err != nil {
		verr.Add(configField, "%s", err.Error())
		return "", zero
	}
	return s.class, cfg
}

func isNull(raw json.RawMessage) bool {
	return len(raw) == 0 || string(raw) == "null"
}

func (s strategy[C]) exampleJSON() string {
	b, _ := api.Marshal(s.defaults) // plain structs always marshal
	return string(b)
}

// description is Graylog's RotationStrategyDescription and
// RetentionStrategyDescription.
type description struct {
	Type          string         `json:"type"`
	DefaultConfig any            `json:"default_config"`
	JSONSchema    map[string]any `json:"json_schema"`
}

// describe returns the strategy's description with a JSON schema of its
// configuration in the shape Jackson's schema generator gives Graylog.
func (s strategy[C]) describe() description {
	props := map[string]any{"type": map[string]any{"type": "string"}}
	for _, p := range s.props {
		props[p.name] = p.schema
	}
	id := "urn:jsonschema:" + strings.ReplaceAll(configType(s.class), ".", ":")
	return description{
		Type:          s.class,
		DefaultConfig: s.defaults,
		JSONSchema:    map[string]any{"type": "object", "id": id, "properties": props},
	}
}

// descriptions lists known's descriptions sorted by class: Graylog answers
// from a hash set, in no order a client could rely on.
func descriptions[C any](known map[string]strategy[C]) []description {
	out := make([]description, 0, len(known))
	for _, class := range slices.Sorted(maps.Keys(known)) {
		out = append(out, known[class].describe())
	}
	return out
}
