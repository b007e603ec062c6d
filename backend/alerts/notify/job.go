package notify

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"time"

	"github.com/loggate/loggate/backend/alerts/definitions"
	"github.com/loggate/loggate/backend/alerts/events"
	"github.com/loggate/loggate/backend/alerts/scheduler"
	"github.com/loggate/loggate/backend/logs/messages"
	"github.com/loggate/loggate/backend/system/notifications"
	"github.com/loggate/loggate/router/api"
)

// Backlogs finds the messages a notification shows with an event.
type Backlogs interface {
	Backlog(ctx context.Context, d definitions.Definition, ev events.Event, n int) ([]messages.Hit, error)
}

// Notices raises and clears system notifications.
type Notices interface {
	Raise(ctx context.Context, n notifications.Notification) (bool, error)
	Clear(ctx context.Context, typ, key string) (bool, error)
}

// Back-off of failed deliveries: the first retry after retryBase, each
// next one after twice as long, at most retryMax; after maxAttempts
// failures the delivery is given up and its trigger put in error.
const (
	retryBase   = 5 * time.Second
	retryMax    = 5 * time.Minute
	maxAttempts = 10
	// maxBacklog is the most messages a notification shows with its
	// event: a search's default result window, which a backlog_size
	// beyond it could not be read past anyway.
	maxBacklog = messages.DefaultResultWindow
)

// System notification types of failed deliveries (Graylog's).
const (
	typeEmailFailed  = "email_transport_failed"
	typeEmailInvalid = "email_transport_configuration_invalid"
)

// Job delivers the notifications the event processor scheduled
// (notification-execution-v1 triggers).
type Job struct {
	svc     *Service
	defs    *definitions.Service
	backlog Backlogs
	out     *Deliverer
	notices Notices
	now     func() time.Time
}

// NewJob returns the delivery job.
func NewJob(svc *Service, defs *definitions.Service, b Backlogs, out *Deliverer, notices Notices, now func() time.Time) *Job {
	return &Job{svc: svc, defs: defs, backlog: b, out: out, notices: notices, now: now}
}

// Execute delivers one event to one notification.
func (j *Job) Execute(ctx context.Context, job scheduler.JobDefinition, tr scheduler.Trigger) (scheduler.Outcome, error) {
	var cfg jobConfig
	if err := json.Unmarshal(job.Config, &cfg); err != nil {
		return scheduler.Outcome{}, &scheduler.Permanent{Err: err}
	}
	var data triggerData
	if err := json.Unmarshal(tr.Data, &data); err != nil {
		return scheduler.Outcome{}, &scheduler.Permanent{Err: fmt.Errorf("trigger %s: %w", tr.ID, err)}
	}
	n, err := j.svc.Get(ctx, cfg.NotificationID)
	if err != nil {
		if api.ErrorCode(err) == api.NotFound {
			return scheduler.Outcome{Done: true}, nil // deleted since
		}
		return scheduler.Outcome{}, err
	}
	ev := data.EventDto
	// A failed delivery, or a backlog that cannot be read, is tried again
	// later, maxAttempts times at most.
	retry := func(err error) (scheduler.Outcome, error) {
		j.raise(ctx, n, err)
		data.Attempts++
		if data.Attempts >= maxAttempts {
			return scheduler.Outcome{}, &scheduler.Permanent{Err: fmt.Errorf("notification %s given up after %d attempts: %w", n.ID, data.Attempts, err)}
		}
		next, _ := json.Marshal(data)
		return scheduler.Outcome{}, &scheduler.Retry{Err: fmt.Errorf("notification %s: %w", n.ID, err), After: backoff(data.Attempts), Data: next}
	}
	var def *definitions.Definition
	var backlog []messages.Hit
	if d, err := j.defs.Get(ctx, ev.EventDefinitionID); err == nil {
		def = &d
		size := int(min(max(d.NotificationSettings.BacklogSize, 0), maxBacklog))
		if backlog, err = j.backlog.Backlog(ctx, d, ev, size); err != nil {
			return retry(fmt.Errorf("reading the backlog: %w", err))
		}
	}
	key := ""
	if ev.Key != nil {
		key = *ev.Key
	}
	sid := statusID(n.ID, ev.EventDefinitionID, key)
	if def != nil && def.NotificationSettings.GracePeriodMs > 0 {
		// Checked again: another event of the key may have gone out since
		// this one was scheduled.
		if st, err := j.status(ctx, sid); err == nil && st.NotifiedAt != nil &&
			st.NotifiedAt.After(ev.Timestamp.Add(-time.Duration(def.NotificationSettings.GracePeriodMs)*time.Millisecond)) &&
			st.NotifiedAt.Before(ev.Timestamp.Time) {
			return scheduler.Outcome{Done: true}, nil
		}
	}
	if err := j.out.Deliver(ctx, n, NewModel(def, job.ID, tr.ID, ev, backlog)); err != nil {
		return retry(err)
	}
	j.clear(ctx, n)
	now := api.Time{Time: j.now().UTC()}
	if err := j.svc.record(ctx, status{NotificationID: n.ID, EventDefinitionID: ev.EventDefinitionID, EventKey: key, NotifiedAt: &now}, sid); err != nil {
		return scheduler.Outcome{}, err
	}
	return scheduler.Outcome{Done: true}, nil
}

// backoff is the wait before the retry after the n-th failure.
func backoff(n int) time.Duration {
	d := retryBase
	for i := 1; i < n && d < retryMax; i++ {
		d *= 2
	}
	return min(d, retryMax)
}

func (j *Job) status(ctx context.Context, id string) (status, error) {
	doc, err := j.svc.st.Get(ctx, StatusCollection, id)
	if err != nil {
		return status{}, err
	}
	var st status
	err = json.Unmarshal(doc, &st)
	return st, err
}

// raise shows a failed delivery as a system notification, one per
// notification, as Graylog raises its email and URL whitelist ones.
func (j *Job) raise(ctx context.Context, n Notification, cause error) {
	sn := notifications.Notification{Type: notifications.TypeGeneric, Key: "event-notification/" + n.ID, Severity: notifications.SeverityNormal,
		Details: map[string]any{"title": "Event notification \"" + n.Title + "\" failed.", "description": cause.Error()}}
	switch {
	case errors.Is(cause, errNotAllowed):
		sn.Details["title"] = "URL not whitelisted."
	case errors.Is(cause, errTransportOff):
		sn.Type, sn.Details = typeEmailInvalid, map[string]any{"exception": cause.Error()}
	case errors.Is(cause, errTransport):
		sn.Type, sn.Details = typeEmailFailed, map[string]any{"exception": cause.Error()}
	}
	_, _ = j.notices.Raise(ctx, sn) // the retry goes on whether or not it shows
}

// clear removes the system notifications of a notification that works
// again.
func (j *Job) clear(ctx context.Context, n Notification) {
	for _, typ := range []string{notifications.TypeGeneric, typeEmailFailed, typeEmailInvalid} {
		_, _ = j.notices.Clear(ctx, typ, "event-notification/"+n.ID)
	}
}
