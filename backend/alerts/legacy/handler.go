package legacy

import (
	"context"
	"net/http"
	"net/url"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/loggate/loggate/auth"
	"github.com/loggate/loggate/backend/alerts/notify"
	"github.com/loggate/loggate/router/api"
)

// Handler serves the legacy alerting API.
type Handler struct {
	s       *Service
	checker *Checker
	onError func(error)

	// checks caches /alerts/check per stream for checkCacheFor, as
	// Graylog does.
	mu     sync.Mutex
	checks map[string]checkAnswer
}

// checkAnswer is a cached /alerts/check answer.
type checkAnswer struct {
	at   time.Time
	body map[string]any
}

// checkCacheFor is how long Graylog keeps a stream's check results.
const checkCacheFor = 30 * time.Second

// NewHandler returns the legacy alerting resources; c runs the checks and
// the dummy alerts whether or not enable_legacy_alerts is on, as Graylog
// 4.0's StreamAlertResource does.
func NewHandler(s *Service, c *Checker, onError func(error)) *Handler {
	return &Handler{s: s, checker: c, onError: onError, checks: map[string]checkAnswer{}}
}

const (
	condExample     = `{"type":"message_count","title":"Many errors","parameters":{"time":5,"threshold_type":"MORE","threshold":100,"grace":1,"backlog":5,"query":"level:3"}}`
	callbackExample = `{"type":"org.graylog2.alarmcallbacks.HTTPAlarmCallback","title":"hook","configuration":{"url":"https://hooks.example.org/alert"}}`
)

// Routes returns the legacy routes. First are the ones that must come
// before /streams/{streamId}, which would take /streams/alerts.
func (h *Handler) Routes() (first, rest []api.Route) {
	alerts := api.Route{Summary: "Legacy alerts of the streams the caller may read, newest first (kept only with enable_legacy_alerts; events take their place)",
		Handler: h.alerts, Query: []string{"since", "limit", "skip", "state"}, Deprecated: true}
	at := func(method, path string, r api.Route) api.Route {
		r.Method, r.Path = method, path
		return r
	}
	first = []api.Route{
		at("GET", "/streams/alerts", alerts),
		at("GET", "/streams/alerts/paginated", alerts),
		{Method: "GET", Path: "/streams/alerts/{alertId}", Summary: "Get an alert by ID", Deprecated: true, Handler: h.alert},
	}
	rest = []api.Route{
		at("GET", "/streams/{streamId}/alerts", alerts),
		at("GET", "/streams/{streamId}/alerts/paginated", alerts),
		{Method: "GET", Path: "/streams/{streamId}/alerts/check", Summary: "Check for triggered alert conditions of this streams. Results cached for 30 seconds.",
			Permission: "streams:read:{streamId}", Handler: h.check},
		{Method: "POST", Path: "/streams/{streamId}/alerts/sendDummyAlert", Summary: "Send a test mail for a given stream",
			Permission: "streams:edit:{streamId}", Handler: h.sendDummy},
		{Method: "GET", Path: "/streams/{streamId}/alerts/{alertId}/history", Summary: "Get a list of alarm callback executions for an alert",
			Permission: "streams:read:{streamId}", Handler: h.history},
		{Method: "GET", Path: "/streams/{streamId}/alerts/conditions", Summary: "Get all alert conditions of this stream",
			Permission: "streams:read:{streamId}", Handler: h.conditions},
		{Method: "POST", Path: "/streams/{streamId}/alerts/conditions", Summary: "Create an alert condition",
			Permission: "streams:edit:{streamId}", Body: condExample, Handler: h.createCondition},
		{Method: "GET", Path: "/streams/{streamId}/alerts/conditions/{conditionId}", Summary: "Get an alert condition",
			Permission: "streams:read:{streamId}", Handler: h.condition},
		{Method: "PUT", Path: "/streams/{streamId}/alerts/conditions/{conditionId}", Summary: "Modify an alert condition",
			Permission: "streams:edit:{streamId}", Body: condExample, Handler: h.updateCondition(false)},
		{Method: "DELETE", Path: "/streams/{streamId}/alerts/conditions/{conditionId}", Summary: "Delete an alert condition",
			Permission: "streams:edit:{streamId}", Handler: h.updateCondition(true)},
		{Method: "GET", Path: "/alerts/conditions", Summary: "Get a list of all alert conditions", Handler: h.allConditions},
		{Method: "GET", Path: "/alerts/conditions/types", Summary: "Get a list of all alert condition types", Handler: h.conditionTypes},
		{Method: "GET", Path: "/streams/{streamId}/alarmcallbacks", Summary: "Get a list of all alarm callbacks for this stream",
			Permission: "streams:read:{streamId}", Handler: h.callbacks},
		{Method: "POST", Path: "/streams/{streamId}/alarmcallbacks", Summary: "Create an alarm callback",
			Permission: "streams:edit:{streamId}", Body: callbackExample, Handler: h.createCallback},
		{Method: "GET", Path: "/streams/{streamId}/alarmcallbacks/available", Summary: "Get a list of all alarm callback types",
			Permission: "streams:read:{streamId}", Deprecated: true, Handler: h.callbackTypes},
		{Method: "GET", Path: "/streams/{streamId}/alarmcallbacks/{alarmCallbackId}", Summary: "Get a single specified alarm callback for this stream",
			Permission: "streams:read:{streamId}", Handler: h.callback},
		{Method: "PUT", Path: "/streams/{streamId}/alarmcallbacks/{alarmCallbackId}", Summary: "Update an alarm callback",
			Permission: "streams:edit:{streamId}", Body: callbackExample, Handler: h.updateCallback},
		{Method: "DELETE", Path: "/streams/{streamId}/alarmcallbacks/{alarmCallbackId}", Summary: "Delete an alarm callback",
			Permission: "streams:edit:{streamId}", Handler: h.deleteCallback},
		{Method: "GET", Path: "/alerts/callbacks", Summary: "Get a list of all alarm callbacks", Handler: h.allCallbacks},
		{Method: "GET", Path: "/alerts/callbacks/types", Summary: "Get a list of all alarm callback types", Handler: h.callbackTypes},
	}
	return first, rest
}

// changed migrates a stream's conditions and callbacks after a change by a
// client older than 3.1, whose conditions and callbacks are its only
// alerting: what was migrated before is rewritten from them. The change is
// stored either way; a failed migration is retried at the next start.
// Other clients' changes are migrated at the next start, as Graylog 4.0
// does (with enable_legacy_alerts the legacy checker evaluates them
// meanwhile).
func (h *Handler) changed(r *http.Request, streamID string) {
	if !migrateNow(r.Context()) {
		return
	}
	if err := h.s.SyncStream(r.Context(), streamID); err != nil && h.onError != nil {
		h.onError(err)
	}
}

// removed deletes what a condition or callback a client older than 3.1
// deleted was migrated to.
func (h *Handler) removed(r *http.Request, id string) {
	if !migrateNow(r.Context()) {
		return
	}
	if err := h.s.Forget(r.Context(), id); err != nil && h.onError != nil {
		h.onError(err)
	}
}

func streamPerm(r *http.Request, verb string) (string, error) {
	sid := api.Var(r, "streamId")
	return sid, auth.Require(r.Context(), "streams:"+verb+":"+sid)
}

// alerts lists legacy alerts: of the path's stream, or of every stream the
// caller may read; since (unix seconds) and limit (300) page /alerts,
// skip, limit and state (any, resolved, unresolved) /alerts/paginated.
func (h *Handler) alerts(w http.ResponseWriter, r *http.Request) error {
	p := auth.FromContext(r.Context())
	if p == nil {
		return auth.Unauthenticated()
	}
	var f AlertFilter
	if sid := api.Var(r, "streamId"); sid != "" {
		if _, err := streamPerm(r, "read"); err != nil {
			return err
		}
		if _, err := h.s.streams.Get(sid); err != nil {
			return err
		}
		f.Streams = []string{sid}
	} else {
		for _, st := range h.s.streams.All() {
			if p.Permits("streams:read:" + st.ID) {
				f.Streams = append(f.Streams, st.ID)
			}
		}
	}
	q := r.URL.Query()
	since, err := intParam(q.Get("since"), 0)
	if err != nil {
		return err
	}
	limit, err := intParam(q.Get("limit"), 300)
	if err != nil {
		return err
	}
	skip, err := intParam(q.Get("skip"), 0)
	if err != nil {
		return err
	}
	paginated := strings.HasSuffix(r.URL.Path, "/paginated")
	if paginated {
		f.State = strings.ToLower(q.Get("state"))
	} else {
		f.Since, skip = time.Unix(int64(since), 0), 0
	}
	all, err := h.s.Alerts(r.Context(), f)
	if err != nil {
		return err
	}
	page := all[min(skip, len(all)):]
	page = page[:min(limit, len(page))]
	if page == nil {
		page = []Alert{}
	}
	api.WriteJSON(w, http.StatusOK, map[string]any{"total": len(all), "alerts": page})
	return nil
}

func (h *Handler) alert(w http.ResponseWriter, r *http.Request) error {
	a, err := h.s.Alert(r.Context(), api.Var(r, "alertId"))
	if err != nil {
		return err
	}
	if err := auth.Require(r.Context(), "streams:read:"+a.StreamID); err != nil {
		return err
	}
	api.WriteJSON(w, http.StatusOK, a)
	return nil
}

// check runs the path's stream's conditions now (or answers what a check
// found less than 30 s ago).
func (h *Handler) check(w http.ResponseWriter, r *http.Request) error {
	sid, err := streamPerm(r, "read")
	if err != nil {
		return err
	}
	now := h.s.now()
	h.mu.Lock()
	c, ok := h.checks[sid]
	h.mu.Unlock()
	if !ok || now.Sub(c.at) >= checkCacheFor {
		results, err := h.checker.CheckStream(r.Context(), sid)
		if err != nil {
			return err
		}
		n := 0
		for _, res := range results {
			if res.Triggered {
				n++
			}
		}
		c = checkAnswer{at: now, body: map[string]any{"results": results, "total_triggered": n,
			"calculated_at": api.Time{Time: now.UTC().Truncate(time.Millisecond)}}}
		h.mu.Lock()
		for id, old := range h.checks {
			if now.Sub(old.at) >= checkCacheFor {
				delete(h.checks, id)
			}
		}
		h.checks[sid] = c
		h.mu.Unlock()
	}
	api.WriteJSON(w, http.StatusOK, c.body)
	return nil
}

// sendDummy sends a dummy alert to the path's stream's alarm callbacks.
func (h *Handler) sendDummy(w http.ResponseWriter, r *http.Request) error {
	sid, err := streamPerm(r, "edit")
	if err != nil {
		return err
	}
	if err := h.checker.SendDummy(r.Context(), sid, auth.FromContext(r.Context()).Username); err != nil {
		return err
	}
	api.NoContent(w)
	return nil
}

// history lists the alarm callback deliveries of an alert of the path's
// stream. An alert of another stream has none there, as an unknown one:
// its deliveries name the callbacks of a stream the caller may not read.
func (h *Handler) history(w http.ResponseWriter, r *http.Request) error {
	sid, err := streamPerm(r, "read")
	if err != nil {
		return err
	}
	hs := []History{}
	a, err := h.s.Alert(r.Context(), api.Var(r, "alertId"))
	switch {
	case err == nil && a.StreamID == sid:
		if hs, err = h.s.Histories(r.Context(), a.ID); err != nil {
			return err
		}
	case err != nil && api.ErrorCode(err) != api.NotFound:
		return err
	}
	api.WriteJSON(w, http.StatusOK, map[string]any{"total": len(hs), "histories": hs})
	return nil
}

// intParam parses a non-negative query parameter, def when absent.
func intParam(v string, def int) (int, error) {
	if v == "" {
		return def, nil
	}
	n, err := strconv.Atoi(v)
	if err != nil || n < 0 {
		return 0, api.Errorf(api.Invalid, "Invalid parameter value %q", v)
	}
	return n, nil
}

// readConditions returns the conditions of the path's stream if the caller
// may read it.
func (h *Handler) readConditions(r *http.Request) ([]Condition, error) {
	sid, err := streamPerm(r, "read")
	if err != nil {
		return nil, err
	}
	return h.s.Conditions(sid)
}

func (h *Handler) conditions(w http.ResponseWriter, r *http.Request) error {
	cs, err := h.readConditions(r)
	if err != nil {
		return err
	}
	api.WriteJSON(w, http.StatusOK, map[string]any{"total": len(cs), "conditions": cs})
	return nil
}

func (h *Handler) allConditions(w http.ResponseWriter, r *http.Request) error {
	p := auth.FromContext(r.Context())
	if p == nil {
		return auth.Unauthenticated()
	}
	out := []Condition{}
	for _, st := range h.s.streams.All() {
		if !p.Permits("streams:read:" + st.ID) {
			continue
		}
		cs, err := h.s.Conditions(st.ID)
		if err != nil {
			return err
		}
		out = append(out, cs...)
	}
	api.WriteJSON(w, http.StatusOK, map[string]any{"total": len(out), "conditions": out})
	return nil
}

func (h *Handler) condition(w http.ResponseWriter, r *http.Request) error {
	cs, err := h.readConditions(r)
	if err != nil {
		return err
	}
	id := api.Var(r, "conditionId")
	for _, c := range cs {
		if c.ID == id {
			api.WriteJSON(w, http.StatusOK, c)
			return nil
		}
	}
	return errNoCondition(id)
}

type conditionIn struct {
	Type       string         `json:"type"`
	Title      *string        `json:"title"`
	Parameters map[string]any `json:"parameters"`
}

func (h *Handler) createCondition(w http.ResponseWriter, r *http.Request) error {
	sid, err := streamPerm(r, "edit")
	if err != nil {
		return err
	}
	var in conditionIn
	if err := api.Decode(r, &in, false); err != nil {
		return err
	}
	creator := ""
	if p := auth.FromContext(r.Context()); p != nil {
		creator = p.Username
	}
	c, err := h.s.AddCondition(r.Context(), sid, in.Type, in.Title, in.Parameters, creator)
	if err != nil {
		return err
	}
	h.changed(r, sid)
	w.Header().Set("Location", api.Location(r, "/streams/"+url.PathEscape(sid)+"/alerts/conditions/"+url.PathEscape(c.ID)))
	api.WriteJSON(w, http.StatusCreated, map[string]string{"alert_condition_id": c.ID})
	return nil
}

func (h *Handler) updateCondition(remove bool) api.HandlerFunc {
	return func(w http.ResponseWriter, r *http.Request) error {
		sid, err := streamPerm(r, "edit")
		if err != nil {
			return err
		}
		var in conditionIn
		if !remove {
			if err := api.Decode(r, &in, false); err != nil {
				return err
			}
		}
		if err := h.s.UpdateCondition(r.Context(), sid, api.Var(r, "conditionId"), in.Title, in.Parameters, remove); err != nil {
			return err
		}
		if remove {
			h.removed(r, api.Var(r, "conditionId"))
		} else {
			h.changed(r, sid)
		}
		api.NoContent(w)
		return nil
	}
}

// conditionTypes lists the condition types with what they ask for.
func (h *Handler) conditionTypes(w http.ResponseWriter, r *http.Request) error {
	if auth.FromContext(r.Context()) == nil {
		return auth.Unauthenticated()
	}
	names := map[string][2]string{
		MessageCount:      {"org.graylog2.alerts.types.MessageCountAlertCondition", "Message Count Alert Condition"},
		FieldValue:        {"org.graylog2.alerts.types.FieldValueAlertCondition", "Field Aggregation Alert Condition"},
		FieldContentValue: {"org.graylog2.alerts.types.FieldContentValueAlertCondition", "Field Content Alert Condition"},
	}
	out := map[string]any{}
	for typ, need := range required {
		conf := map[string]any{}
		for i, p := range need {
			conf[p] = map[string]any{"human_name": p, "description": "", "is_optional": false, "position": (i + 1) * 10, "attributes": []string{},
				"additional_info": map[string]any{}, "type": "text", "default_value": ""}
		}
		out[typ] = map[string]any{"type": typ, "name": names[typ][0], "human_name": names[typ][1], "requested_configuration": conf,
			"link_to_docs": "https://docs.graylog.org/en/3.0/pages/streams/alerts.html#conditions"}
	}
	api.WriteJSON(w, http.StatusOK, out)
	return nil
}

func (h *Handler) callbacks(w http.ResponseWriter, r *http.Request) error {
	sid, err := streamPerm(r, "read")
	if err != nil {
		return err
	}
	if _, err := h.s.streams.Get(sid); err != nil {
		return err
	}
	cbs, err := h.s.Callbacks(r.Context(), sid)
	if err != nil {
		return err
	}
	if cbs == nil {
		cbs = []Callback{}
	}
	api.WriteJSON(w, http.StatusOK, map[string]any{"total": len(cbs), "alarmcallbacks": cbs})
	return nil
}

func (h *Handler) allCallbacks(w http.ResponseWriter, r *http.Request) error {
	p := auth.FromContext(r.Context())
	if p == nil {
		return auth.Unauthenticated()
	}
	all, err := h.s.Callbacks(r.Context(), "")
	if err != nil {
		return err
	}
	out := []Callback{}
	for _, c := range all {
		if p.Permits("streams:read:" + c.StreamID) {
			out = append(out, c)
		}
	}
	api.WriteJSON(w, http.StatusOK, map[string]any{"total": len(out), "alarmcallbacks": out})
	return nil
}

// streamCallback checks the caller's verb on the path's stream and returns
// the stream's id and the callback of the path, if it belongs to that
// stream.
func (h *Handler) streamCallback(r *http.Request, verb string) (string, Callback, error) {
	sid, err := streamPerm(r, verb)
	if err != nil {
		return "", Callback{}, err
	}
	id := api.Var(r, "alarmCallbackId")
	c, err := h.s.Callback(r.Context(), id)
	if err == nil && c.StreamID != sid {
		err = api.Errorf(api.NotFound, "Couldn't find alarm callback %s", id)
	}
	return sid, c, err
}

func (h *Handler) callback(w http.ResponseWriter, r *http.Request) error {
	_, c, err := h.streamCallback(r, "read")
	if err != nil {
		return err
	}
	api.WriteJSON(w, http.StatusOK, c)
	return nil
}

type callbackIn struct {
	Type          string         `json:"type"`
	Title         *string        `json:"title"`
	Configuration map[string]any `json:"configuration"`
}

func (h *Handler) createCallback(w http.ResponseWriter, r *http.Request) error {
	sid, err := streamPerm(r, "edit")
	if err != nil {
		return err
	}
	if _, err := h.s.streams.Get(sid); err != nil {
		return err
	}
	var in callbackIn
	if err := api.Decode(r, &in, false); err != nil {
		return err
	}
	if _, ok := notify.LegacyTypes()[in.Type]; !ok {
		return api.Errorf(api.Invalid, "Unable to load alarm callback of type %s", in.Type)
	}
	creator := ""
	if p := auth.FromContext(r.Context()); p != nil {
		creator = p.Username
	}
	c, err := h.s.PutCallback(r.Context(), Callback{StreamID: sid, Type: in.Type, Title: in.Title, Configuration: in.Configuration, CreatorUserID: creator})
	if err != nil {
		return err
	}
	h.changed(r, sid)
	w.Header().Set("Location", api.Location(r, "/streams/"+url.PathEscape(sid)+"/alarmcallbacks/"+url.PathEscape(c.ID)))
	api.WriteJSON(w, http.StatusCreated, map[string]string{"alarmcallback_id": c.ID})
	return nil
}

func (h *Handler) updateCallback(w http.ResponseWriter, r *http.Request) error {
	sid, c, err := h.streamCallback(r, "edit")
	if err != nil {
		return err
	}
	var in callbackIn
	if err := api.Decode(r, &in, false); err != nil {
		return err
	}
	c.Title, c.Configuration = in.Title, in.Configuration
	if _, err := h.s.PutCallback(r.Context(), c); err != nil {
		return err
	}
	h.changed(r, sid)
	api.NoContent(w)
	return nil
}

func (h *Handler) deleteCallback(w http.ResponseWriter, r *http.Request) error {
	_, c, err := h.streamCallback(r, "edit")
	if err != nil {
		return err
	}
	if err := h.s.DeleteCallback(r.Context(), c.ID); err != nil {
		return err
	}
	h.removed(r, c.ID)
	api.NoContent(w)
	return nil
}

func (h *Handler) callbackTypes(w http.ResponseWriter, r *http.Request) error {
	if auth.FromContext(r.Context()) == nil {
		return auth.Unauthenticated()
	}
	types := map[string]any{}
	for class, t := range notify.LegacyTypes() {
		types[class] = map[string]any{"name": t["name"], "requested_configuration": t["configuration"]}
	}
	api.WriteJSON(w, http.StatusOK, map[string]any{"types": types})
	return nil
}

type migrateKey struct{}

// MigrateNow marks a request whose changes of conditions and callbacks are
// migrated to event definitions and notifications at once: a client older
// than 3.1, which knows no other way to get alerts.
func MigrateNow(ctx context.Context) context.Context {
	return context.WithValue(ctx, migrateKey{}, true)
}

// migrateNow reports whether ctx was marked by MigrateNow.
func migrateNow(ctx context.Context) bool { v, _ := ctx.Value(migrateKey{}).(bool); return v }
