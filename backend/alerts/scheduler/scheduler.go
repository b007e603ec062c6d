// Package scheduler owns Graylog's job scheduler: job definitions and their
// triggers in the document store, and the loop that runs due triggers on the
// node holding the leader lease. Every change of a trigger's state is a
// compare-and-set on the trigger's document (store.Update refusing when the
// lock clock moved), so that of several nodes — a leader and the one taking
// over after it died — exactly one runs each firing, and a firing whose
// runner died before recording it is run again by the next leader. Jobs make
// their effects idempotent per firing (fixed ids), so such a re-run neither
// doubles nor loses anything.
package scheduler

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"slices"
	"strings"
	"time"

	"github.com/loggate/loggate/backend/store"
	"github.com/loggate/loggate/router/api"
)

// Collections, as Graylog names them.
const (
	JobsCollection     = "scheduler_job_definitions"
	TriggersCollection = "scheduler_triggers"
)

// Trigger statuses, as Graylog spells them.
const (
	StatusRunnable = "runnable"
	StatusRunning  = "running"
	StatusComplete = "complete"
	StatusPaused   = "paused"
	StatusError    = "error"
)

// Defaults of Options.
const (
	// DefaultLoop is how often the leader looks for due triggers (Graylog's
	// job_scheduler_loop_sleep_duration).
	DefaultLoop = time.Second
	// DefaultLockTTL is how long a running trigger stays locked by a node
	// that does not finish it; then the leader runs it again.
	DefaultLockTTL = 5 * time.Minute
	// RetryDelay is when a failed firing is tried again (Graylog: 5 s).
	RetryDelay = 5 * time.Second
)

// JobDefinition is Graylog's JobDefinitionDto.
type JobDefinition struct {
	ID          string          `json:"id"`
	Title       string          `json:"title"`
	Description string          `json:"description"`
	Config      json.RawMessage `json:"config"`
}

// Type is the type of the definition's config.
func (d JobDefinition) Type() string { return typeOf(d.Config) }

// Schedule is a trigger's schedule: {"type":"interval","interval":n,"unit":
// "MILLISECONDS"} or {"type":"once"}.
type Schedule struct {
	Type     string `json:"type"`
	Interval int64  `json:"interval,omitempty"`
	Unit     string `json:"unit,omitempty"`
}

// Lock is who runs a trigger; Clock counts the claims, and every state
// change compares it.
type Lock struct {
	Owner        *string   `json:"owner"`
	LastLockTime *api.Time `json:"last_lock_time"`
	Clock        int64     `json:"clock"`
	Progress     int       `json:"progress"`
}

// Trigger is Graylog's JobTriggerDto.
type Trigger struct {
	ID              string          `json:"id"`
	JobDefinitionID string          `json:"job_definition_id"`
	StartTime       api.Time        `json:"start_time"`
	EndTime         *api.Time       `json:"end_time"`
	NextTime        api.Time        `json:"next_time"`
	CreatedAt       api.Time        `json:"created_at"`
	UpdatedAt       api.Time        `json:"updated_at"`
	TriggeredAt     *api.Time       `json:"triggered_at"`
	Status          string          `json:"status"`
	Lock            Lock            `json:"lock"`
	Schedule        Schedule        `json:"schedule"`
	Data            json.RawMessage `json:"data"`
}

// Outcome is what a job reports of one firing.
type Outcome struct {
	// Next is when the trigger fires again; ignored when Done.
	Next time.Time
	// Data replaces the trigger's data when not nil.
	Data json.RawMessage
	// Done completes the trigger (a one-shot job).
	Done bool
}

// Job runs the firings of the job definitions of one config type.
type Job interface {
	Execute(ctx context.Context, def JobDefinition, tr Trigger) (Outcome, error)
}

// Preparer is a Job that is shown, before a pass of the scheduler fires
// them one by one, every trigger of its type due in that pass: the event
// processor reads a window shared by several definitions once for all of
// them. Preparing is an optimization only; each firing still runs through
// Execute, claimed and recorded as any other.
type Preparer interface {
	Prepare(ctx context.Context, due []Due)
}

// Due is a trigger due in a pass, with its job definition.
type Due struct {
	Job     JobDefinition
	Trigger Trigger
}

// Retry is a job error after which the firing is tried again at After,
// with Data (when not nil) replacing the trigger's data: a job backs off
// by counting its attempts there.
type Retry struct {
	Err   error
	After time.Duration
	Data  json.RawMessage
}

func (r *Retry) Error() string { return r.Err.Error() }
func (r *Retry) Unwrap() error { return r.Err }

// Permanent marks a job error that retrying cannot fix: the trigger goes to
// the error status.
type Permanent struct{ Err error }

func (p *Permanent) Error() string { return p.Err.Error() }
func (p *Permanent) Unwrap() error { return p.Err }

// Options tune a scheduler.
type Options struct {
	Loop    time.Duration
	LockTTL time.Duration
	// OnError receives failures of the loop and of firings (logged by the
	// node); may be nil.
	OnError func(error)
	// Only, when not empty, are the job types (the type of a trigger's
	// data) this scheduler runs: the node runs event processing and
	// notification delivery in two schedulers, so that a slow mail server
	// never delays the event definitions.
	Only []string
	// BeforeCommit, when set, is called after a firing ran and before its
	// outcome is recorded; tests kill a leader there.
	BeforeCommit func(tr Trigger)
}

// Scheduler runs due triggers while leader says this node leads.
type Scheduler struct {
	st     store.Store
	now    func() time.Time
	self   string
	leader func() bool
	opts   Options
	jobs   map[string]Job
	ids    func() string
}

// New returns a scheduler of node self over st.
func New(st store.Store, now func() time.Time, self string, leader func() bool, ids func() string, opts Options) *Scheduler {
	if opts.Loop <= 0 {
		opts.Loop = DefaultLoop
	}
	if opts.LockTTL <= 0 {
		opts.LockTTL = DefaultLockTTL
	}
	return &Scheduler{st: st, now: now, self: self, leader: leader, opts: opts, jobs: map[string]Job{}, ids: ids}
}

// Register makes job run the definitions whose config type is typ. Call
// before Run.
func (s *Scheduler) Register(typ string, job Job) { s.jobs[typ] = job }

// Now is the scheduler's clock.
func (s *Scheduler) Now() time.Time { return s.now().UTC().Truncate(time.Millisecond) }

// NewID returns a new document id.
func (s *Scheduler) NewID() string { return s.ids() }

func typeOf(config json.RawMessage) string {
	var t struct {
		Type string `json:"type"`
	}
	_ = json.Unmarshal(config, &t)
	return t.Type
}

// errLost aborts a state change another node made first.
var errLost = errors.New("trigger changed by another runner")

// Run looks for due triggers every Loop until ctx ends, while this node
// leads.
func (s *Scheduler) Run(ctx context.Context) {
	t := time.NewTicker(s.opts.Loop)
	defer t.Stop()
	for {
		if s.leader() {
			if _, err := s.RunDue(ctx); err != nil && ctx.Err() == nil && s.opts.OnError != nil {
				s.opts.OnError(err)
			}
		}
		select {
		case <-ctx.Done():
			return
		case <-t.C:
		}
	}
}

// RunDue runs every trigger due now, one after another, and returns how
// many firings it recorded. A trigger whose job moves its next time into
// the past (a catch-up) is run again in the same pass.
func (s *Scheduler) RunDue(ctx context.Context) (int, error) {
	ran := 0
	for {
		trs, err := s.Triggers(ctx)
		if err != nil {
			return ran, err
		}
		now := s.now()
		slices.SortFunc(trs, func(a, b Trigger) int { return a.NextTime.Compare(b.NextTime.Time) })
		s.prepare(ctx, trs, now)
		progressed := false
		var errs []error
		for _, tr := range trs {
			if ctx.Err() != nil || !s.leader() {
				return ran, errors.Join(errs...)
			}
			if !s.due(tr, now) {
				continue
			}
			ok, err := s.fire(ctx, tr)
			if err != nil {
				errs = append(errs, err)
			}
			if ok {
				ran++
				progressed = true
			}
		}
		if !progressed || len(errs) > 0 {
			return ran, errors.Join(errs...)
		}
	}
}

// prepare shows the jobs that are Preparers their triggers due at now.
func (s *Scheduler) prepare(ctx context.Context, trs []Trigger, now time.Time) {
	due := map[string][]Due{}
	for _, tr := range trs {
		typ := typeOf(tr.Data)
		if _, ok := s.jobs[typ].(Preparer); !ok || !s.due(tr, now) {
			continue
		}
		def, err := s.Job(ctx, tr.JobDefinitionID)
		if err != nil {
			continue // the firing reports it
		}
		due[typ] = append(due[typ], Due{Job: def, Trigger: tr})
	}
	for typ, d := range due {
		s.jobs[typ].(Preparer).Prepare(ctx, d)
	}
}

// due reports whether tr should fire at now: runnable and at its time, or
// running under a lock nobody renewed for LockTTL (its runner died).
func (s *Scheduler) due(tr Trigger, now time.Time) bool {
	if len(s.opts.Only) > 0 && !slices.Contains(s.opts.Only, typeOf(tr.Data)) {
		return false
	}
	switch tr.Status {
	case StatusRunnable:
		return !tr.NextTime.After(now) && (tr.EndTime == nil || tr.EndTime.IsZero() || !now.After(tr.EndTime.Time))
	case StatusRunning:
		return tr.Lock.LastLockTime == nil || now.Sub(tr.Lock.LastLockTime.Time) >= s.opts.LockTTL
	}
	return false
}

// fire claims tr, runs its job and records the outcome. It reports whether
// it recorded a firing; losing the claim to another runner is no error.
func (s *Scheduler) fire(ctx context.Context, seen Trigger) (bool, error) {
	claimed, err := s.claim(ctx, seen)
	if errors.Is(err, errLost) || errors.Is(err, store.ErrNotFound) {
		return false, nil
	}
	if err != nil {
		return false, err
	}
	out, runErr := s.execute(ctx, claimed)
	if ctx.Err() != nil {
		// Stopped mid-job: the lock stays, and the next leader runs the
		// firing again once it expires.
		return false, nil
	}
	if s.opts.BeforeCommit != nil {
		s.opts.BeforeCommit(claimed)
	}
	err = s.update(ctx, claimed.ID, func(tr *Trigger) error {
		if tr.Lock.Owner == nil || *tr.Lock.Owner != s.self || tr.Lock.Clock != claimed.Lock.Clock {
			return errLost
		}
		now := api.Time{Time: s.Now()}
		tr.UpdatedAt = now
		tr.Lock.Owner, tr.Lock.LastLockTime = nil, nil
		var perm *Permanent
		var retry *Retry
		switch {
		case errors.As(runErr, &perm):
			tr.Status = StatusError
		case errors.As(runErr, &retry):
			tr.Status = StatusRunnable
			tr.NextTime = api.Time{Time: now.Add(retry.After)}
			if retry.Data != nil {
				tr.Data = retry.Data
			}
		case runErr != nil:
			tr.Status = StatusRunnable
			tr.NextTime = api.Time{Time: now.Add(RetryDelay)}
		case out.Done:
			tr.Status = StatusComplete
		default:
			tr.Status = StatusRunnable
			tr.NextTime = api.Time{Time: out.Next.UTC()}
		}
		if runErr == nil && out.Data != nil {
			tr.Data = out.Data
		}
		return nil
	})
	if errors.Is(err, errLost) || errors.Is(err, store.ErrNotFound) {
		return false, nil
	}
	if err != nil {
		return false, err
	}
	if runErr != nil {
		return false, fmt.Errorf("trigger %s of job %s: %w", claimed.ID, claimed.JobDefinitionID, runErr)
	}
	return true, nil
}

// claim locks seen for this node if it is still as seen.
func (s *Scheduler) claim(ctx context.Context, seen Trigger) (Trigger, error) {
	var claimed Trigger
	err := s.update(ctx, seen.ID, func(tr *Trigger) error {
		if tr.Lock.Clock != seen.Lock.Clock || tr.Status != seen.Status || !s.due(*tr, s.now()) {
			return errLost
		}
		now := api.Time{Time: s.Now()}
		self := s.self
		tr.Status = StatusRunning
		tr.Lock = Lock{Owner: &self, LastLockTime: &now, Clock: seen.Lock.Clock + 1}
		tr.TriggeredAt = &now
		tr.UpdatedAt = now
		claimed = *tr
		return nil
	})
	return claimed, err
}

// execute runs the job of tr's definition.
func (s *Scheduler) execute(ctx context.Context, tr Trigger) (Outcome, error) {
	def, err := s.Job(ctx, tr.JobDefinitionID)
	if err != nil {
		return Outcome{}, &Permanent{Err: err}
	}
	job, ok := s.jobs[def.Type()]
	if !ok {
		return Outcome{}, &Permanent{Err: fmt.Errorf("no job runs definitions of type %q", def.Type())}
	}
	return job.Execute(ctx, def, tr)
}

// update changes the stored trigger id with fn, atomically.
func (s *Scheduler) update(ctx context.Context, id string, fn func(*Trigger) error) error {
	return s.st.Update(ctx, TriggersCollection, id, func(doc []byte) ([]byte, error) {
		var tr Trigger
		if err := json.Unmarshal(doc, &tr); err != nil {
			return nil, fmt.Errorf("trigger %s: %w", id, err)
		}
		if err := fn(&tr); err != nil {
			return nil, err
		}
		return json.Marshal(tr)
	})
}

// Triggers returns every stored trigger.
func (s *Scheduler) Triggers(ctx context.Context) ([]Trigger, error) {
	return store.All(ctx, s.st, TriggersCollection, func(doc []byte) (Trigger, error) {
		var tr Trigger
		err := json.Unmarshal(doc, &tr)
		return tr, err
	})
}

// TriggersOf returns the triggers of one job definition.
func (s *Scheduler) TriggersOf(ctx context.Context, jobID string) ([]Trigger, error) {
	all, err := s.Triggers(ctx)
	if err != nil {
		return nil, err
	}
	return slices.DeleteFunc(all, func(tr Trigger) bool { return tr.JobDefinitionID != jobID }), nil
}

// AddTrigger stores a new trigger, completing what the caller left out. A
// trigger given an id that exists already is ErrConflict: callers give fixed
// ids to triggers that must be scheduled once.
func (s *Scheduler) AddTrigger(ctx context.Context, tr Trigger) (Trigger, error) {
	if tr.JobDefinitionID == "" {
		return tr, api.Errorf(api.Invalid, "job_definition_id cannot be empty")
	}
	switch tr.Schedule.Type {
	case "once":
	case "interval":
		if tr.Schedule.Interval <= 0 {
			return tr, api.Errorf(api.Invalid, "interval must be greater than 0")
		}
		if tr.Schedule.Unit == "" {
			tr.Schedule.Unit = "MILLISECONDS"
		}
	default:
		return tr, api.Errorf(api.Invalid, "unknown schedule type %q", tr.Schedule.Type)
	}
	now := api.Time{Time: s.Now()}
	if tr.ID == "" {
		tr.ID = s.ids()
	}
	if tr.StartTime.IsZero() {
		tr.StartTime = now
	}
	if tr.NextTime.IsZero() {
		tr.NextTime = tr.StartTime
	}
	tr.CreatedAt, tr.UpdatedAt = now, now
	tr.Status = StatusRunnable
	tr.Lock = Lock{}
	if len(tr.Data) == 0 {
		tr.Data = json.RawMessage("null")
	}
	doc, err := json.Marshal(tr)
	if err != nil {
		return tr, err
	}
	return tr, s.st.Insert(ctx, TriggersCollection, tr.ID, doc)
}

// DeleteTriggersOf removes every trigger of a job definition.
func (s *Scheduler) DeleteTriggersOf(ctx context.Context, jobID string) error {
	trs, err := s.TriggersOf(ctx, jobID)
	if err != nil {
		return err
	}
	for _, tr := range trs {
		if err := s.st.Delete(ctx, TriggersCollection, tr.ID); err != nil && !errors.Is(err, store.ErrNotFound) {
			return err
		}
	}
	return nil
}

// Job returns a job definition.
func (s *Scheduler) Job(ctx context.Context, id string) (JobDefinition, error) {
	doc, err := s.st.Get(ctx, JobsCollection, id)
	if errors.Is(err, store.ErrNotFound) {
		return JobDefinition{}, api.Errorf(api.NotFound, "Job definition %s doesn't exist", id)
	}
	if err != nil {
		return JobDefinition{}, err
	}
	var d JobDefinition
	if err := json.Unmarshal(doc, &d); err != nil {
		return JobDefinition{}, fmt.Errorf("job definition %s: %w", id, err)
	}
	return d, nil
}

// Jobs returns every job definition, sorted by title.
func (s *Scheduler) Jobs(ctx context.Context) ([]JobDefinition, error) {
	all, err := store.All(ctx, s.st, JobsCollection, func(doc []byte) (JobDefinition, error) {
		var d JobDefinition
		err := json.Unmarshal(doc, &d)
		return d, err
	})
	slices.SortStableFunc(all, func(a, b JobDefinition) int { return strings.Compare(a.Title, b.Title) })
	return all, err
}

// PutJob creates or replaces a job definition; a new one gets an id.
func (s *Scheduler) PutJob(ctx context.Context, d JobDefinition) (JobDefinition, error) {
	if d.ID == "" {
		d.ID = s.ids()
	}
	if typeOf(d.Config) == "" {
		return d, api.Errorf(api.Invalid, "job definition config needs a type")
	}
	doc, err := json.Marshal(d)
	if err != nil {
		return d, err
	}
	return d, s.st.Put(ctx, JobsCollection, d.ID, doc)
}

// DeleteJob removes a job definition and its triggers.
func (s *Scheduler) DeleteJob(ctx context.Context, id string) error {
	if err := s.DeleteTriggersOf(ctx, id); err != nil {
		return err
	}
	err := s.st.Delete(ctx, JobsCollection, id)
	if errors.Is(err, store.ErrNotFound) {
		return nil
	}
	return err
}
