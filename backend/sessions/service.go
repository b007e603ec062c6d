// Package sessions owns login sessions: their storage, expiry and
// extension, and the /system/sessions resource.
package sessions

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"log/slog"
	"sync"
	"time"

	"github.com/google/uuid"

	"github.com/loggate/loggate/auth"
	"github.com/loggate/loggate/backend/api"
	"github.com/loggate/loggate/backend/lastuse"
	"github.com/loggate/loggate/backend/store"
)

// Collection is the store collection of sessions.
const Collection = "sessions"

// record is a stored session. Expiry is computed from LastAccess and
// Timeout on every use, never left to a TTL index: not every MongoDB-
// compatible server has those, and the embedded store has none.
type record struct {
	ID            string    `json:"id"`
	UserID        string    `json:"user_id"`
	Username      string    `json:"username"`
	LastAccess    time.Time `json:"last_access"`
	TimeoutMs     int64     `json:"timeout_ms"`
	Host          string    `json:"host"`
	ClientAddress string    `json:"client_address"`
}

func (r record) auth() auth.SessionRecord {
	return auth.SessionRecord{ID: r.ID, UserID: r.UserID, LastAccess: r.LastAccess, Timeout: time.Duration(r.TimeoutMs) * time.Millisecond}
}

// Invalidator drops an ended session from the credential cache.
type Invalidator interface {
	InvalidateSession(ctx context.Context, sessionID string)
}

// Service stores sessions.
type Service struct {
	st         store.Store
	invalidate Invalidator
	now        func() time.Time
	log        *slog.Logger
	uses       *lastuse.Recorder // extensions not yet written
}

// NewService returns the session service.
func NewService(st store.Store, inv Invalidator, now func() time.Time, log *slog.Logger) *Service {
	s := &Service{st: st, invalidate: inv, now: now, log: log}
	s.uses = lastuse.New(lastuse.StoreField(st, Collection, "last_access"))
	return s
}

// Create starts a session for an authenticated principal.
func (s *Service) Create(ctx context.Context, p *auth.Principal, host, clientAddress string) (auth.SessionRecord, error) {
	// Random (version 4) UUIDs, the form of Graylog's session ids.
	u, err := uuid.NewRandom()
	if err != nil {
		return auth.SessionRecord{}, fmt.Errorf("session id: %w", err)
	}
	id := u.String()
	rec := record{
		ID: id, UserID: p.UserID, Username: p.Username, LastAccess: s.now().UTC().Truncate(time.Millisecond),
		TimeoutMs: p.SessionTimeout.Milliseconds(), Host: host, ClientAddress: clientAddress,
	}
	doc, err := api.Marshal(rec)
	if err != nil {
		return auth.SessionRecord{}, err
	}
	if err := s.st.Insert(ctx, Collection, id, doc); err != nil {
		return auth.SessionRecord{}, err
	}
	return rec.auth(), nil
}

func (s *Service) get(ctx context.Context, id string) (record, error) {
	doc, err := s.st.Get(ctx, Collection, id)
	if err != nil {
		return record{}, err
	}
	var rec record
	if err := json.Unmarshal(doc, &rec); err != nil {
		return record{}, fmt.Errorf("stored session: %w", err)
	}
	return rec, nil
}

// FindSession implements auth.Sessions.
func (s *Service) FindSession(ctx context.Context, id string) (auth.SessionRecord, error) {
	rec, err := s.get(ctx, id)
	if err != nil {
		return auth.SessionRecord{}, err
	}
	return rec.auth(), nil
}

// Touch implements auth.Sessions; Flush writes the extensions.
func (s *Service) Touch(id string, at time.Time) { s.uses.Touch(id, at) }

// LastTouch implements auth.Sessions.
func (s *Service) LastTouch(id string) (time.Time, bool) { return s.uses.Last(id) }

// Expire implements auth.Sessions.
func (s *Service) Expire(ctx context.Context, id string) error {
	return s.Delete(ctx, id)
}

// Delete ends a session.
func (s *Service) Delete(ctx context.Context, id string) error {
	s.uses.Forget(id)
	err := s.st.Delete(ctx, Collection, id)
	s.invalidate.InvalidateSession(ctx, id)
	return err
}

// DeleteForUser ends every session of a deleted user.
func (s *Service) DeleteForUser(ctx context.Context, userID string) error {
	var ids []string
	err := s.each(ctx, func(rec record) {
		if rec.UserID == userID {
			ids = append(ids, rec.ID)
		}
	})
	if err != nil {
		return err
	}
	for _, id := range ids {
		if err := s.Delete(ctx, id); err != nil && !errors.Is(err, store.ErrNotFound) {
			return err
		}
	}
	return nil
}

func (s *Service) each(ctx context.Context, fn func(record)) error {
	return s.st.List(ctx, Collection, func(_ string, doc []byte) error {
		var rec record
		if err := json.Unmarshal(doc, &rec); err != nil {
			return fmt.Errorf("stored session: %w", err)
		}
		fn(rec)
		return nil
	})
}

// Activity reports whether a user has a live session, when they were last
// active and from where (the users resource shows it).
func (s *Service) Activity(ctx context.Context, userID string) (active bool, last time.Time, clientAddress string, err error) {
	now := s.now()
	err = s.each(ctx, func(rec record) {
		if rec.UserID != userID {
			return
		}
		if t, ok := s.LastTouch(rec.ID); ok && t.After(rec.LastAccess) {
			rec.LastAccess = t
		}
		if rec.auth().Expired(now) {
			return
		}
		active = true
		if rec.LastAccess.After(last) {
			last, clientAddress = rec.LastAccess, rec.ClientAddress
		}
	})
	return active, last, clientAddress, err
}

// Flush writes recorded extensions.
func (s *Service) Flush(ctx context.Context) error { return s.uses.Flush(ctx) }

// Purge deletes expired sessions. Graylog's session validation does this
// every five minutes.
func (s *Service) Purge(ctx context.Context) (int, error) {
	now := s.now()
	var expired []string
	err := s.each(ctx, func(rec record) {
		if t, ok := s.LastTouch(rec.ID); ok && t.After(rec.LastAccess) {
			rec.LastAccess = t
		}
		if rec.auth().Expired(now) {
			expired = append(expired, rec.ID)
		}
	})
	if err != nil {
		return 0, err
	}
	for _, id := range expired {
		if err := s.Delete(ctx, id); err != nil && !errors.Is(err, store.ErrNotFound) {
			return 0, err
		}
	}
	return len(expired), nil
}

// Run writes extensions every flush interval and purges expired sessions
// every purge interval until ctx ends, then flushes once more.
func (s *Service) Run(ctx context.Context, flush, purge time.Duration) {
	var wg sync.WaitGroup
	wg.Go(func() { s.uses.Run(ctx, flush, s.log, "sessions") })
	defer wg.Wait() // the final flush is done when Run returns
	t := time.NewTicker(purge)
	defer t.Stop()
	for {
		select {
		case <-ctx.Done():
			return
		case <-t.C:
			if n, err := s.Purge(ctx); err != nil {
				s.log.Warn("purging expired sessions failed", "err", err)
			} else if n > 0 {
				s.log.Debug("purged expired sessions", "count", n)
			}
		}
	}
}
