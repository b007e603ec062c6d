package indexsets

import (
	"encoding/json"
	"slices"
	"strings"
	"time"

	"github.com/loggate/loggate/router/api"
)

// CreateRequest is the body of POST /system/indices/index_sets, Graylog's
// IndexSetSummary read strictly (unknown properties are refused). Pointers
// tell an absent property from a zero one: absent optional properties take
// IndexSetConfig's defaults rather than Java's zero values.
type CreateRequest struct {
	// ID and Default are part of the summary Graylog reads here; both are
	// ignored: the server assigns ids, and PUT …/default moves the default.
	ID                              *string         `json:"id"`
	Default                         *bool           `json:"default"`
	Title                           *string         `json:"title"`
	Description                     *string         `json:"description"`
	Writable                        *bool           `json:"writable"`
	IndexPrefix                     *string         `json:"index_prefix"`
	Shards                          *int32          `json:"shards"`
	Replicas                        *int32          `json:"replicas"`
	RotationStrategyClass           *string         `json:"rotation_strategy_class"`
	RotationStrategy                json.RawMessage `json:"rotation_strategy"`
	RetentionStrategyClass          *string         `json:"retention_strategy_class"`
	RetentionStrategy               json.RawMessage `json:"retention_strategy"`
	CreationDate                    *api.Time       `json:"creation_date"`
	IndexAnalyzer                   *string         `json:"index_analyzer"`
	IndexOptimizationMaxNumSegments *int32          `json:"index_optimization_max_num_segments"`
	IndexOptimizationDisabled       *bool           `json:"index_optimization_disabled"`
	FieldTypeRefreshInterval        *int64          `json:"field_type_refresh_interval"`
	MaxResultWindow                 *int            `json:"max_result_window"`
	IndexTemplateType               *string         `json:"index_template_type"`
}

// IndexSet validates the request and returns the index set it describes,
// without an id. now is the creation date when the request has none. Every
// failing property is reported at once, in a *api.ValidationError. Prefix
// conflicts with stored index sets are the service's to find.
func (r CreateRequest) IndexSet(now time.Time) (IndexSet, error) {
	verr := &api.ValidationError{}
	s := IndexSet{
		Description:                     r.Description,
		Writable:                        deref(r.Writable, true),
		Shards:                          int(deref(r.Shards, 0)),
		Replicas:                        int(deref(r.Replicas, 0)),
		CreationDate:                    api.Time{Time: now.UTC().Truncate(time.Millisecond)},
		IndexAnalyzer:                   deref(r.IndexAnalyzer, "standard"),
		IndexOptimizationMaxNumSegments: int(deref(r.IndexOptimizationMaxNumSegments, 1)),
		IndexOptimizationDisabled:       deref(r.IndexOptimizationDisabled, false),
		FieldTypeRefreshInterval:        deref(r.FieldTypeRefreshInterval, 5000),
		MaxResultWindow:                 deref(r.MaxResultWindow, 0),
	}
	if r.CreationDate != nil && !r.CreationDate.IsZero() {
		// MongoDB, and so Graylog, keeps milliseconds.
		s.CreationDate = api.Time{Time: r.CreationDate.UTC().Truncate(time.Millisecond)}
	}
	s.Title = deref(r.Title, "")
	switch p := deref(r.IndexPrefix, ""); {
	case r.IndexPrefix == nil:
		verr.Add("index_prefix", "must not be null")
	case !validPrefix.MatchString(p):
		verr.Add("index_prefix", "must match %q", prefixPattern)
	default:
		s.IndexPrefix = p
		s.IndexTemplateName = p + "-template"
	}
	if t := r.IndexTemplateType; t != nil {
		if !slices.Contains(templateTypes, *t) {
			verr.Add("index_template_type", "Unknown index template type %q; use one of %s", *t, strings.Join(templateTypes, ", "))
		}
		s.IndexTemplateType = t
	}
	s.RotationStrategyClass, s.RotationStrategy = readStrategy(verr, "rotation", rotations, r.RotationStrategyClass, r.RotationStrategy)
	s.RetentionStrategyClass, s.RetentionStrategy = readStrategy(verr, "retention", retentions, r.RetentionStrategyClass, r.RetentionStrategy)
	check(verr, s)
	if err := verr.Err(); err != nil {
		return IndexSet{}, err
	}
	return s, nil
}

// UpdateRequest is the body of PUT /system/indices/index_sets/{id},
// Graylog's IndexSetUpdateRequest, read leniently as Graylog does. It has no
// index_prefix, index_analyzer, creation_date or template type: those never
// change. An absent property keeps the stored value.
type UpdateRequest struct {
	Title                           *string         `json:"title"`
	Description                     *string         `json:"description"`
	Writable                        *bool           `json:"writable"`
	Shards                          *int32          `json:"shards"`
	Replicas                        *int32          `json:"replicas"`
	RotationStrategyClass           *string         `json:"rotation_strategy_class"`
	RotationStrategy                json.RawMessage `json:"rotation_strategy"`
	RetentionStrategyClass          *string         `json:"retention_strategy_class"`
	RetentionStrategy               json.RawMessage `json:"retention_strategy"`
	IndexOptimizationMaxNumSegments *int32          `json:"index_optimization_max_num_segments"`
	IndexOptimizationDisabled       *bool           `json:"index_optimization_disabled"`
	FieldTypeRefreshInterval        *int64          `json:"field_type_refresh_interval"`
	MaxResultWindow                 *int            `json:"max_result_window"`
}

// Apply validates the request and returns old changed by it.
func (r UpdateRequest) Apply(old IndexSet) (IndexSet, error) {
	verr := &api.ValidationError{}
	s := old
	s.Title = deref(r.Title, old.Title)
	if r.Description != nil {
		s.Description = r.Description
	}
	s.Writable = deref(r.Writable, old.Writable)
	s.Shards = int(deref(r.Shards, int32(old.Shards)))
	s.Replicas = int(deref(r.Replicas, int32(old.Replicas)))
	s.IndexOptimizationMaxNumSegments = int(deref(r.IndexOptimizationMaxNumSegments, int32(old.IndexOptimizationMaxNumSegments)))
	s.IndexOptimizationDisabled = deref(r.IndexOptimizationDisabled, old.IndexOptimizationDisabled)
	s.FieldTypeRefreshInterval = deref(r.FieldTypeRefreshInterval, old.FieldTypeRefreshInterval)
	s.MaxResultWindow = deref(r.MaxResultWindow, old.MaxResultWindow)
	// A strategy changes as a whole: class and configuration together, or
	// either alone when it still matches the other.
	if r.RotationStrategyClass != nil || !isNull(r.RotationStrategy) {
		class, raw := orStored(r.RotationStrategyClass, old.RotationStrategyClass, r.RotationStrategy, old.RotationStrategy)
		s.RotationStrategyClass, s.RotationStrategy = readStrategy(verr, "rotation", rotations, class, raw)
	}
	if r.RetentionStrategyClass != nil || !isNull(r.RetentionStrategy) {
		class, raw := orStored(r.RetentionStrategyClass, old.RetentionStrategyClass, r.RetentionStrategy, old.RetentionStrategy)
		s.RetentionStrategyClass, s.RetentionStrategy = readStrategy(verr, "retention", retentions, class, raw)
	}
	check(verr, s)
	if err := verr.Err(); err != nil {
		return IndexSet{}, err
	}
	return s, nil
}

// orStored fills the half of a strategy the request left out from the stored
// index set.
func orStored[C any](class *string, oldClass string, raw json.RawMessage, oldConfig C) (*string, json.RawMessage) {
	if class == nil {
		class = &oldClass
	}
	if isNull(raw) {
		raw, _ = api.Marshal(oldConfig) // plain structs always marshal
	}
	return class, raw
}

// check records the failures of the constraints Graylog's models and
// IndexSetValidator put on every index set, created or updated.
func check(verr *api.ValidationError, s IndexSet) {
	if strings.TrimSpace(s.Title) == "" {
		verr.Add("title", "must not be blank")
	}
	if s.Shards < 1 {
		verr.Add("shards", "must be greater than or equal to 1")
	}
	if s.Replicas < 0 {
		verr.Add("replicas", "must be greater than or equal to 0")
	}
	if strings.TrimSpace(s.IndexAnalyzer) == "" {
		verr.Add("index_analyzer", "must not be blank")
	}
	if s.IndexOptimizationMaxNumSegments < 1 {
		verr.Add("index_optimization_max_num_segments", "must be greater than or equal to 1")
	}
	if s.MaxResultWindow < 0 || s.MaxResultWindow > maxResultWindow {
		verr.Add("max_result_window", "must be between 1 and %d, or 0 for the default of 10000", maxResultWindow)
	}
	if s.FieldTypeRefreshInterval < minRefreshInterval {
		verr.Add("field_type_refresh_interval", "Index field_type_refresh_interval %q is too short. It must be 1 second or longer.", jodaDuration(s.FieldTypeRefreshInterval))
	}
}

// jodaDuration writes milliseconds as Joda-Time's Duration.toString does
// (PT5S, PT0.500S, PT-1S), for IndexSetValidator's message.
func jodaDuration(ms int64) string {
	return "PT" + seconds(int(ms/1000), int(ms%1000)) + "S"
}

func deref[T any](p *T, def T) T {
	if p == nil {
		return def
	}
	return *p
}
