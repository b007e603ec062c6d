package legacy

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"math"
	"strconv"
	"strings"
	"time"

	"github.com/google/uuid"
	"go.mongodb.org/mongo-driver/bson/primitive"

	"github.com/loggate/loggate/backend/alerts/definitions"
	"github.com/loggate/loggate/backend/alerts/events"
	"github.com/loggate/loggate/backend/alerts/notify"
	"github.com/loggate/loggate/backend/analysis/search"
	"github.com/loggate/loggate/backend/analysis/search/query"
	"github.com/loggate/loggate/backend/logs/messages"
	"github.com/loggate/loggate/backend/logs/streams"
	"github.com/loggate/loggate/router/api"
)

// Searcher runs the checks' searches; *search.Service is one.
type Searcher interface {
	Aggregate(ctx context.Context, r search.Request, a search.Aggregation) (*search.Aggregated, error)
	Scan(ctx context.Context, r search.Request, window int) (messages.Cursor, query.Node, error)
}

// Deliverer runs an alarm callback; *notify.Deliverer is one.
type Deliverer interface {
	Deliver(ctx context.Context, n notify.Notification, m notify.Model) error
}

// Checker evaluates the legacy stream alert conditions, as Graylog 3.3's
// alert scanner did and 4.0 still does with enable_legacy_alerts: every
// alert_check_interval, each condition of each running stream that is not
// in its grace period is checked over its last time range. A condition
// that holds opens an alert and runs the stream's alarm callbacks, unless
// its last alert is still open (then the callbacks run again only with
// repeat_notifications); one that no longer holds resolves its open
// alert.
type Checker struct {
	s       *Service
	search  Searcher
	deliver Deliverer
	onError func(error)
}

// NewChecker returns the checker of s's conditions.
func NewChecker(s *Service, se Searcher, d Deliverer, onError func(error)) *Checker {
	return &Checker{s: s, search: se, deliver: d, onError: onError}
}

// Run checks every alert_check_interval until ctx ends, while leader says
// this node leads.
func (c *Checker) Run(ctx context.Context, leader func() bool) {
	every := c.s.checkInterval
	if every <= 0 {
		every = time.Minute // Graylog's default alert_check_interval
	}
	t := time.NewTicker(every)
	defer t.Stop()
	for {
		select {
		case <-ctx.Done():
			return
		case <-t.C:
		}
		if leader() {
			if err := c.Check(ctx); err != nil && ctx.Err() == nil && c.onError != nil {
				c.onError(err)
			}
		}
	}
}

// Check checks every condition once, now.
func (c *Checker) Check(ctx context.Context) error {
	var errs []error
	for _, st := range c.s.streams.All() {
		if st.Disabled {
			continue
		}
		conds, err := c.s.Conditions(st.ID)
		if err != nil {
			errs = append(errs, err)
			continue
		}
		for _, cond := range conds {
			if err := c.check(ctx, st, cond); err != nil {
				errs = append(errs, fmt.Errorf("legacy alert condition %s of stream %s: %w", cond.ID, st.ID, err))
			}
		}
	}
	return errors.Join(errs...)
}

// check runs one condition, as AlertScanner.checkAlertCondition.
func (c *Checker) check(ctx context.Context, st *streams.Stream, cond Condition) error {
	now := c.s.now().UTC().Truncate(time.Millisecond)
	last, err := c.s.lastAlert(ctx, st.ID, cond.ID)
	if err != nil {
		return err
	}
	grace := time.Duration(num(cond.Parameters["grace"]) * float64(time.Minute))
	if last != nil && grace > 0 && now.Before(last.TriggeredAt.Add(grace)) {
		return nil // in grace: not checked at all
	}
	res, err := c.run(ctx, st.ID, cond, now)
	if err != nil {
		return err
	}
	open := last != nil && last.ResolvedAt == nil
	switch {
	case !res.triggered && open:
		last.ResolvedAt = &api.Time{Time: now}
		return c.s.putAlert(ctx, *last)
	case !res.triggered:
		return nil
	case open:
		if repeat, _ := cond.Parameters["repeat_notifications"].(bool); repeat {
			return c.notify(ctx, st, cond, *last, res)
		}
		return nil
	}
	a := Alert{ID: primitive.NewObjectID().Hex(), ConditionID: cond.ID, StreamID: st.ID, Description: res.description,
		ConditionParameters: cond.Parameters, TriggeredAt: api.Time{Time: now}, IsInterval: true}
	if a.ConditionParameters == nil {
		a.ConditionParameters = map[string]any{}
	}
	if err := c.s.putAlert(ctx, a); err != nil {
		return err
	}
	return c.notify(ctx, st, cond, a, res)
}

// result is a condition's check result.
type result struct {
	triggered   bool
	description string
	backlog     []messages.Hit
}

// run checks a condition over the time range it looks at, ending now.
func (c *Checker) run(ctx context.Context, streamID string, cond Condition, now time.Time) (result, error) {
	p := cond.Parameters
	q := str(p["query"])
	if q == "*" {
		q = ""
	}
	window := time.Duration(num(p["time"]) * float64(time.Minute))
	grace := strconv.FormatFloat(num(p["grace"]), 'f', -1, 64)
	series := search.Series{Type: "count"}
	switch cond.Type {
	case FieldValue:
		fn := map[string]string{"MEAN": "avg", "MIN": "min", "MAX": "max", "SUM": "sum", "STDDEV": "stddev"}[str(p["type"])]
		if fn == "" {
			return result{}, fmt.Errorf("field_value condition has type %q", str(p["type"]))
		}
		series = search.Series{Type: fn, Field: str(p["field"])}
	case FieldContentValue:
		match := str(p["field"]) + `:"` + str(p["value"]) + `"`
		if q != "" {
			match += " AND " + q
		}
		q, window = match, c.s.checkInterval
	}
	r := search.Request{Query: q, Range: search.TimeRange{From: now.Add(-window), To: now}, Streams: []string{streamID}}
	sys := definitions.SystemContext(ctx)
	agg, err := c.search.Aggregate(sys, r, search.Aggregation{Series: []search.Series{series}})
	if err != nil {
		return result{}, err
	}
	var value float64
	if agg.Root != nil && len(agg.Root.Values) == 1 {
		value = definitions.SeriesFloat(agg.Root.Values[0])
	}
	threshold := num(p["threshold"])
	var out result
	switch cond.Type {
	case MessageCount:
		count := int64(value)
		more := str(p["threshold_type"]) == "MORE"
		out.triggered = more && float64(count) > threshold || !more && float64(count) < threshold
		out.description = fmt.Sprintf("Stream had %d messages in the last %s minutes with trigger condition %s than %s messages. (Current grace time: %s minutes)",
			count, str(p["time"]), strings.ToLower(str(p["threshold_type"])), str(p["threshold"]), grace)
	case FieldValue:
		higher := str(p["threshold_type"]) == "HIGHER"
		out.triggered = !math.IsNaN(value) && (higher && value > threshold || !higher && value < threshold)
		out.description = fmt.Sprintf("Field %s had a %s of %s in the last %s minutes with trigger condition %s than %s. (Current grace time: %s minutes)",
			str(p["field"]), str(p["type"]), javaDecimal(value), str(p["time"]), str(p["threshold_type"]), javaDecimal(threshold), grace)
	case FieldContentValue:
		out.triggered = value > 0
		out.description = fmt.Sprintf("Stream received messages matching <%s> (Current grace time: %s minutes)", q, grace)
	}
	if n := int(num(p["backlog"])); out.triggered && n > 0 {
		r.Limit = n
		cur, _, err := c.search.Scan(sys, r, 0)
		if err != nil {
			return out, err
		}
		defer cur.Close()
		for h, ok := cur.Next(); ok && len(out.backlog) < n; h, ok = cur.Next() {
			out.backlog = append(out.backlog, h)
		}
		if err := cur.Err(); err != nil {
			return out, err
		}
	}
	return out, nil
}

// Doc is the condition as Graylog 3.3 wrote an AlertCondition in JSON: in
// a check result and in what alarm callbacks get.
func (c Condition) Doc() map[string]any {
	p := c.Parameters
	if p == nil {
		p = map[string]any{}
	}
	grace, backlog := int(num(p["grace"])), int(num(p["backlog"]))
	repeat, _ := p["repeat_notifications"].(bool)
	var desc string
	switch c.Type {
	case MessageCount:
		desc = fmt.Sprintf("time: %s, threshold_type: %s, threshold: %s, grace: %d, repeat notifications: %t",
			str(p["time"]), strings.ToLower(str(p["threshold_type"])), str(p["threshold"]), grace, repeat)
	case FieldValue:
		desc = fmt.Sprintf("time: %s, field: %s, check type: %s, threshold_type: %s, threshold: %s, grace: %d, repeat notifications: %t",
			str(p["time"]), str(p["field"]), strings.ToLower(str(p["type"])), strings.ToLower(str(p["threshold_type"])),
			javaDecimal(num(p["threshold"])), grace, repeat)
	case FieldContentValue:
		desc = fmt.Sprintf("field: %s, value: %s, grace: %d, repeat notifications: %t", str(p["field"]), str(p["value"]), grace, repeat)
	case Dummy:
		desc = dummyDescription
	}
	return map[string]any{"id": c.ID, "type": c.Type, "title": c.Title, "created_at": c.CreatedAt, "creator_user_id": c.CreatorUserID,
		"parameters": p, "grace": grace, "backlog": backlog, "description": desc}
}

// StreamDoc is a stream's document, as legacy callbacks get it.
func StreamDoc(st *streams.Stream) (map[string]any, error) {
	b, err := json.Marshal(st)
	if err != nil {
		return nil, err
	}
	var doc map[string]any
	return doc, json.Unmarshal(b, &doc)
}

// javaDecimal formats as Java's DecimalFormat("#.###").
func javaDecimal(v float64) string {
	if math.IsNaN(v) {
		return "NaN"
	}
	return strconv.FormatFloat(math.Round(v*1000)/1000, 'f', -1, 64)
}

// notify runs the stream's alarm callbacks for an alert and records each
// delivery in the alert's history; a failing one does not keep the others
// from running.
func (c *Checker) notify(ctx context.Context, st *streams.Stream, cond Condition, a Alert, res result) error {
	cbs, err := c.s.Callbacks(ctx, st.ID)
	if err != nil {
		return err
	}
	model, err := callbackModel(st, cond, a.ID, a.TriggeredAt, res)
	if err != nil {
		return err
	}
	var errs []error
	for _, cb := range cbs {
		err := c.run1(ctx, cb, model)
		if herr := c.s.recordHistory(ctx, cb, a, err); herr != nil {
			errs = append(errs, herr)
		}
		if err != nil {
			errs = append(errs, fmt.Errorf("alarm callback %s: %w", cb.ID, err))
		}
	}
	return errors.Join(errs...)
}

// callbackModel is what the alarm callbacks of a stream get for a
// condition's check result: the event standing for the alert id, and the
// stream and condition as Graylog 3.3 gave them.
func callbackModel(st *streams.Stream, cond Condition, id string, at api.Time, res result) (notify.Model, error) {
	title := ""
	if cond.Title != nil {
		title = *cond.Title
	}
	key := ""
	ev := events.Event{ID: id, EventDefinitionType: cond.Type, EventDefinitionID: cond.ID, Timestamp: at,
		TimestampProcessing: at, Streams: []string{}, SourceStreams: []string{st.ID}, Message: res.description,
		Key: &key, KeyTuple: []string{}, Priority: 2, Alert: true, Fields: map[string]string{}}
	d := &definitions.Definition{ID: cond.ID, Title: title, Config: definitions.Config{Type: cond.Type}}
	model := notify.NewModel(d, "", "", ev, res.backlog)
	stream, err := StreamDoc(st)
	if err != nil {
		return model, err
	}
	model.Legacy = &notify.LegacyAlert{Stream: stream, Condition: cond.Doc()}
	return model, nil
}

// run1 delivers to one alarm callback.
func (c *Checker) run1(ctx context.Context, cb Callback, model notify.Model) error {
	n := notify.Notification{ID: cb.ID, Config: notify.Config{Type: notify.TypeLegacy, CallbackType: cb.Type, Configuration: cb.Configuration}}
	if cb.Title != nil {
		n.Title = *cb.Title
	}
	return c.deliver.Deliver(ctx, n, model)
}

// ConditionCheck is one condition's entry in GET /streams/{id}/alerts/check.
type ConditionCheck struct {
	Condition        map[string]any `json:"condition"`
	Triggered        bool           `json:"triggered"`
	AlertDescription string         `json:"alert_description,omitempty"`
}

// CheckStream checks a stream's conditions now, without alerting, as
// Graylog's StreamAlertResource.checkConditions.
func (c *Checker) CheckStream(ctx context.Context, streamID string) ([]ConditionCheck, error) {
	if _, err := c.s.streams.Get(streamID); err != nil {
		return nil, err
	}
	conds, err := c.s.Conditions(streamID)
	if err != nil {
		return nil, err
	}
	now := c.s.now().UTC().Truncate(time.Millisecond)
	out := make([]ConditionCheck, 0, len(conds))
	for _, cond := range conds {
		res, err := c.run(ctx, streamID, cond, now)
		if err != nil {
			return nil, fmt.Errorf("legacy alert condition %s: %w", cond.ID, err)
		}
		cc := ConditionCheck{Condition: cond.Doc(), Triggered: res.triggered}
		if res.triggered {
			cc.AlertDescription = res.description
		}
		out = append(out, cc)
	}
	return out, nil
}

// dummyDescription is the text of Graylog's DummyAlertCondition.
const dummyDescription = "Dummy alert to test notifications"

// SendDummy sends Graylog's dummy alert to a stream's alarm callbacks — to
// an email callback to the stream's alert receivers when it has none — and
// stops at the first that fails, as Graylog's sendDummyAlert.
func (c *Checker) SendDummy(ctx context.Context, streamID, username string) error {
	st, err := c.s.streams.Get(streamID)
	if err != nil {
		return err
	}
	cbs, err := c.s.Callbacks(ctx, streamID)
	if err != nil {
		return err
	}
	if len(cbs) == 0 {
		cbs = []Callback{{Type: notify.CallbackEmail, Configuration: map[string]any{
			"email_receivers": anyList(st.AlertReceivers.Emails), "user_receivers": anyList(st.AlertReceivers.Users)}}}
	}
	now := api.Time{Time: c.s.now().UTC().Truncate(time.Millisecond)}
	title := "Dummy Alert"
	cond := Condition{ID: uuid.NewString(), Type: Dummy, CreatorUserID: username, CreatedAt: now, Parameters: map[string]any{}, Title: &title}
	model, err := callbackModel(st, cond, primitive.NewObjectID().Hex(), now, result{triggered: true, description: dummyDescription})
	if err != nil {
		return err
	}
	for _, cb := range cbs {
		if err := c.run1(ctx, cb, model); err != nil {
			return api.Wrap(api.Internal, err.Error(), err)
		}
	}
	return nil
}

func anyList(ss []string) []any {
	out := make([]any, len(ss))
	for i, s := range ss {
		out[i] = s
	}
	return out
}
