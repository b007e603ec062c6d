package notify

import (
	"context"
	"strings"

	"github.com/loggate/loggate/router/api"
)

// The legacy alarm callbacks of Graylog's core (2.x/3.0), which a
// legacy-alarm-callback-notification-v1 runs.
const (
	CallbackHTTP  = "org.graylog2.alarmcallbacks.HTTPAlarmCallback"
	CallbackEmail = "org.graylog2.alarmcallbacks.EmailAlarmCallback"
)

// legacyDefaultBody is the 2.x email alarm callback's default body.
const legacyDefaultBody = `##########
Alert Description: ${check_result.resultDescription}
Date: ${check_result.triggeredAt}
Stream ID: ${stream.id}
Stream title: ${stream.title}
Stream description: ${stream.description}
Alert Condition Title: ${alertCondition.title}
${if stream_url}Stream URL: ${stream_url}${end}

Triggered condition: ${check_result.triggeredCondition}
##########

${if backlog}Last messages accounting for this alert:
${foreach backlog message}${message}

${end}${else}<No backlog>
${end}
`

// field is a requested configuration field, as the types listings show it.
func field(human, typ string, def any, optional bool, desc string, pos int) map[string]any {
	return map[string]any{"human_name": human, "description": desc, "type": typ, "default_value": def,
		"is_optional": optional, "attributes": []string{}, "additional_info": map[string]any{}, "position": pos}
}

// LegacyTypes are the legacy callback types with their requested
// configuration, by class name.
func LegacyTypes() map[string]map[string]any {
	return map[string]map[string]any{
		CallbackHTTP: {"name": "HTTP Alarm Callback [Deprecated]", "configuration": map[string]any{
			"url": field("URL", "text", "", false, "The URL to POST to when an alert is triggered", 100)}},
		CallbackEmail: {"name": "Email Alert Callback", "configuration": map[string]any{
			"sender":          field("Sender", "text", "graylog@example.org", true, "The sender of sent out mail alerts", 100),
			"subject":         field("E-Mail Subject", "text", "Graylog alert for stream: ${stream.title}: ${check_result.resultDescription}", false, "The subject of sent out mail alerts", 100),
			"body":            field("E-Mail Body", "text", legacyDefaultBody, true, "The template to generate the body from", 100),
			"user_receivers":  field("User Receivers", "list", []string{}, true, "Graylog usernames that should receive this alert", 100),
			"email_receivers": field("E-Mail Receivers", "list", []string{}, true, "E-Mail addresses that should receive this alert", 100)}},
	}
}

// missingStream is the stream Graylog 4.0 gives a legacy callback whose
// event definition names no stream it can find.
func missingStream(now api.Time) map[string]any {
	return map[string]any{"id": "5400deadbeefdeadbeefaffe", "title": "Missing stream", "description": "We could find a stream",
		"rules": []any{}, "outputs": []any{}, "created_at": now, "creator_user_id": "admin", "alert_conditions": []any{}}
}

// legacyAlert is what Graylog 4.0's LegacyAlarmCallbackSender makes of an
// event for a legacy callback: the first stream of the definition and a
// stand-in condition named after it.
func (d *Deliverer) legacyAlert(m Model) LegacyAlert {
	ts := m.Event.TimestampProcessing
	stream := missingStream(ts)
	if len(m.defStreams) > 0 && d.Streams != nil {
		if doc, ok := d.Streams.StreamDoc(m.defStreams[0]); ok {
			stream = doc
		}
	}
	return LegacyAlert{Stream: stream, Condition: map[string]any{"id": m.EventDefinitionID, "type": m.EventDefinitionType,
		"title": m.EventDefinitionTitle, "description": m.EventDefinitionTitle, "created_at": ts, "creator_user_id": "admin",
		"parameters": map[string]any{"backlog": 50}, "grace": 0, "backlog": 50}}
}

// legacyModel is what a 2.x alarm callback saw: the stream, the check
// result of the condition (here, the event) and the backlog, under the
// JSON names of Graylog's HTTP callback and the Java bean names the old
// email templates use.
func (d *Deliverer) legacyModel(m Model) map[string]any {
	la := d.legacyAlert(m)
	triggeredAt := m.Event.TimestampProcessing
	if m.Legacy != nil {
		la, triggeredAt = *m.Legacy, m.Event.Timestamp
	}
	backlog := make([]any, len(m.Backlog))
	for i, b := range m.Backlog {
		backlog[i] = templateModel(b)
	}
	checkResult := map[string]any{
		"triggered": true, "resultDescription": m.Event.Message, "result_description": m.Event.Message,
		"triggeredAt": triggeredAt, "triggered_at": triggeredAt,
		"triggeredCondition": la.Condition, "triggered_condition": la.Condition, "matching_messages": backlog, "matchingMessages": backlog,
	}
	out := map[string]any{"stream": la.Stream, "check_result": checkResult, "alertCondition": la.Condition, "alert_condition": la.Condition,
		"backlog": backlog}
	if id, _ := la.Stream["id"].(string); d.Email.WebInterfaceURL != "" && id != "" {
		out["stream_url"] = strings.TrimSuffix(d.Email.WebInterfaceURL, "/") + "/streams/" + id + "/messages"
	}
	return templateModel(out)
}

// legacy runs a legacy alarm callback.
func (d *Deliverer) legacy(ctx context.Context, n Notification, m Model) error {
	conf := n.Config.Configuration
	str := func(k, def string) string {
		if v, ok := conf[k].(string); ok && v != "" {
			return v
		}
		return def
	}
	list := func(k string) []string {
		var out []string
		switch v := conf[k].(type) {
		case []any:
			for _, e := range v {
				if s, ok := e.(string); ok && s != "" {
					out = append(out, s)
				}
			}
		case string:
			for _, s := range strings.Split(v, ",") {
				if s = strings.TrimSpace(s); s != "" {
					out = append(out, s)
				}
			}
		}
		return out
	}
	model := d.legacyModel(m)
	switch n.Config.CallbackType {
	case CallbackHTTP:
		return d.post(ctx, str("url", ""), map[string]any{"check_result": httpCheckResult(model["check_result"]), "stream": model["stream"]})
	case CallbackEmail:
		subject := str("subject", "Graylog alert for stream: ${stream.title}: ${check_result.resultDescription}")
		if p := d.Email.SubjectPrefix; p != "" {
			subject = p + " " + subject
		}
		c := Config{Type: TypeEmail, Sender: str("sender", d.Email.FromEmail), Subject: subject,
			BodyTemplate: str("body", legacyDefaultBody), EmailRecipients: list("email_receivers"), UserRecipients: list("user_receivers")}
		return d.emailWith(ctx, c, model)
	}
	return failed(errUnknownLegacy, nil, "Unknown alarm callback type %s", n.Config.CallbackType)
}

// httpCheckResult is the check result as Graylog's HTTP alarm callback
// posts it: the JSON names only.
func httpCheckResult(v any) map[string]any {
	out := map[string]any{}
	for k, e := range v.(map[string]any) {
		if strings.ToLower(k) == k {
			out[k] = e
		}
	}
	return out
}
