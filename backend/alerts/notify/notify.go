// Package notify owns Graylog 4.0's event notifications: the
// /events/notifications API and its storage, the scheduling of a
// notification for each event (with the grace period), and the delivery by
// HTTP, by email over SMTP, and by the legacy alarm callbacks, with failed
// deliveries retried with back-off and shown as system notifications.
package notify

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"slices"
	"strings"
	"time"

	"github.com/loggate/loggate/backend/alerts/definitions"
	"github.com/loggate/loggate/backend/alerts/entity"
	"github.com/loggate/loggate/backend/alerts/events"
	"github.com/loggate/loggate/backend/alerts/scheduler"
	"github.com/loggate/loggate/backend/store"
	"github.com/loggate/loggate/router/api"
)

// Collections, as Graylog names them.
const (
	Collection       = "event_notifications"
	StatusCollection = "event_notification_status"
)

// Type names, as Graylog spells them.
const (
	TypeHTTP         = "http-notification-v1"
	TypeEmail        = "email-notification-v1"
	TypeLegacy       = "legacy-alarm-callback-notification-v1"
	TypeExecutionJob = "notification-execution-v1"
)

// Notification is Graylog's NotificationDto.
type Notification struct {
	ID          string `json:"id"`
	Title       string `json:"title"`
	Description string `json:"description"`
	Config      Config `json:"config"`
}

// Config is a notification's config; which fields apply depends on Type.
// It marshals with the fields of its type only.
type Config struct {
	Type string
	// http-notification-v1
	URL string
	// email-notification-v1
	Sender          string
	Subject         string
	BodyTemplate    string
	EmailRecipients []string
	UserRecipients  []string
	// legacy-alarm-callback-notification-v1
	CallbackType  string
	Configuration map[string]any
}

// MarshalJSON writes the fields of the config's type.
func (c Config) MarshalJSON() ([]byte, error) {
	switch c.Type {
	case TypeHTTP:
		return json.Marshal(map[string]any{"type": c.Type, "url": c.URL})
	case TypeEmail:
		return json.Marshal(map[string]any{"type": c.Type, "sender": c.Sender, "subject": c.Subject, "body_template": c.BodyTemplate,
			"email_recipients": nonNil(c.EmailRecipients), "user_recipients": nonNil(c.UserRecipients)})
	case TypeLegacy:
		conf := c.Configuration
		if conf == nil {
			conf = map[string]any{}
		}
		return json.Marshal(map[string]any{"type": c.Type, "callback_type": c.CallbackType, "configuration": conf})
	}
	return json.Marshal(map[string]any{"type": c.Type})
}

// UnmarshalJSON reads a config of any type, as stored.
func (c *Config) UnmarshalJSON(b []byte) error {
	var in struct {
		Type            string         `json:"type"`
		URL             string         `json:"url"`
		Sender          string         `json:"sender"`
		Subject         string         `json:"subject"`
		BodyTemplate    string         `json:"body_template"`
		EmailRecipients []string       `json:"email_recipients"`
		UserRecipients  []string       `json:"user_recipients"`
		CallbackType    string         `json:"callback_type"`
		Configuration   map[string]any `json:"configuration"`
	}
	if err := json.Unmarshal(b, &in); err != nil {
		return err
	}
	*c = Config(in)
	return nil
}

func nonNil(s []string) []string {
	if s == nil {
		return []string{}
	}
	return s
}

// Defaults of an email notification (EmailEventNotificationConfig).
const (
	DefaultSender  = "graylog@example.org"
	DefaultSubject = "Graylog event notification: ${event_definition_title}"
	// DefaultBody is Graylog 4.0's default body template.
	DefaultBody = `--- [Event Definition] ---------------------------
Title:       ${event_definition_title}
Description: ${event_definition_description}
Type:        ${event_definition_type}
--- [Event] --------------------------------------
Timestamp:            ${event.timestamp}
Message:              ${event.message}
Source:               ${event.source}
Key:                  ${event.key}
Priority:             ${event.priority}
Alert:                ${event.alert}
Timestamp Processing: ${event.timestamp}
Timerange Start:      ${event.timerange_start}
Timerange End:        ${event.timerange_end}
Fields:
${foreach event.fields field}  ${field.key}: ${field.value}
${end}
${if backlog}
--- [Backlog] ------------------------------------
Last messages accounting for this alert:
${foreach backlog message}
${message}
${end}
${end}
`
)

// configIn is a request's config: every type's properties, the email ones
// with Graylog's builder defaults when absent.
type configIn struct {
	Type            string         `json:"type"`
	URL             *string        `json:"url"`
	Sender          *string        `json:"sender"`
	Subject         *string        `json:"subject"`
	BodyTemplate    *string        `json:"body_template"`
	EmailRecipients []string       `json:"email_recipients"`
	UserRecipients  []string       `json:"user_recipients"`
	CallbackType    *string        `json:"callback_type"`
	Configuration   map[string]any `json:"configuration"`
}

// knownFields are the properties each config type takes.
var knownFields = map[string][]string{
	TypeHTTP:   {"type", "url"},
	TypeEmail:  {"type", "sender", "subject", "body_template", "email_recipients", "user_recipients"},
	TypeLegacy: {"type", "callback_type", "configuration"},
}

// Parse reads a notification request body. Unknown properties and missing
// required ones are 400 ApiErrors; an unknown config type is left for
// Validate.
func Parse(body []byte) (Notification, error) {
	var in struct {
		ID          *string         `json:"id"`
		Title       *string         `json:"title"`
		Description *string         `json:"description"`
		Config      json.RawMessage `json:"config"`
	}
	if err := api.DecodeBytes(body, &in, true); err != nil {
		return Notification{}, err
	}
	var missing []string
	for name, ok := range map[string]bool{"title": in.Title != nil, "description": in.Description != nil,
		"config": len(in.Config) > 0 && string(in.Config) != "null"} {
		if !ok {
			missing = append(missing, name)
		}
	}
	if len(missing) > 0 {
		slices.Sort(missing)
		return Notification{}, api.Errorf(api.Invalid, "Missing required properties: %s", strings.Join(missing, " "))
	}
	n := Notification{Title: *in.Title, Description: *in.Description}
	if in.ID != nil {
		n.ID = *in.ID
	}
	var props map[string]json.RawMessage
	if err := json.Unmarshal(in.Config, &props); err != nil {
		return Notification{}, api.Errorf(api.Invalid, "Unable to parse config: %v", err)
	}
	var c configIn
	_ = json.Unmarshal(in.Config, &c) // the object parsed above
	if known, ok := knownFields[c.Type]; ok {
		for p := range props {
			if !slices.Contains(known, p) {
				return Notification{}, api.Errorf(api.Invalid, "Unable to map property %s.\nKnown properties include: %s", p, strings.Join(known, ", "))
			}
		}
	}
	n.Config = Config{Type: c.Type, EmailRecipients: c.EmailRecipients, UserRecipients: c.UserRecipients, Configuration: c.Configuration}
	str := func(p *string, def string) string {
		if p == nil {
			return def
		}
		return *p
	}
	switch c.Type {
	case TypeHTTP:
		n.Config.URL = str(c.URL, "")
	case TypeEmail:
		n.Config.Sender = str(c.Sender, DefaultSender)
		n.Config.Subject = str(c.Subject, DefaultSubject)
		n.Config.BodyTemplate = str(c.BodyTemplate, DefaultBody)
	case TypeLegacy:
		n.Config.CallbackType = str(c.CallbackType, "")
	}
	return n, nil
}

// Validate checks a notification as Graylog's NotificationDto.validate
// does.
func (n Notification) Validate() *definitions.Validation {
	v := &definitions.Validation{Errors: map[string][]string{}, ErrorContext: map[string]any{}}
	add := func(field, msg string) {
		v.Failed = true
		v.Errors[field] = append(v.Errors[field], msg)
	}
	if n.Title == "" {
		add("title", "Notification title cannot be empty.")
	}
	c := n.Config
	switch c.Type {
	case TypeHTTP:
		if c.URL == "" {
			add("url", "HTTP Notification url cannot be empty.")
		}
	case TypeEmail:
		if c.Sender == "" {
			add("sender", "Email Notification sender cannot be empty.")
		}
		if c.Subject == "" {
			add("subject", "Email Notification subject cannot be empty.")
		}
		if c.BodyTemplate == "" {
			add("body", "Email Notification body template cannot be empty.")
		}
		if len(c.EmailRecipients) == 0 && len(c.UserRecipients) == 0 {
			add("recipients", "Email Notification must have email recipients or user recipients.")
		}
	case TypeLegacy:
		if c.CallbackType == "" {
			add("callback_type", "Legacy Notification callback type cannot be empty.")
		}
	default:
		add("config", "Notification config type cannot be empty.")
	}
	return v
}

// Service stores notifications and their job definitions.
type Service struct {
	st    store.Store
	docs  entity.Collection[Notification]
	sched *scheduler.Scheduler
	defs  *definitions.Service
}

// NewService returns the notifications of st.
func NewService(st store.Store, sched *scheduler.Scheduler, defs *definitions.Service) *Service {
	return &Service{st: st, sched: sched, defs: defs, docs: entity.Collection[Notification]{St: st, Name: Collection,
		NotFound: func(id string) error { return api.Errorf(api.NotFound, "Notification %s doesn't exist", id) },
		Title:    func(n Notification) string { return n.Title }}}
}

// Get returns a notification.
func (s *Service) Get(ctx context.Context, id string) (Notification, error) {
	return s.docs.Get(ctx, id)
}

// All returns every notification, sorted by title.
func (s *Service) All(ctx context.Context) ([]Notification, error) { return s.docs.All(ctx) }

// jobConfig is a notification's job definition config.
type jobConfig struct {
	Type           string `json:"type"`
	NotificationID string `json:"notification_id"`
}

// Save stores n (new when its id is empty) and makes sure it has its job
// definition.
func (s *Service) Save(ctx context.Context, n Notification) (Notification, error) {
	if n.ID == "" {
		n.ID = s.sched.NewID()
	}
	if err := s.docs.Put(ctx, n.ID, n); err != nil {
		return n, err
	}
	job, ok, err := s.job(ctx, n.ID)
	if err != nil {
		return n, err
	}
	if !ok {
		job.Config, _ = json.Marshal(jobConfig{Type: TypeExecutionJob, NotificationID: n.ID})
	}
	job.Title, job.Description = n.Title, n.Description
	_, err = s.sched.PutJob(ctx, job)
	return n, err
}

// job returns the job definition of a notification.
func (s *Service) job(ctx context.Context, id string) (scheduler.JobDefinition, bool, error) {
	jobs, err := s.sched.Jobs(ctx)
	if err != nil {
		return scheduler.JobDefinition{}, false, err
	}
	for _, j := range jobs {
		var c jobConfig
		if j.Type() == TypeExecutionJob && json.Unmarshal(j.Config, &c) == nil && c.NotificationID == id {
			return j, true, nil
		}
	}
	return scheduler.JobDefinition{}, false, nil
}

// Delete removes a notification, its job and its uses by definitions.
func (s *Service) Delete(ctx context.Context, id string) error {
	if _, err := s.Get(ctx, id); err != nil {
		return err
	}
	if err := s.defs.RemoveNotification(ctx, id); err != nil {
		return err
	}
	if job, ok, err := s.job(ctx, id); err != nil {
		return err
	} else if ok {
		if err := s.sched.DeleteJob(ctx, job.ID); err != nil {
			return err
		}
	}
	return s.docs.Delete(ctx, id)
}

// status is Graylog's event_notification_status document: when a
// notification last went out for one definition and event key.
type status struct {
	NotificationID    string    `json:"notification_id"`
	EventDefinitionID string    `json:"event_definition_id"`
	EventKey          string    `json:"event_key"`
	TriggeredAt       *api.Time `json:"triggered_at"`
	NotifiedAt        *api.Time `json:"notified_at"`
}

func statusID(notification, definition, key string) string {
	return hashID(notification, definition, key)
}

// hashID is a fixed 24-hex id made of parts.
func hashID(parts ...string) string {
	h := sha256.Sum256([]byte(strings.Join(parts, "\x00")))
	return hex.EncodeToString(h[:12])
}

// triggerData is a notification trigger's data.
type triggerData struct {
	Type     string       `json:"type"`
	EventDto events.Event `json:"event_dto"`
	// Attempts counts the failed deliveries, for the back-off.
	Attempts int `json:"attempts,omitempty"`
}

// Notify schedules a delivery of each event to each notification of d,
// unless within the grace period of the last one for the event's key. The
// delivery's trigger id is made of the notification's and the event's, so
// that a window processed again schedules nothing twice.
func (s *Service) Notify(ctx context.Context, d definitions.Definition, evs []events.Event) error {
	grace := d.NotificationSettings.GracePeriodMs
	for _, ref := range d.Notifications {
		job, ok, err := s.job(ctx, ref.NotificationID)
		if err != nil {
			return err
		}
		if !ok {
			continue // a notification deleted meanwhile
		}
		for _, ev := range evs {
			key := ""
			if ev.Key != nil {
				key = *ev.Key
			}
			sid := statusID(ref.NotificationID, d.ID, key)
			if grace > 0 {
				if last, err := s.lastNotified(ctx, sid); err != nil {
					return err
				} else if !last.IsZero() && last.After(ev.Timestamp.Add(-time.Duration(grace)*time.Millisecond)) {
					continue
				}
			}
			data, _ := json.Marshal(triggerData{Type: TypeExecutionJob, EventDto: ev})
			_, err := s.sched.AddTrigger(ctx, scheduler.Trigger{ID: hashID(ref.NotificationID, ev.ID), JobDefinitionID: job.ID,
				Schedule: scheduler.Schedule{Type: "once"}, Data: data})
			if errors.Is(err, store.ErrConflict) {
				continue
			}
			if err != nil {
				return err
			}
			if err := s.record(ctx, status{NotificationID: ref.NotificationID, EventDefinitionID: d.ID, EventKey: key,
				TriggeredAt: &ev.Timestamp}, sid); err != nil {
				return err
			}
		}
	}
	return nil
}

// lastNotified is when a notification last went out (or was scheduled)
// for a definition and key.
func (s *Service) lastNotified(ctx context.Context, id string) (api.Time, error) {
	doc, err := s.st.Get(ctx, StatusCollection, id)
	if errors.Is(err, store.ErrNotFound) {
		return api.Time{}, nil
	}
	if err != nil {
		return api.Time{}, err
	}
	var st status
	if err := json.Unmarshal(doc, &st); err != nil {
		return api.Time{}, err
	}
	last := api.Time{}
	for _, t := range []*api.Time{st.TriggeredAt, st.NotifiedAt} {
		if t != nil && t.After(last.Time) {
			last = *t
		}
	}
	return last, nil
}

// record merges st into the stored status.
func (s *Service) record(ctx context.Context, st status, id string) error {
	err := s.st.Update(ctx, StatusCollection, id, func(doc []byte) ([]byte, error) {
		var cur status
		_ = json.Unmarshal(doc, &cur)
		if st.TriggeredAt != nil {
			cur.TriggeredAt = st.TriggeredAt
		}
		if st.NotifiedAt != nil {
			cur.NotifiedAt = st.NotifiedAt
		}
		return json.Marshal(cur)
	})
	if errors.Is(err, store.ErrNotFound) {
		doc, _ := json.Marshal(st)
		err = s.st.Insert(ctx, StatusCollection, id, doc)
		if errors.Is(err, store.ErrConflict) {
			return s.record(ctx, st, id)
		}
	}
	return err
}
