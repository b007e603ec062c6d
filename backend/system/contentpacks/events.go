package contentpacks

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"maps"
	"slices"
	"strconv"
	"strings"

	"github.com/loggate/loggate/auth"
	"github.com/loggate/loggate/backend/alerts/definitions"
	"github.com/loggate/loggate/backend/alerts/notify"
	"github.com/loggate/loggate/backend/logs/streams"
	"github.com/loggate/loggate/router/api"
)

// The events entity types.
var (
	EventDefinitionV1 = ModelType{Name: "event_definition", Version: "1"}
	NotificationV1    = ModelType{Name: "notification", Version: "1"}
)

// EventDefinitions is what content packs need of the event definitions.
type EventDefinitions interface {
	All(ctx context.Context) ([]definitions.Definition, error)
	Get(ctx context.Context, id string) (definitions.Definition, error)
	NewID() string
	// Save stores a new definition and schedules it, or not.
	Save(ctx context.Context, d definitions.Definition, schedule bool) (definitions.Definition, error)
	// Delete removes a definition and its job.
	Delete(ctx context.Context, id string) error
	Scheduled(ctx context.Context, id string) (bool, error)
}

// EventNotifications is what content packs need of the event
// notifications.
type EventNotifications interface {
	All(ctx context.Context) ([]notify.Notification, error)
	Get(ctx context.Context, id string) (notify.Notification, error)
	// Save stores a new notification with its job definition.
	Save(ctx context.Context, n notify.Notification) (notify.Notification, error)
	// Delete removes a notification, its job and its uses by definitions.
	Delete(ctx context.Context, id string) error
}

// Owners records who created event definitions and notifications: as in
// Graylog 4.0, the user installing a pack owns those it creates, and an
// owner may read (so export) them without the read permission.
type Owners interface {
	Own(ctx context.Context, typ, id string) error
	Forget(ctx context.Context, typ, id string) error
	Require(ctx context.Context, perm, typ, id string) error
}

// invalidEntity is a failed validation of the definitions or
// notifications, as a 400 naming the entity and every failed field.
func invalidEntity(kind, title string, v *definitions.Validation) error {
	var parts []string
	for _, f := range slices.Sorted(maps.Keys(v.Errors)) {
		parts = append(parts, f+": "+strings.Join(v.Errors[f], " "))
	}
	return api.Errorf(api.Invalid, "Invalid %s <%s>: %s", kind, title, strings.Join(parts, "; "))
}

// present reports whether a raw property was given (and is not null).
func present(raw json.RawMessage) bool {
	raw = bytes.TrimSpace(raw)
	return len(raw) > 0 && !bytes.Equal(raw, []byte("null"))
}

// body collects the native JSON of an entity: the properties given, for
// the service's own parser to check (and name those missing).
type body map[string]any

// setStr resolves a string reference into key, when it is given.
func (b body) setStr(p install, key string, v *ValueRef) error {
	if v == nil {
		return nil
	}
	s, err := p.str(v, key, "")
	b[key] = s
	return err
}

// setRaw copies a plain property, when it is given.
func (b body) setRaw(key string, raw json.RawMessage) {
	if present(raw) {
		b[key] = raw
	}
}

// marshalRaw is the JSON of v: its values always marshal.
func marshalRaw(v any) json.RawMessage {
	b, _ := json.Marshal(v)
	return b
}

// refInt is the reference of an int, typed integer or long by its value
// as Graylog's ValueReference.of types a Java int or long.
func refInt(n int64) *ValueRef { return ref(json.Number(strconv.FormatInt(n, 10))) }

// owned is the ownership of event definitions or notifications: the
// installer owns what a pack creates, and owners read it without the read
// permission, as the alerts' handlers let them.
type owned struct {
	owners Owners
	typ    string // the owners' entity type
	model  ModelType
}

// created makes the installer the owner of a created entity; on an error
// of creation or ownership it removes what was created.
func (o owned) created(ctx context.Context, id, title string, err error, remove func(context.Context, string) error) (native, error) {
	if err == nil {
		err = o.owners.Own(ctx, o.typ, id)
	}
	if err != nil {
		if id != "" {
			err = errors.Join(err, remove(context.WithoutCancel(ctx), id))
		}
		return native{}, err
	}
	return native{id: id, title: title}, nil
}

func (o owned) forget(ctx context.Context, id string) error { return o.owners.Forget(ctx, o.typ, id) }

// readable: the read permission, or the entity's owner (the principal is
// the context's).
func (o owned) readable(ctx context.Context, _ *auth.Principal, id string) bool {
	return o.owners.Require(ctx, readPerm(o.model.Name, id), o.typ, id) == nil
}

// --- event_definition

// eventDefinitionFacade is Graylog's EventDefinitionFacade.
type eventDefinitionFacade struct {
	defs EventDefinitions
	owned
	// notificationExists and streamExists report whether a native
	// notification or stream is there: an event definition's missing ones
	// are left out of its export, as Graylog leaves them.
	notificationExists, streamExists func(ctx context.Context, id string) bool
}

// eventDefinitionData is Graylog's EventDefinitionEntity.
type eventDefinitionData struct {
	Title                *ValueRef             `json:"title"`
	Description          *ValueRef             `json:"description"`
	Priority             *ValueRef             `json:"priority"`
	Alert                *ValueRef             `json:"alert"`
	Config               eventConfigData       `json:"config"`
	FieldSpec            json.RawMessage       `json:"field_spec"`
	KeySpec              json.RawMessage       `json:"key_spec"`
	NotificationSettings json.RawMessage       `json:"notification_settings"`
	Notifications        []eventNotificationEn `json:"notifications"`
	Storage              json.RawMessage       `json:"storage"`
	IsScheduled          *ValueRef             `json:"is_scheduled"`
}

// eventConfigData is Graylog's AggregationEventProcessorConfigEntity (a
// filter is an aggregation without series): its streams are the ids of
// stream entities of the pack, plain strings in Graylog 4.0 (references
// are read too).
type eventConfigData struct {
	Type           string            `json:"type"`
	Query          *ValueRef         `json:"query"`
	Streams        []json.RawMessage `json:"streams"`
	GroupBy        json.RawMessage   `json:"group_by"`
	Series         json.RawMessage   `json:"series"`
	Conditions     json.RawMessage   `json:"conditions"`
	SearchWithinMs json.RawMessage   `json:"search_within_ms"`
	ExecuteEveryMs json.RawMessage   `json:"execute_every_ms"`
}

// eventNotificationEn is Graylog's EventNotificationHandlerConfigEntity:
// the id of a notification entity of the pack.
type eventNotificationEn struct {
	NotificationID         *ValueRef       `json:"notification_id,omitempty"`
	NotificationParameters json.RawMessage `json:"notification_parameters"`
}

// existing finds nothing: Graylog always creates an event definition.
func (f eventDefinitionFacade) existing(context.Context, json.RawMessage, install) (*native, error) {
	return nil, nil
}

// streamOf resolves a stream of a definition's config: a stream entity of
// the pack, or the default stream of this server.
func streamOf(p install, raw json.RawMessage) (string, error) {
	var s string
	if err := json.Unmarshal(raw, &s); err != nil {
		var v ValueRef
		if err := json.Unmarshal(raw, &v); err != nil {
			return "", fmt.Errorf("config.streams: %s is no stream entity id", raw)
		}
		if s, err = p.str(&v, "config.streams", ""); err != nil {
			return "", err
		}
	}
	if id, ok := p.natives[Descriptor{ID: s, Type: StreamV1}]; ok {
		return id, nil
	}
	if s == streams.DefaultStreamID {
		return s, nil
	}
	return "", fmt.Errorf("missing stream %s for event definition", s)
}

// native resolves the entity into the body of POST /events/definitions
// and whether the definition is to be scheduled.
func (f eventDefinitionFacade) native(data json.RawMessage, p install) (body, bool, error) {
	var d eventDefinitionData
	if err := decodeData(data, &d); err != nil {
		return nil, false, err
	}
	b := body{}
	if err := b.setStr(p, "title", d.Title); err != nil {
		return nil, false, err
	}
	if err := b.setStr(p, "description", d.Description); err != nil {
		return nil, false, err
	}
	if d.Priority != nil {
		n, err := p.integer(d.Priority, "priority", 0)
		if err != nil {
			return nil, false, err
		}
		b["priority"] = n
	}
	if d.Alert != nil {
		a, err := p.boolean(d.Alert, "alert", false)
		if err != nil {
			return nil, false, err
		}
		b["alert"] = a
	}
	b.setRaw("field_spec", d.FieldSpec)
	b.setRaw("key_spec", d.KeySpec)
	b.setRaw("notification_settings", d.NotificationSettings)
	b.setRaw("storage", d.Storage)
	c := d.Config
	if c.Type != definitions.TypeAggregation {
		return nil, false, api.Errorf(api.Invalid, "Unsupported event definition config type %q: loggate runs %s", c.Type, definitions.TypeAggregation)
	}
	cfg := body{"type": c.Type}
	if err := cfg.setStr(p, "query", c.Query); err != nil {
		return nil, false, err
	}
	if c.Streams != nil {
		ids := []string{}
		for _, raw := range c.Streams {
			id, err := streamOf(p, raw)
			if err != nil {
				return nil, false, err
			}
			if !slices.Contains(ids, id) {
				ids = append(ids, id)
			}
		}
		cfg["streams"] = ids
	}
	cfg.setRaw("group_by", c.GroupBy)
	cfg.setRaw("series", c.Series)
	cfg.setRaw("conditions", c.Conditions)
	cfg.setRaw("search_within_ms", c.SearchWithinMs)
	cfg.setRaw("execute_every_ms", c.ExecuteEveryMs)
	b["config"] = cfg
	refs := []map[string]any{}
	for _, n := range d.Notifications {
		eid, err := p.str(n.NotificationID, "notification_id", "")
		if err != nil {
			return nil, false, err
		}
		id, ok := p.natives[Descriptor{ID: eid, Type: NotificationV1}]
		if !ok {
			return nil, false, fmt.Errorf("missing notification (%s) for event definition", eid)
		}
		params := json.RawMessage("null")
		if present(n.NotificationParameters) {
			params = n.NotificationParameters
		}
		refs = append(refs, map[string]any{"notification_id": id, "notification_parameters": params})
	}
	b["notifications"] = refs
	scheduled, err := p.boolean(d.IsScheduled, "is_scheduled", true)
	return b, scheduled, err
}

// create checks the definition as POST /events/definitions does (its
// model, its validation, the streams it searches the caller must read),
// then saves it, scheduled when is_scheduled is true, owned by the caller.
func (f eventDefinitionFacade) create(ctx context.Context, data json.RawMessage, p install, _ string) (native, error) {
	b, scheduled, err := f.native(data, p)
	if err != nil {
		return native{}, err
	}
	d, err := definitions.ParseDefinition(marshalRaw(b), f.defs.NewID)
	if err != nil {
		return native{}, err
	}
	if v := d.Validate(); v.Failed {
		return native{}, invalidEntity("event definition", d.Title, v)
	}
	for _, perm := range d.Config.RequiredPermissions() {
		if err := auth.Require(ctx, perm); err != nil {
			return native{}, err
		}
	}
	d.ID = ""
	d, err = f.defs.Save(ctx, d, scheduled)
	return f.created(ctx, d.ID, d.Title, err, f.remove)
}

func (f eventDefinitionFacade) exists(ctx context.Context, id string) bool {
	_, err := f.defs.Get(ctx, id)
	return err == nil
}

// remove deletes the definition with its job, and its ownership.
func (f eventDefinitionFacade) remove(ctx context.Context, id string) error {
	if err := f.defs.Delete(ctx, id); err != nil {
		return err
	}
	return f.forget(ctx, id)
}

func (f eventDefinitionFacade) excerpts(ctx context.Context) ([]Excerpt, error) {
	all, err := f.defs.All(ctx)
	if err != nil {
		return nil, err
	}
	var out []Excerpt
	for _, d := range all {
		out = append(out, Excerpt{ID: d.ID, Type: EventDefinitionV1, Title: d.Title})
	}
	return out, nil
}

// dependencies are the definition's notifications and the streams of its
// config that exist (Graylog's resolveNativeEntity).
func (f eventDefinitionFacade) dependencies(ctx context.Context, id string) ([]Descriptor, error) {
	d, err := f.defs.Get(ctx, id)
	if err != nil {
		return nil, err
	}
	var out []Descriptor
	for _, n := range d.Notifications {
		if f.notificationExists(ctx, n.NotificationID) {
			out = append(out, Descriptor{ID: n.NotificationID, Type: NotificationV1})
		}
	}
	for _, s := range d.Config.Streams {
		if f.streamExists(ctx, s) {
			out = append(out, Descriptor{ID: s, Type: StreamV1})
		}
	}
	return out, nil
}

func nonNilStrings(s []string) []string {
	if s == nil {
		return []string{}
	}
	return s
}

func (f eventDefinitionFacade) export(ctx context.Context, id string, ids exportIDs) (any, error) {
	d, err := f.defs.Get(ctx, id)
	if err != nil {
		return nil, err
	}
	if d.Config.Type != definitions.TypeAggregation {
		return nil, api.Errorf(api.Invalid, "Unsupported event definition config type %q", d.Config.Type)
	}
	scheduled, err := f.defs.Scheduled(ctx, id)
	if err != nil {
		return nil, err
	}
	c := d.Config
	cfg := eventConfigData{Type: c.Type, Query: ref(c.Query), Streams: []json.RawMessage{},
		GroupBy: marshalRaw(nonNilStrings(c.GroupBy)), Series: marshalRaw(c.Series), Conditions: marshalRaw(c.Conditions),
		SearchWithinMs: marshalRaw(c.SearchWithinMs), ExecuteEveryMs: marshalRaw(c.ExecuteEveryMs)}
	if c.Series == nil {
		cfg.Series = json.RawMessage("[]")
	}
	// Streams not exported with the definition are left out, as Graylog
	// leaves them.
	for _, s := range c.Streams {
		if eid, ok := ids[Descriptor{ID: s, Type: StreamV1}]; ok {
			cfg.Streams = append(cfg.Streams, marshalRaw(eid))
		}
	}
	fieldSpec := d.FieldSpec
	if fieldSpec == nil {
		fieldSpec = map[string]definitions.FieldSpec{}
	}
	out := eventDefinitionData{Title: ref(d.Title), Description: ref(d.Description), Priority: refInt(d.Priority), Alert: ref(d.Alert),
		Config: cfg, FieldSpec: marshalRaw(fieldSpec), KeySpec: marshalRaw(nonNilStrings(d.KeySpec)),
		NotificationSettings: marshalRaw(d.NotificationSettings), Notifications: []eventNotificationEn{},
		Storage: marshalRaw(d.Storage), IsScheduled: ref(scheduled)}
	for _, n := range d.Notifications {
		eid, ok := ids[Descriptor{ID: n.NotificationID, Type: NotificationV1}]
		if !ok {
			continue // a notification gone meanwhile
		}
		params := n.NotificationParameters
		if !present(params) {
			params = json.RawMessage("null")
		}
		out.Notifications = append(out.Notifications, eventNotificationEn{NotificationID: ref(eid), NotificationParameters: params})
	}
	return out, nil
}

// --- notification

// notificationFacade is Graylog's NotificationFacade.
type notificationFacade struct {
	n EventNotifications
	owned
}

// notificationData is Graylog's NotificationEntity.
type notificationData struct {
	Title       *ValueRef       `json:"title"`
	Description *ValueRef       `json:"description"`
	Config      json.RawMessage `json:"config"`
}

// notificationConfigData is every type's config entity:
// HttpEventNotificationConfigEntity, EmailEventNotificationConfigEntity,
// LegacyAlarmCallbackEventNotificationConfigEntity.
type notificationConfigData struct {
	Type            string          `json:"type"`
	URL             *ValueRef       `json:"url"`
	Sender          *ValueRef       `json:"sender"`
	Subject         *ValueRef       `json:"subject"`
	BodyTemplate    *ValueRef       `json:"body_template"`
	EmailRecipients json.RawMessage `json:"email_recipients"`
	UserRecipients  json.RawMessage `json:"user_recipients"`
	CallbackType    *ValueRef       `json:"callback_type"`
	Configuration   json.RawMessage `json:"configuration"`
}

// existing finds nothing: Graylog always creates a notification.
func (f notificationFacade) existing(context.Context, json.RawMessage, install) (*native, error) {
	return nil, nil
}

// native resolves the entity into the body of POST /events/notifications.
func (f notificationFacade) native(data json.RawMessage, p install) (body, error) {
	var d notificationData
	if err := decodeData(data, &d); err != nil {
		return nil, err
	}
	b := body{}
	if err := b.setStr(p, "title", d.Title); err != nil {
		return nil, err
	}
	if err := b.setStr(p, "description", d.Description); err != nil {
		return nil, err
	}
	if !present(d.Config) {
		return b, nil // the parser names it missing
	}
	var c notificationConfigData
	if err := decodeData(d.Config, &c); err != nil {
		return nil, err
	}
	cfg := body{"type": c.Type}
	var err error
	switch c.Type {
	case notify.TypeHTTP:
		err = cfg.setStr(p, "url", c.URL)
	case notify.TypeEmail:
		err = errors.Join(cfg.setStr(p, "sender", c.Sender), cfg.setStr(p, "subject", c.Subject),
			cfg.setStr(p, "body_template", c.BodyTemplate))
		cfg.setRaw("email_recipients", c.EmailRecipients)
		cfg.setRaw("user_recipients", c.UserRecipients)
	case notify.TypeLegacy:
		err = cfg.setStr(p, "callback_type", c.CallbackType)
		cfg.setRaw("configuration", c.Configuration)
	default:
		return nil, api.Errorf(api.Invalid, "Unsupported notification config type %q", c.Type)
	}
	b["config"] = cfg
	return b, err
}

// create checks the notification as POST /events/notifications does,
// then saves it with its job definition, owned by the caller.
func (f notificationFacade) create(ctx context.Context, data json.RawMessage, p install, _ string) (native, error) {
	b, err := f.native(data, p)
	if err != nil {
		return native{}, err
	}
	n, err := notify.Parse(marshalRaw(b))
	if err != nil {
		return native{}, err
	}
	if v := n.Validate(); v.Failed {
		return native{}, invalidEntity("notification", n.Title, v)
	}
	n.ID = ""
	n, err = f.n.Save(ctx, n)
	return f.created(ctx, n.ID, n.Title, err, f.remove)
}

func (f notificationFacade) exists(ctx context.Context, id string) bool {
	_, err := f.n.Get(ctx, id)
	return err == nil
}

// remove deletes the notification with its job and its uses, and its
// ownership.
func (f notificationFacade) remove(ctx context.Context, id string) error {
	if err := f.n.Delete(ctx, id); err != nil {
		return err
	}
	return f.forget(ctx, id)
}

func (f notificationFacade) excerpts(ctx context.Context) ([]Excerpt, error) {
	all, err := f.n.All(ctx)
	if err != nil {
		return nil, err
	}
	var out []Excerpt
	for _, n := range all {
		out = append(out, Excerpt{ID: n.ID, Type: NotificationV1, Title: n.Title})
	}
	return out, nil
}

// export writes the config of the notification's type. The password of a
// URL's user info is masked, as delivery errors show it: a pack is
// shared, its secrets are not.
func (f notificationFacade) export(ctx context.Context, id string, _ exportIDs) (any, error) {
	n, err := f.n.Get(ctx, id)
	if err != nil {
		return nil, err
	}
	c := n.Config
	cfg := map[string]any{"type": c.Type}
	switch c.Type {
	case notify.TypeHTTP:
		cfg["url"] = ref(notify.RedactURL(c.URL))
	case notify.TypeEmail:
		cfg["sender"], cfg["subject"], cfg["body_template"] = ref(c.Sender), ref(c.Subject), ref(c.BodyTemplate)
		cfg["email_recipients"], cfg["user_recipients"] = nonNilStrings(c.EmailRecipients), nonNilStrings(c.UserRecipients)
	case notify.TypeLegacy:
		conf := maps.Clone(c.Configuration)
		if conf == nil {
			conf = map[string]any{}
		}
		if u, ok := conf["url"].(string); ok {
			conf["url"] = notify.RedactURL(u)
		}
		cfg["callback_type"], cfg["configuration"] = ref(c.CallbackType), conf
	default:
		return nil, api.Errorf(api.Invalid, "Unsupported notification config type %q", c.Type)
	}
	return notificationData{Title: ref(n.Title), Description: ref(n.Description), Config: marshalRaw(cfg)}, nil
}
