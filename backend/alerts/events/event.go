package events

import (
	"encoding/json"
	"fmt"
	"slices"
	"time"

	"github.com/loggate/loggate/backend/logs/messages"
	"github.com/loggate/loggate/router/api"
)

// Event is Graylog's EventDto: what an event definition produced, as the
// API, the notifications and the event search show it.
type Event struct {
	ID                  string            `json:"id"`
	EventDefinitionType string            `json:"event_definition_type"`
	EventDefinitionID   string            `json:"event_definition_id"`
	OriginContext       *string           `json:"origin_context"`
	Timestamp           api.Time          `json:"timestamp"`
	TimestampProcessing api.Time          `json:"timestamp_processing"`
	TimerangeStart      *api.Time         `json:"timerange_start"`
	TimerangeEnd        *api.Time         `json:"timerange_end"`
	Streams             []string          `json:"streams"`
	SourceStreams       []string          `json:"source_streams"`
	Message             string            `json:"message"`
	Source              string            `json:"source"`
	KeyTuple            []string          `json:"key_tuple"`
	Key                 *string           `json:"key"`
	Priority            int64             `json:"priority"`
	Alert               bool              `json:"alert"`
	Fields              map[string]string `json:"fields"`
}

// indexTime is how Graylog writes the time fields of an event document:
// the message index's date format, UTC.
const indexTime = "2006-01-02 15:04:05.000"

// Names of the event document's fields (EventDto's, snake case).
const (
	fieldDefinitionType = "event_definition_type"
	fieldDefinitionID   = "event_definition_id"
	fieldOrigin         = "origin_context"
	fieldProcessing     = "timestamp_processing"
	fieldRangeStart     = "timerange_start"
	fieldRangeEnd       = "timerange_end"
	fieldSourceStreams  = "source_streams"
	fieldKeyTuple       = "key_tuple"
	fieldKey            = "key"
	fieldPriority       = "priority"
	fieldAlert          = "alert"
	fieldFields         = "fields"
)

// Document returns the event as the message store keeps it, in the events
// index set. The store's fields are scalars: the lists (source_streams,
// key_tuple) and the fields map are kept as JSON text.
func (e Event) Document() messages.Message {
	m := messages.Message{ID: e.ID, Timestamp: e.Timestamp.UTC().Truncate(time.Millisecond), Streams: slices.Clone(e.Streams)}
	add := func(k string, v any) { m.Fields = append(m.Fields, messages.Field{Key: k, Value: v}) }
	jsonText := func(v any) string {
		b, _ := json.Marshal(v) // string lists and maps always marshal
		return string(b)
	}
	add(fieldDefinitionType, e.EventDefinitionType)
	add(fieldDefinitionID, e.EventDefinitionID)
	if e.OriginContext != nil {
		add(fieldOrigin, *e.OriginContext)
	}
	add(fieldProcessing, e.TimestampProcessing.UTC().Format(indexTime))
	if e.TimerangeStart != nil {
		add(fieldRangeStart, e.TimerangeStart.UTC().Format(indexTime))
	}
	if e.TimerangeEnd != nil {
		add(fieldRangeEnd, e.TimerangeEnd.UTC().Format(indexTime))
	}
	add(fieldSourceStreams, jsonText(nonNil(e.SourceStreams)))
	add(messages.FieldMessage, e.Message)
	add(messages.FieldSource, e.Source)
	add(fieldKeyTuple, jsonText(nonNil(e.KeyTuple)))
	if e.Key != nil {
		add(fieldKey, *e.Key)
	}
	add(fieldPriority, e.Priority)
	add(fieldAlert, e.Alert)
	fields := e.Fields
	if fields == nil {
		fields = map[string]string{}
	}
	add(fieldFields, jsonText(fields))
	return m
}

func nonNil(s []string) []string {
	if s == nil {
		return []string{}
	}
	return s
}

// FromMessage reads an event back from its stored document.
func FromMessage(m messages.Message) (Event, error) {
	e := Event{ID: m.ID, Timestamp: api.Time{Time: m.Timestamp.UTC()}, Streams: nonNil(m.Streams),
		SourceStreams: []string{}, KeyTuple: []string{}, Fields: map[string]string{}}
	str := func(k string) (string, bool) { return m.String(k) }
	at := func(k string) (*api.Time, error) {
		s, ok := str(k)
		if !ok || s == "" {
			return nil, nil
		}
		t, err := time.ParseInLocation(indexTime, s, time.UTC)
		if err != nil {
			return nil, fmt.Errorf("event %s: %s: %w", m.ID, k, err)
		}
		return &api.Time{Time: t}, nil
	}
	e.EventDefinitionType, _ = str(fieldDefinitionType)
	e.EventDefinitionID, _ = str(fieldDefinitionID)
	if s, ok := str(fieldOrigin); ok {
		e.OriginContext = &s
	}
	if s, ok := str(fieldKey); ok {
		e.Key = &s
	}
	e.Message, _ = str(messages.FieldMessage)
	e.Source, _ = str(messages.FieldSource)
	var err error
	if p, err := at(fieldProcessing); err != nil {
		return e, err
	} else if p != nil {
		e.TimestampProcessing = *p
	}
	if e.TimerangeStart, err = at(fieldRangeStart); err != nil {
		return e, err
	}
	if e.TimerangeEnd, err = at(fieldRangeEnd); err != nil {
		return e, err
	}
	for k, dst := range map[string]any{fieldSourceStreams: &e.SourceStreams, fieldKeyTuple: &e.KeyTuple, fieldFields: &e.Fields} {
		if s, ok := str(k); ok {
			if err := json.Unmarshal([]byte(s), dst); err != nil {
				return e, fmt.Errorf("event %s: %s: %w", m.ID, k, err)
			}
		}
	}
	if v, ok := m.Get(fieldPriority); ok {
		switch n := v.(type) {
		case int64:
			e.Priority = n
		case float64:
			e.Priority = int64(n)
		}
	}
	if v, ok := m.Get(fieldAlert); ok {
		e.Alert, _ = v.(bool)
	}
	return e, nil
}
