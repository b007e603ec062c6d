package notify

import (
	"encoding/json"

	"github.com/loggate/loggate/backend/alerts/definitions"
	"github.com/loggate/loggate/backend/alerts/events"
	"github.com/loggate/loggate/backend/logs/messages"
	"github.com/loggate/loggate/router/api"
)

// Model is Graylog's EventNotificationModelData: the body of an HTTP
// notification and the model of the email templates.
type Model struct {
	EventDefinitionID          string           `json:"event_definition_id"`
	EventDefinitionType        string           `json:"event_definition_type"`
	EventDefinitionTitle       string           `json:"event_definition_title"`
	EventDefinitionDescription string           `json:"event_definition_description"`
	JobDefinitionID            string           `json:"job_definition_id"`
	JobTriggerID               string           `json:"job_trigger_id"`
	Event                      events.Event     `json:"event"`
	Backlog                    []BacklogMessage `json:"backlog"`
	// Legacy is set by Graylog 3.3's alert checker (enable_legacy_alerts):
	// the stream and the condition its alarm callbacks see. Without it a
	// legacy callback sees what 4.0 makes of the event definition.
	Legacy *LegacyAlert `json:"-"`
	// defStreams are the streams of the definition.
	defStreams []string
}

// LegacyAlert is what a legacy alarm callback sees beside the event: the
// stream document and the condition, as Graylog 3.3's Jackson wrote them
// (AlertCondition: id, type, title, created_at, creator_user_id,
// parameters, grace, backlog, description).
type LegacyAlert struct {
	Stream    map[string]any
	Condition map[string]any
}

// BacklogMessage is one message of a notification's backlog.
type BacklogMessage struct {
	Index     string         `json:"index"`
	ID        string         `json:"id"`
	Source    string         `json:"source"`
	Message   string         `json:"message"`
	Timestamp api.Time       `json:"timestamp"`
	StreamIDs []string       `json:"stream_ids"`
	Fields    map[string]any `json:"fields"`
}

// unknown stands for what a model cannot name (a deleted definition).
const unknown = "<unknown>"

// NewModel builds the model of one delivery; d is nil when the definition
// is gone.
func NewModel(d *definitions.Definition, jobID, triggerID string, ev events.Event, backlog []messages.Hit) Model {
	m := Model{EventDefinitionID: unknown, EventDefinitionType: unknown, EventDefinitionTitle: unknown,
		EventDefinitionDescription: unknown, JobDefinitionID: jobID, JobTriggerID: triggerID, Event: ev, Backlog: []BacklogMessage{}}
	if d != nil {
		m.EventDefinitionID, m.EventDefinitionType, m.EventDefinitionTitle, m.EventDefinitionDescription =
			d.ID, d.Config.Type, d.Title, d.Description
		m.defStreams = d.Config.Streams
	}
	for _, h := range backlog {
		m.Backlog = append(m.Backlog, backlogMessage(h))
	}
	return m
}

// backlogMessage is a stored message as a backlog shows it: every field
// but the ones it has apart.
func backlogMessage(h messages.Hit) BacklogMessage {
	msg := h.Message
	b := BacklogMessage{Index: h.Index, ID: msg.ID, Timestamp: api.Time{Time: msg.Timestamp}, StreamIDs: nonNil(msg.Streams), Fields: map[string]any{}}
	b.Source, _ = msg.String(messages.FieldSource)
	b.Message, _ = msg.String(messages.FieldMessage)
	for _, f := range msg.Fields {
		switch f.Key {
		case messages.FieldID, messages.FieldMessage, messages.FieldSource, messages.FieldTimestamp, messages.FieldStreams:
			continue
		}
		b.Fields[f.Key] = f.Value
	}
	return b
}

// templateModel is the model as JMTE templates see it: the JSON form,
// as maps and lists.
func templateModel(v any) map[string]any {
	var out map[string]any
	b, _ := json.Marshal(v) // models always marshal
	_ = json.Unmarshal(b, &out)
	return out
}

// testModel is the model of a test delivery (Graylog's dummy event).
func testModel(username string, now api.Time) Model {
	key := "testkey"
	ev := events.Event{ID: "TEST_NOTIFICATION_ID", EventDefinitionType: "notification-test-v1", EventDefinitionID: "EventDefinitionTestId",
		Timestamp: now, TimestampProcessing: now, Streams: []string{}, SourceStreams: []string{},
		Message: "Notification test message triggered from user <" + username + ">", Source: "000000000000000000000001",
		KeyTuple: []string{"testkey"}, Key: &key, Priority: 2, Alert: true, Fields: map[string]string{"field1": "value1", "field2": "value2"}}
	return Model{EventDefinitionID: ev.EventDefinitionID, EventDefinitionType: ev.EventDefinitionType,
		EventDefinitionTitle: "Event Definition Test Title", EventDefinitionDescription: "Event Definition Test Description",
		JobDefinitionID: "<unknown>", JobTriggerID: "<unknown>", Event: ev, Backlog: []BacklogMessage{}}
}
