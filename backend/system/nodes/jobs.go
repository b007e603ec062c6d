package nodes

import (
	"context"
	"fmt"
	"time"
)

// job is a periodic cluster job.
type job struct {
	name    string
	every   time.Duration
	fn      func(context.Context) error
	lastRun time.Time
}

// Every registers a cluster-wide periodic job (index rotation, retention):
// the leader runs it from its beat when at least every has passed since it
// last ran it. A node that becomes leader runs it on its first beat.
func (r *Registry) Every(name string, every time.Duration, fn func(context.Context) error) {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.jobs = append(r.jobs, &job{name: name, every: every, fn: fn})
}

// RunIfLeader runs fn once if this node holds the lease, and reports
// whether it ran.
func (r *Registry) RunIfLeader(ctx context.Context, name string, fn func(context.Context) error) (bool, error) {
	if !r.IsLeader() {
		return false, nil
	}
	if err := fn(ctx); err != nil {
		return true, fmt.Errorf("cluster job %s: %w", name, err)
	}
	return true, nil
}

// runJobs runs the due jobs, one after another.
func (r *Registry) runJobs(ctx context.Context, now time.Time) error {
	r.mu.Lock()
	defer r.mu.Unlock()
	var first error
	for _, j := range r.jobs {
		if !j.lastRun.IsZero() && now.Sub(j.lastRun) < j.every {
			continue
		}
		j.lastRun = now
		if _, err := r.RunIfLeader(ctx, j.name, j.fn); err != nil && first == nil {
			first = err
		}
	}
	return first
}
