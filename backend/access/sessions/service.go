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
	"unicode/utf8"

	"github.com/google/uuid"

	"github.com/loggate/loggate/auth"
	"github.com/loggate/loggate/backend/access/lastuse"
	"github.com/loggate/loggate/backend/store"
	"github.com/loggate/loggate/router/api"
)

// Collection is the store collection of sessions.
const Collection = "sessions"

// record is a stored session. Expiry is computed from LastAccess and
// Timeout on every use, never left to a TTL index: not every MongoDB-
// compatible server has those, and the embedded store has none.
//
// The session id itself is never stored: the record is stored under Key,
// the keyed hash of the id (auth.Keys.SessionKey), so a copy of the store
// logs no one in. Records of earlier releases held the id in clear (an "id"
// field, no "key"); they count as expired and are purged.
type record struct {
	Key           string    `json:"key"`
	UserID        string    `json:"user_id"`
	Username      string    `json:"username"`
	LastAccess    time.Time `json:"last_access"`
	TimeoutMs     int64     `json:"timeout_ms"`
	Host          string    `json:"host"`
	ClientAddress string    `json:"client_address"`
}

func (r record) auth() auth.SessionRecord {
	return auth.SessionRecord{Key: r.Key, UserID: r.UserID, LastAccess: r.LastAccess, Timeout: time.Duration(r.TimeoutMs) * time.Millisecond}
}

// legacy reports whether a record was stored by an earlier release, with
// the session id in clear.
func (r record) legacy() bool { return r.Key == "" }

// Invalidator drops an ended session, named by its key, from the credential
// cache.
type Invalidator interface {
	InvalidateSession(ctx context.Context, sessionKey string)
}

// Service stores sessions.
type Service struct {
	st         store.Store
	keys       *auth.Keys
	invalidate Invalidator
	now        func() time.Time
	log        *slog.Logger
	uses       *lastuse.Recorder // extensions not yet written
}

// NewService returns the session service.
func NewService(st store.Store, keys *auth.Keys, inv Invalidator, now func() time.Time, log *slog.Logger) *Service {
	s := &Service{st: st, keys: keys, invalidate: inv, now: now, log: log}
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
		Key: s.keys.SessionKey(id), UserID: p.UserID, Username: p.Username, LastAccess: s.now().UTC().Truncate(time.Millisecond),
		TimeoutMs: p.SessionTimeout.Milliseconds(), Host: truncate(host, maxHost), ClientAddress: clientAddress,
	}
	doc, err := api.Marshal(rec)
	if err != nil {
		return auth.SessionRecord{}, err
	}
	if err := s.st.Insert(ctx, Collection, rec.Key, doc); err != nil {
		return auth.SessionRecord{}, err
	}
	out := rec.auth()
	out.ID = id
	return out, nil
}

// maxHost bounds the login's host kept with a session: a client's free
// text (the 2.x field Graylog 4.0 ignores), which would otherwise put up to
// a whole request body into every session record.
const maxHost = 255

// truncate cuts s to at most n bytes, on a rune boundary.
func truncate(s string, n int) string {
	if len(s) <= n {
		return s
	}
	for n > 0 && !utf8.RuneStart(s[n]) {
		n--
	}
	return s[:n]
}

// Key returns the key of a session id, under which it is stored.
func (s *Service) Key(id string) string { return s.keys.SessionKey(id) }

func (s *Service) get(ctx context.Context, key string) (record, error) {
	doc, err := s.st.Get(ctx, Collection, key)
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
func (s *Service) FindSession(ctx context.Context, key string) (auth.SessionRecord, error) {
	rec, err := s.get(ctx, key)
	if errors.Is(err, store.ErrNotFound) {
		return auth.SessionRecord{}, auth.NotFound(err)
	}
	if err != nil {
		return auth.SessionRecord{}, err
	}
	return rec.auth(), nil
}

// Touch implements auth.Sessions; Flush writes the extensions.
func (s *Service) Touch(key string, at time.Time) { s.uses.Touch(key, at) }

// LastTouch implements auth.Sessions.
func (s *Service) LastTouch(key string) (time.Time, bool) { return s.uses.Last(key) }

// Expire implements auth.Sessions.
func (s *Service) Expire(ctx context.Context, key string) error {
	err := s.Delete(ctx, key)
	if errors.Is(err, store.ErrNotFound) {
		return auth.NotFound(err)
	}
	return err
}

// Delete ends a session, named by its key.
func (s *Service) Delete(ctx context.Context, key string) error {
	s.uses.Forget(key)
	err := s.st.Delete(ctx, Collection, key)
	s.invalidate.InvalidateSession(ctx, key)
	return err
}

// DeleteForUser ends every session of a deleted user.
func (s *Service) DeleteForUser(ctx context.Context, userID string) error {
	return s.EndSessions(ctx, userID, "")
}

// EndSessions ends every session of a user but the one with id keep (""
// keeps none): a password change logs out everywhere else, a disabled user
// everywhere.
func (s *Service) EndSessions(ctx context.Context, userID, keep string) error {
	keepKey := ""
	if keep != "" {
		keepKey = s.Key(keep)
	}
	return s.deleteWhere(ctx, func(docKey string, rec record) bool {
		return rec.UserID == userID && docKey != keepKey
	})
}

// deleteWhere ends the sessions a predicate picks, by their stored key.
func (s *Service) deleteWhere(ctx context.Context, pick func(docKey string, rec record) bool) error {
	var keys []string
	err := s.each(ctx, func(docKey string, rec record) {
		if pick(docKey, rec) {
			keys = append(keys, docKey)
		}
	})
	if err != nil {
		return err
	}
	for _, k := range keys {
		if err := s.Delete(ctx, k); err != nil && !errors.Is(err, store.ErrNotFound) {
			return err
		}
	}
	return nil
}

// each calls fn with every stored session and the key it is stored under
// (a legacy record's is its clear id).
func (s *Service) each(ctx context.Context, fn func(docKey string, rec record)) error {
	return s.st.List(ctx, Collection, func(docKey string, doc []byte) error {
		var rec record
		if err := json.Unmarshal(doc, &rec); err != nil {
			return fmt.Errorf("stored session: %w", err)
		}
		fn(docKey, rec)
		return nil
	})
}

// Activity reports whether a user has a live session, when they were last
// active and from where (the users resource shows it).
func (s *Service) Activity(ctx context.Context, userID string) (active bool, last time.Time, clientAddress string, err error) {
	now := s.now()
	err = s.each(ctx, func(_ string, rec record) {
		if rec.UserID != userID || rec.legacy() {
			return
		}
		if t, ok := s.LastTouch(rec.Key); ok && t.After(rec.LastAccess) {
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

// Activities reports what Activity reports for every user with a session,
// reading the sessions once: user listings call it instead of Activity per
// user, which read every session once per user (seconds for a hundred
// users with a few thousand sessions).
func (s *Service) Activities(ctx context.Context, fn func(userID string, active bool, last time.Time, clientAddress string)) error {
	type activity struct {
		active bool
		last   time.Time
		addr   string
	}
	now := s.now()
	byUser := map[string]*activity{}
	err := s.each(ctx, func(_ string, rec record) {
		if rec.legacy() {
			return
		}
		if t, ok := s.LastTouch(rec.Key); ok && t.After(rec.LastAccess) {
			rec.LastAccess = t
		}
		if rec.auth().Expired(now) {
			return
		}
		a := byUser[rec.UserID]
		if a == nil {
			a = &activity{}
			byUser[rec.UserID] = a
		}
		a.active = true
		if rec.LastAccess.After(a.last) {
			a.last, a.addr = rec.LastAccess, rec.ClientAddress
		}
	})
	if err != nil {
		return err
	}
	for id, a := range byUser {
		fn(id, a.active, a.last, a.addr)
	}
	return nil
}

// Flush writes recorded extensions.
func (s *Service) Flush(ctx context.Context) error { return s.uses.Flush(ctx) }

// Purge deletes expired sessions, and those stored with their id in clear
// by earlier releases. Graylog's session validation does this every five
// minutes.
func (s *Service) Purge(ctx context.Context) (int, error) {
	now := s.now()
	n := 0
	err := s.deleteWhere(ctx, func(_ string, rec record) bool {
		if t, ok := s.LastTouch(rec.Key); ok && !rec.legacy() && t.After(rec.LastAccess) {
			rec.LastAccess = t
		}
		expired := rec.legacy() || rec.auth().Expired(now)
		if expired {
			n++
		}
		return expired
	})
	if err != nil {
		return 0, err
	}
	return n, nil
}

// Run writes extensions every flush interval and purges expired sessions
// every purge interval until ctx ends, then flushes once more.
func (s *Service) Run(ctx context.Context, flush, purge time.Duration) {
	var wg sync.WaitGroup
	wg.Go(func() { s.uses.Run(ctx, flush, s.log, "sessions") })
	defer wg.Wait() // the final flush is done when Run returns
	// At once too, so that ids an earlier release stored in clear do not
	// stay in the store for a purge interval.
	s.purge(ctx)
	t := time.NewTicker(purge)
	defer t.Stop()
	for {
		select {
		case <-ctx.Done():
			return
		case <-t.C:
			s.purge(ctx)
		}
	}
}

func (s *Service) purge(ctx context.Context) {
	if n, err := s.Purge(ctx); err != nil {
		s.log.Warn("purging expired sessions failed", "err", err)
	} else if n > 0 {
		s.log.Debug("purged expired sessions", "count", n)
	}
}
