// Package legacy owns the alerting API of Graylog 2.x–3.0 that 4.0 still
// serves: stream alert conditions (kept in the stream document), alarm
// callbacks, their types, and the alert listings; and Graylog 3.1's
// migration of conditions and callbacks to event definitions and
// notifications, which 4.0 runs at every start and loggate runs also when
// a client older than 3.1 changes a condition or a callback, so that its
// condition alerts at once.
package legacy

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"strconv"
	"time"

	"github.com/google/uuid"
	"go.mongodb.org/mongo-driver/bson/primitive"

	"github.com/loggate/loggate/backend/alerts/definitions"
	"github.com/loggate/loggate/backend/alerts/entity"
	"github.com/loggate/loggate/backend/alerts/notify"
	"github.com/loggate/loggate/backend/logs/streams"
	"github.com/loggate/loggate/backend/store"
	"github.com/loggate/loggate/router/api"
)

// Collections, as Graylog names them; migrated records which conditions
// and callbacks have been migrated, and to what.
const (
	CallbacksCollection = "alarmcallbackconfigurations"
	MigratedCollection  = "legacy_alert_migrations"
)

// Condition types.
const (
	MessageCount      = "message_count"
	FieldValue        = "field_value"
	FieldContentValue = "field_content_value"
	// Dummy is the type of the condition of sendDummyAlert's alert.
	Dummy = "dummy"
)

// Condition is a legacy alert condition as the stream document keeps it
// and AlertConditionSummary shows it.
type Condition struct {
	ID            string         `json:"id"`
	Type          string         `json:"type"`
	CreatorUserID string         `json:"creator_user_id"`
	CreatedAt     api.Time       `json:"created_at"`
	Parameters    map[string]any `json:"parameters"`
	InGrace       bool           `json:"in_grace"`
	Title         *string        `json:"title"`
}

// Callback is an alarm callback configuration.
type Callback struct {
	ID            string         `json:"id"`
	StreamID      string         `json:"stream_id"`
	Type          string         `json:"type"`
	Title         *string        `json:"title"`
	Configuration map[string]any `json:"configuration"`
	CreatedAt     api.Time       `json:"created_at"`
	CreatorUserID string         `json:"creator_user_id"`
}

// Streams is the part of the streams service the legacy API uses.
type Streams interface {
	All() []*streams.Stream
	Get(id string) (*streams.Stream, error)
	UpdateAlertConditions(ctx context.Context, id string, fn func([]json.RawMessage) ([]json.RawMessage, error)) (*streams.Stream, error)
}

// Service keeps conditions and callbacks and migrates them.
type Service struct {
	st        store.Store
	streams   Streams
	callbacks entity.Collection[Callback]
	defs      *definitions.Service
	notes     *notify.Service
	now       func() time.Time
	// checkInterval is alert_check_interval, the migrated definitions'
	// execute_every_ms.
	checkInterval time.Duration
}

// NewService returns the legacy alerting of st.
func NewService(st store.Store, ss Streams, defs *definitions.Service, notes *notify.Service, now func() time.Time, checkInterval time.Duration) *Service {
	return &Service{st: st, streams: ss, defs: defs, notes: notes, now: now, checkInterval: checkInterval,
		callbacks: entity.Collection[Callback]{St: st, Name: CallbacksCollection,
			NotFound: func(id string) error { return api.Errorf(api.NotFound, "Couldn't find alarm callback %s", id) },
			Title: func(c Callback) string {
				if c.Title == nil {
					return ""
				}
				return *c.Title
			}}}
}

// Conditions returns a stream's conditions.
func (s *Service) Conditions(streamID string) ([]Condition, error) {
	st, err := s.streams.Get(streamID)
	if err != nil {
		return nil, err
	}
	out := make([]Condition, 0, len(st.AlertConditions))
	for _, raw := range st.AlertConditions {
		var c Condition
		if json.Unmarshal(raw, &c) == nil && c.ID != "" {
			out = append(out, c)
		}
	}
	return out, nil
}

// required are the parameters each condition type needs.
var required = map[string][]string{
	MessageCount:      {"time", "threshold_type", "threshold", "grace", "backlog"},
	FieldValue:        {"field", "time", "threshold_type", "threshold", "type", "grace", "backlog"},
	FieldContentValue: {"field", "value", "grace", "backlog"},
}

// check refuses an unknown type or missing parameters, as Graylog does.
func check(typ string, params map[string]any) error {
	need, ok := required[typ]
	if !ok {
		return api.Errorf(api.Invalid, "Unable to load alert condition of type %s", typ)
	}
	for _, p := range need {
		if _, ok := params[p]; !ok {
			return api.Errorf(api.Invalid, "Invalid alert condition parameters")
		}
	}
	return nil
}

// AddCondition stores a new condition in a stream.
func (s *Service) AddCondition(ctx context.Context, streamID, typ string, title *string, params map[string]any, creator string) (Condition, error) {
	if err := check(typ, params); err != nil {
		return Condition{}, err
	}
	c := Condition{ID: uuid.NewString(), Type: typ, CreatorUserID: creator, CreatedAt: api.Time{Time: s.now().UTC()}, Parameters: params, Title: title}
	raw, err := json.Marshal(c)
	if err != nil {
		return c, err
	}
	_, err = s.streams.UpdateAlertConditions(ctx, streamID, func(cs []json.RawMessage) ([]json.RawMessage, error) {
		return append(cs, raw), nil
	})
	return c, err
}

// errNoCondition is the 404 of an unknown condition.
func errNoCondition(id string) error {
	return api.Errorf(api.NotFound, "Couldn't find alert condition %s", id)
}

// UpdateCondition replaces a condition's title and parameters; remove
// deletes it instead.
func (s *Service) UpdateCondition(ctx context.Context, streamID, id string, title *string, params map[string]any, remove bool) error {
	if !remove {
		conds, err := s.Conditions(streamID)
		if err != nil {
			return err
		}
		typ := ""
		for _, c := range conds {
			if c.ID == id {
				typ = c.Type
			}
		}
		if err := check(typ, params); typ != "" && err != nil {
			return err
		}
	}
	_, err := s.streams.UpdateAlertConditions(ctx, streamID, func(cs []json.RawMessage) ([]json.RawMessage, error) {
		for i, raw := range cs {
			var c Condition
			if json.Unmarshal(raw, &c) != nil || c.ID != id {
				continue
			}
			if remove {
				return append(cs[:i], cs[i+1:]...), nil
			}
			c.Title, c.Parameters = title, params
			b, err := json.Marshal(c)
			if err != nil {
				return nil, err
			}
			cs[i] = b
			return cs, nil
		}
		return nil, errNoCondition(id)
	})
	return err
}

// Callbacks returns the alarm callbacks of a stream, or of every stream
// when streamID is empty.
func (s *Service) Callbacks(ctx context.Context, streamID string) ([]Callback, error) {
	all, err := s.callbacks.All(ctx)
	if err != nil || streamID == "" {
		return all, err
	}
	var out []Callback
	for _, c := range all {
		if c.StreamID == streamID {
			out = append(out, c)
		}
	}
	return out, nil
}

// Callback returns one alarm callback.
func (s *Service) Callback(ctx context.Context, id string) (Callback, error) {
	return s.callbacks.Get(ctx, id)
}

// PutCallback stores an alarm callback (new when its id is empty).
func (s *Service) PutCallback(ctx context.Context, c Callback) (Callback, error) {
	if c.ID == "" {
		c.ID = primitive.NewObjectID().Hex()
		c.CreatedAt = api.Time{Time: s.now().UTC()}
	}
	if c.Configuration == nil {
		c.Configuration = map[string]any{}
	}
	return c, s.callbacks.Put(ctx, c.ID, c)
}

// DeleteCallback removes an alarm callback.
func (s *Service) DeleteCallback(ctx context.Context, id string) error {
	return s.callbacks.Delete(ctx, id)
}

// migrated remembers what a condition or callback became.
type migrated struct {
	Kind   string `json:"kind"` // "condition" or "callback"
	Target string `json:"target"`
}

// MigrateAll migrates every stream's conditions and callbacks not yet
// migrated, as Graylog's LegacyAlertConditionMigration does at every start.
func (s *Service) MigrateAll(ctx context.Context) error {
	var errs []error
	for _, st := range s.streams.All() {
		if err := s.MigrateStream(ctx, st.ID); err != nil {
			errs = append(errs, err)
		}
	}
	return errors.Join(errs...)
}

// MigrateStream migrates one stream's conditions and callbacks: each new
// callback becomes a legacy-alarm-callback-notification-v1, each new
// condition an aggregation-v1 definition notifying every migrated callback
// of the stream. What was migrated before is left as it is: it may have
// been edited as a definition or notification since.
func (s *Service) MigrateStream(ctx context.Context, streamID string) error {
	return s.migrateStream(ctx, streamID, false)
}

// SyncStream migrates one stream's conditions and callbacks as
// MigrateStream does, and rewrites what was migrated before from them: for
// a client older than 3.1 the conditions and callbacks are the only
// definitions, so that a change of one changes its alerts.
func (s *Service) SyncStream(ctx context.Context, streamID string) error {
	return s.migrateStream(ctx, streamID, true)
}

// Forget deletes what a deleted condition or callback was migrated to, and
// the record of the migration: a client older than 3.1 that deletes a
// callback stops its notifications, one that deletes a condition its
// alerts.
func (s *Service) Forget(ctx context.Context, id string) error {
	doc, err := s.st.Get(ctx, MigratedCollection, id)
	if errors.Is(err, store.ErrNotFound) {
		return nil
	}
	if err != nil {
		return err
	}
	var m migrated
	if err := json.Unmarshal(doc, &m); err != nil {
		return err
	}
	if m.Kind == "callback" {
		err = s.notes.Delete(ctx, m.Target)
	} else {
		err = s.defs.Delete(ctx, m.Target)
	}
	if err != nil && api.ErrorCode(err) != api.NotFound {
		return err
	}
	if err := s.st.Delete(ctx, MigratedCollection, id); err != nil && !errors.Is(err, store.ErrNotFound) {
		return err
	}
	return nil
}

func (s *Service) migrateStream(ctx context.Context, streamID string, rewrite bool) error {
	cbs, err := s.Callbacks(ctx, streamID)
	if err != nil {
		return err
	}
	var refs []definitions.NotificationRef
	for _, cb := range cbs {
		exists := func(id string) bool { _, err := s.notes.Get(ctx, id); return err == nil && !rewrite }
		target, err := s.migrate(ctx, cb.ID, "callback", exists, func(target string) error {
			title := "Untitled"
			if cb.Title != nil && *cb.Title != "" {
				title = *cb.Title
			}
			_, err := s.notes.Save(ctx, notify.Notification{ID: target, Title: title, Description: "Migrated legacy alarm callback",
				Config: notify.Config{Type: notify.TypeLegacy, CallbackType: cb.Type, Configuration: cb.Configuration}})
			return err
		})
		if err != nil {
			return err
		}
		refs = append(refs, definitions.NotificationRef{NotificationID: target, NotificationParameters: json.RawMessage("null")})
	}
	conds, err := s.Conditions(streamID)
	if err != nil {
		return err
	}
	exists := func(id string) bool { _, err := s.defs.Get(ctx, id); return err == nil && !rewrite }
	for _, c := range conds {
		target, err := s.migrate(ctx, c.ID, "condition", exists, func(target string) error {
			d, err := s.definition(streamID, c, refs)
			if err != nil {
				return err
			}
			d.ID = target
			_, err = s.defs.Save(ctx, d, true)
			return err
		})
		if err != nil {
			return err
		}
		// A callback added after the condition notifies it too, as if
		// both had been there at the migration.
		if err := s.defs.AddNotifications(ctx, target, refs); err != nil {
			return err
		}
	}
	return nil
}

// migrate runs do once per legacy id: the id of what it creates is
// recorded first, and do puts it under that id, so that a start
// interrupted between the two creates it again under the same id rather
// than a second one. exists says whether the target is there.
func (s *Service) migrate(ctx context.Context, id, kind string, exists func(target string) bool, do func(target string) error) (string, error) {
	var m migrated
	doc, err := s.st.Get(ctx, MigratedCollection, id)
	switch {
	case err == nil:
		if err := json.Unmarshal(doc, &m); err != nil {
			return "", err
		}
		if exists(m.Target) {
			return m.Target, nil
		}
	case errors.Is(err, store.ErrNotFound):
		m = migrated{Kind: kind, Target: primitive.NewObjectID().Hex()}
		b, _ := json.Marshal(m)
		if err := s.st.Insert(ctx, MigratedCollection, id, b); err != nil {
			if errors.Is(err, store.ErrConflict) {
				return s.migrate(ctx, id, kind, exists, do) // another run recorded it first
			}
			return "", err
		}
	default:
		return "", err
	}
	if err := do(m.Target); err != nil {
		return "", fmt.Errorf("migrating legacy %s %s: %w", kind, id, err)
	}
	return m.Target, nil
}

// definition is the event definition 3.1's migration makes of a condition.
func (s *Service) definition(streamID string, c Condition, refs []definitions.NotificationRef) (definitions.Definition, error) {
	p := c.Parameters
	title := "Untitled"
	if c.Title != nil && *c.Title != "" {
		title = *c.Title
	}
	query := str(p["query"])
	every := s.checkInterval.Milliseconds()
	window := int64(num(p["time"]) * 60000)
	seriesID := uuid.NewString()
	series := []definitions.Series{{ID: seriesID, Function: "count"}}
	op, threshold := ">", num(p["threshold"])
	switch c.Type {
	case MessageCount:
		if str(p["threshold_type"]) != "MORE" {
			op = "<"
		}
	case FieldValue:
		fn := map[string]string{"MEAN": "avg", "MIN": "min", "MAX": "max", "SUM": "sum", "STDDEV": "stddev"}[str(p["type"])]
		if fn == "" {
			return definitions.Definition{}, fmt.Errorf("field_value condition %s has type %q", c.ID, str(p["type"]))
		}
		field := str(p["field"])
		series[0].Function, series[0].Field = fn, &field
		if str(p["threshold_type"]) != "HIGHER" {
			op = "<"
		}
		threshold = float64(int64(threshold)) // Graylog truncates it to a long
	case FieldContentValue:
		q := str(p["field"]) + `:"` + str(p["value"]) + `"`
		if query != "" && query != "*" {
			q += " AND " + query
		}
		query, threshold, window = q, 0, every
	}
	if query == "*" {
		query = ""
	}
	cond := &definitions.Expr{Expr: op, Left: &definitions.Expr{Expr: "number-ref", Ref: seriesID},
		Right: &definitions.Expr{Expr: "number", Value: &threshold}}
	if refs == nil {
		refs = []definitions.NotificationRef{}
	}
	return definitions.Definition{Title: title, Description: "Migrated message count alert condition", Priority: 2, Alert: true,
		Config: definitions.Config{Type: definitions.TypeAggregation, Query: query, QueryParameters: []json.RawMessage{},
			Streams: []string{streamID}, GroupBy: []string{}, Series: series, Conditions: &definitions.Conditions{Expression: cond},
			SearchWithinMs: window, ExecuteEveryMs: every},
		FieldSpec: map[string]definitions.FieldSpec{}, KeySpec: []string{}, Notifications: refs,
		NotificationSettings: definitions.NotificationSettings{GracePeriodMs: int64(num(p["grace"]) * 60000), BacklogSize: int64(num(p["backlog"]))}}, nil
}

func str(v any) string {
	switch v := v.(type) {
	case string:
		return v
	case nil:
		return ""
	case float64:
		return strconv.FormatFloat(v, 'f', -1, 64)
	}
	return fmt.Sprint(v)
}

func num(v any) float64 {
	switch v := v.(type) {
	case float64:
		return v
	case string:
		f, _ := strconv.ParseFloat(v, 64)
		return f
	}
	return 0
}
