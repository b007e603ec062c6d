package nodes

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"time"

	"github.com/loggate/loggate/backend/store"
)

// lease is the leader lease document.
type lease struct {
	Holder  string    `json:"holder"`
	Expires time.Time `json:"expires"`
}

// errHeld aborts an Update when another node holds a valid lease.
var errHeld = errors.New("lease held by another node")

// renew acquires the lease when it is free or expired, or extends it when
// this node holds it. Losing the race is not an error.
func (r *Registry) renew(ctx context.Context, self string, now time.Time) error {
	want := lease{Holder: self, Expires: now.Add(r.opts.LeaseTTL)}
	doc, err := json.Marshal(want)
	if err != nil {
		return fmt.Errorf("lease: %w", err)
	}
	err = r.st.Update(ctx, LeaseCollection, leaderLease, func(cur []byte) ([]byte, error) {
		var l lease
		if json.Unmarshal(cur, &l) == nil && l.Holder != self && now.Before(l.Expires) {
			return nil, errHeld
		}
		return doc, nil
	})
	if errors.Is(err, store.ErrNotFound) {
		// The first node of a cluster creates the lease; of several
		// starting at once, one insert wins.
		err = r.st.Insert(ctx, LeaseCollection, leaderLease, doc)
		if errors.Is(err, store.ErrConflict) {
			err = errHeld
		}
	}
	switch {
	case err == nil:
		r.leaseUntil.Store(want.Expires.UnixNano())
		return nil
	case errors.Is(err, errHeld):
		r.leaseUntil.Store(0)
		return nil
	default:
		// Unsure whether the store still says so: stop acting as leader
		// rather than risk two leaders.
		r.leaseUntil.Store(0)
		return fmt.Errorf("lease: %w", err)
	}
}

// release gives the lease up if this node holds it.
func (r *Registry) release(ctx context.Context, self string) error {
	r.leaseUntil.Store(0)
	err := r.st.Update(ctx, LeaseCollection, leaderLease, func(cur []byte) ([]byte, error) {
		var l lease
		if json.Unmarshal(cur, &l) == nil && l.Holder != self {
			return nil, errHeld
		}
		return json.Marshal(lease{})
	})
	if err == nil || errors.Is(err, errHeld) || errors.Is(err, store.ErrNotFound) {
		return nil
	}
	return fmt.Errorf("release lease: %w", err)
}

// IsLeader reports whether this node holds an unexpired lease, by its own
// clock, as of its last beat.
func (r *Registry) IsLeader() bool {
	until := r.leaseUntil.Load()
	return until != 0 && r.now().UnixNano() < until
}

// Leader returns the id of the node holding an unexpired lease, or "" when
// none does.
func (r *Registry) Leader(ctx context.Context) (string, error) {
	doc, err := r.st.Get(ctx, LeaseCollection, leaderLease)
	if errors.Is(err, store.ErrNotFound) {
		return "", nil
	}
	if err != nil {
		return "", fmt.Errorf("lease: %w", err)
	}
	var l lease
	if err := json.Unmarshal(doc, &l); err != nil {
		return "", fmt.Errorf("lease document: %w", err)
	}
	if l.Holder == "" || !r.now().Before(l.Expires) {
		return "", nil
	}
	return l.Holder, nil
}
