package definitions

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"slices"
	"time"

	"github.com/loggate/loggate/backend/alerts/entity"
	"github.com/loggate/loggate/backend/alerts/scheduler"
	"github.com/loggate/loggate/backend/store"
	"github.com/loggate/loggate/router/api"
)

// Service stores event definitions and schedules them.
type Service struct {
	docs  entity.Collection[Definition]
	sched *scheduler.Scheduler
}

// NewService returns the definitions of st, scheduled on sched.
func NewService(st store.Store, sched *scheduler.Scheduler) *Service {
	return &Service{sched: sched, docs: entity.Collection[Definition]{St: st, Name: Collection,
		NotFound: func(id string) error { return api.Errorf(api.NotFound, "Event definition %s doesn't exist", id) },
		Title:    func(d Definition) string { return d.Title }}}
}

// NewID returns a new ObjectId-like id.
func (s *Service) NewID() string { return s.sched.NewID() }

// Get returns a definition.
func (s *Service) Get(ctx context.Context, id string) (Definition, error) { return s.docs.Get(ctx, id) }

// All returns every definition, sorted by title.
func (s *Service) All(ctx context.Context) ([]Definition, error) { return s.docs.All(ctx) }

// Save stores d (a new one when its id is empty) and, when schedule is set,
// makes sure it is scheduled; otherwise it unschedules it.
func (s *Service) Save(ctx context.Context, d Definition, schedule bool) (Definition, error) {
	if d.ID == "" {
		d.ID = s.NewID()
	}
	d.Storage = defaultStorage()
	if err := s.docs.Put(ctx, d.ID, d); err != nil {
		return d, err
	}
	if schedule {
		return d, s.Schedule(ctx, d.ID)
	}
	return d, s.Unschedule(ctx, d.ID)
}

// Delete removes a definition and its job; an unknown one is no error.
func (s *Service) Delete(ctx context.Context, id string) error {
	if err := s.Unschedule(ctx, id); err != nil {
		return err
	}
	return s.docs.Delete(ctx, id)
}

// AddNotifications adds to a definition the notifications it lacks.
func (s *Service) AddNotifications(ctx context.Context, id string, refs []NotificationRef) error {
	return s.docs.Update(ctx, id, func(d *Definition) {
		for _, r := range refs {
			if !slices.ContainsFunc(d.Notifications, func(n NotificationRef) bool { return n.NotificationID == r.NotificationID }) {
				d.Notifications = append(d.Notifications, r)
			}
		}
	})
}

// RemoveNotification drops a deleted notification from every definition.
func (s *Service) RemoveNotification(ctx context.Context, notificationID string) error {
	all, err := s.All(ctx)
	if err != nil {
		return err
	}
	for _, d := range all {
		if !slices.ContainsFunc(d.Notifications, func(n NotificationRef) bool { return n.NotificationID == notificationID }) {
			continue
		}
		err := s.docs.Update(ctx, d.ID, func(cur *Definition) {
			cur.Notifications = slices.DeleteFunc(cur.Notifications, func(n NotificationRef) bool { return n.NotificationID == notificationID })
		})
		if err != nil && !errors.Is(err, store.ErrNotFound) {
			return err
		}
	}
	return nil
}

// jobConfig is the config of an event-processor-execution-v1 job
// definition (EventProcessorExecutionJob.Config).
type jobConfig struct {
	Type                 string        `json:"type"`
	EventDefinitionID    string        `json:"event_definition_id"`
	ProcessingWindowSize int64         `json:"processing_window_size"`
	ProcessingHopSize    int64         `json:"processing_hop_size"`
	Parameters           jobParameters `json:"parameters"`
}

type jobParameters struct {
	Type      string   `json:"type"`
	TimeRange jobRange `json:"timerange"`
	Streams   []string `json:"streams"`
	BatchSize int      `json:"batch_size"`
}

type jobRange struct {
	Type string   `json:"type"`
	From api.Time `json:"from"`
	To   api.Time `json:"to"`
}

// triggerData is an execution trigger's data: the next window.
type triggerData struct {
	Type          string   `json:"type"`
	TimerangeFrom api.Time `json:"timerange_from"`
	TimerangeTo   api.Time `json:"timerange_to"`
}

// job returns the job definition of a definition, if it is scheduled.
func (s *Service) job(ctx context.Context, id string) (scheduler.JobDefinition, bool, error) {
	jobs, err := s.sched.Jobs(ctx)
	if err != nil {
		return scheduler.JobDefinition{}, false, err
	}
	for _, j := range jobs {
		if j.Type() != TypeExecutionJob {
			continue
		}
		var c jobConfig
		if json.Unmarshal(j.Config, &c) == nil && c.EventDefinitionID == id {
			return j, true, nil
		}
	}
	return scheduler.JobDefinition{}, false, nil
}

// window returns the first window of a newly scheduled definition: the
// search_within_ms that ends now.
func window(now time.Time, c Config) (from, to time.Time) {
	return now.Add(-time.Duration(c.SearchWithinMs)*time.Millisecond + time.Millisecond), now
}

// Schedule creates the job definition and trigger of a definition, or
// updates the job's window sizes when it has them.
func (s *Service) Schedule(ctx context.Context, id string) error {
	d, err := s.Get(ctx, id)
	if err != nil {
		if api.ErrorCode(err) == api.NotFound {
			// Graylog answers an unknown id with an IllegalArgumentException.
			return fmt.Errorf("event definition %s doesn't exist", id)
		}
		return err
	}
	if d.Config.Type != TypeAggregation || d.Config.ExecuteEveryMs <= 0 {
		return fmt.Errorf("event definition %s cannot be scheduled", id)
	}
	now := s.sched.Now()
	from, to := window(now, d.Config)
	cfg := jobConfig{Type: TypeExecutionJob, EventDefinitionID: id, ProcessingWindowSize: d.Config.SearchWithinMs,
		ProcessingHopSize: d.Config.ExecuteEveryMs, Parameters: jobParameters{Type: TypeAggregation,
			TimeRange: jobRange{Type: "absolute", From: api.Time{Time: from}, To: api.Time{Time: to}}, Streams: []string{}, BatchSize: 500}}
	raw, err := json.Marshal(cfg)
	if err != nil {
		return err
	}
	j, ok, err := s.job(ctx, id)
	if err != nil {
		return err
	}
	if ok {
		j.Title, j.Description, j.Config = d.Title, d.Description, raw
		_, err := s.sched.PutJob(ctx, j)
		return err
	}
	j, err = s.sched.PutJob(ctx, scheduler.JobDefinition{Title: d.Title, Description: d.Description, Config: raw})
	if err != nil {
		return err
	}
	data, _ := json.Marshal(triggerData{Type: TypeExecutionJob, TimerangeFrom: api.Time{Time: from}, TimerangeTo: api.Time{Time: to}})
	_, err = s.sched.AddTrigger(ctx, scheduler.Trigger{JobDefinitionID: j.ID, NextTime: api.Time{Time: now},
		Schedule: scheduler.Schedule{Type: "interval", Interval: d.Config.ExecuteEveryMs, Unit: "MILLISECONDS"}, Data: data})
	return err
}

// Scheduled reports whether a definition has its job definition, as
// Graylog's content packs export is_scheduled.
func (s *Service) Scheduled(ctx context.Context, id string) (bool, error) {
	_, ok, err := s.job(ctx, id)
	return ok, err
}

// Unschedule deletes a definition's job definition and trigger.
func (s *Service) Unschedule(ctx context.Context, id string) error {
	j, ok, err := s.job(ctx, id)
	if err != nil || !ok {
		return err
	}
	return s.sched.DeleteJob(ctx, j.ID)
}

// SchedulerContext is context.scheduler of the listing: each definition's
// scheduling state, by id.
func (s *Service) SchedulerContext(ctx context.Context, ids []string) (map[string]any, error) {
	jobs, err := s.sched.Jobs(ctx)
	if err != nil {
		return nil, err
	}
	trs, err := s.sched.Triggers(ctx)
	if err != nil {
		return nil, err
	}
	byDef := map[string]string{}
	for _, j := range jobs {
		var c jobConfig
		if j.Type() == TypeExecutionJob && json.Unmarshal(j.Config, &c) == nil {
			byDef[c.EventDefinitionID] = j.ID
		}
	}
	out := make(map[string]any, len(ids))
	for _, id := range ids {
		st := map[string]any{"is_scheduled": false, "status": nil, "next_time": nil, "triggered_at": nil, "data": nil}
		if jobID, ok := byDef[id]; ok {
			st["is_scheduled"] = true
			for _, tr := range trs {
				if tr.JobDefinitionID == jobID {
					st["status"], st["next_time"], st["triggered_at"], st["data"] = tr.Status, tr.NextTime, tr.TriggeredAt, tr.Data
					break
				}
			}
		}
		out[id] = st
	}
	return out, nil
}
