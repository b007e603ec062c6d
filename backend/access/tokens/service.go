// Package tokens owns API access tokens: their encrypted storage, the
// coalesced recording of their use, and the /users/{userId}/tokens resource.
package tokens

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"log/slog"
	"sort"
	"time"

	"go.mongodb.org/mongo-driver/bson/primitive"

	"github.com/loggate/loggate/auth"
	"github.com/loggate/loggate/backend/access/lastuse"
	"github.com/loggate/loggate/backend/store"
	"github.com/loggate/loggate/router/api"
)

// Collection is the store collection of tokens.
const Collection = "access_tokens"

// Indexes are the unique indexes tokens need: the keyed hash a token is found
// by.
var Indexes = []store.Index{{Collection: Collection, Field: "lookup"}}

// record is a stored token. The value is never stored in plain text: lookup
// is its keyed hash, sealed its AES-GCM encryption (Graylog 4.0 shows token
// values in lists, so they must be recoverable).
type record struct {
	ID         string    `json:"id"`
	UserID     string    `json:"user_id"`
	Name       string    `json:"name"`
	Lookup     string    `json:"lookup"`
	Sealed     string    `json:"sealed"`
	LastAccess time.Time `json:"last_access"`
	// Release is the API release pinned on the token: requests it
	// authenticates are served as that release (compat).
	Release string `json:"api_release,omitempty"`
}

// Token is an access token as the API shows it.
type Token struct {
	ID         string    `json:"id"`
	Name       string    `json:"name"`
	Token      string    `json:"token"`
	LastAccess Timestamp `json:"last_access"`
	// APIRelease is shown only on tokens pinned to a release.
	APIRelease string `json:"api_release,omitempty"`
}

// Timestamp renders as Joda's ISO-8601 UTC with milliseconds and Z, the
// format of Graylog's token last_access.
type Timestamp time.Time

// MarshalJSON implements json.Marshaler.
func (t Timestamp) MarshalJSON() ([]byte, error) {
	return []byte(`"` + time.Time(t).UTC().Format("2006-01-02T15:04:05.000Z") + `"`), nil
}

// Invalidator drops a deleted token from the credential cache.
type Invalidator interface {
	InvalidateToken(ctx context.Context, tokenID string)
}

// Service stores tokens.
type Service struct {
	st         store.Store
	keys       *auth.Keys
	invalidate Invalidator
	now        func() time.Time
	log        *slog.Logger
	uses       *lastuse.Recorder
}

// NewService returns the token service.
func NewService(st store.Store, keys *auth.Keys, inv Invalidator, now func() time.Time, log *slog.Logger) *Service {
	s := &Service{st: st, keys: keys, invalidate: inv, now: now, log: log}
	s.uses = lastuse.New(lastuse.StoreField(st, Collection, "last_access"))
	return s
}

// Create makes a new token for a user.
func (s *Service) Create(ctx context.Context, userID, name, release string) (Token, error) {
	// Two equal 256-bit values are as good as impossible; Graylog retries
	// ten times all the same, and so do we.
	for range 10 {
		value, err := auth.NewTokenValue()
		if err != nil {
			return Token{}, err
		}
		sealed, err := s.keys.SealToken(value)
		if err != nil {
			return Token{}, err
		}
		rec := record{
			ID: primitive.NewObjectID().Hex(), UserID: userID, Name: name,
			Lookup: s.keys.TokenLookup(value), Sealed: sealed, LastAccess: time.Unix(0, 0).UTC(), Release: release,
		}
		doc, err := api.Marshal(rec)
		if err != nil {
			return Token{}, err
		}
		err = s.st.Insert(ctx, Collection, rec.ID, doc)
		if errors.Is(err, store.ErrConflict) {
			continue
		}
		if err != nil {
			return Token{}, err
		}
		return Token{ID: rec.ID, Name: name, Token: value, LastAccess: Timestamp(rec.LastAccess), APIRelease: release}, nil
	}
	return Token{}, errors.New("could not generate a unique token")
}

// ListForUser returns a user's tokens, oldest first, with their values.
func (s *Service) ListForUser(ctx context.Context, userID string) ([]Token, error) {
	recs, err := s.recordsOf(ctx, userID)
	if err != nil {
		return nil, err
	}
	out := make([]Token, 0, len(recs))
	for _, rec := range recs {
		value, err := s.keys.OpenToken(rec.Sealed)
		if err != nil {
			return nil, fmt.Errorf("token %s: %w", rec.ID, err)
		}
		out = append(out, Token{ID: rec.ID, Name: rec.Name, Token: value, LastAccess: Timestamp(s.lastAccess(rec)), APIRelease: rec.Release})
	}
	return out, nil
}

func (s *Service) recordsOf(ctx context.Context, userID string) ([]record, error) {
	var out []record
	err := s.st.List(ctx, Collection, func(_ string, doc []byte) error {
		var rec record
		if err := json.Unmarshal(doc, &rec); err != nil {
			return fmt.Errorf("stored token: %w", err)
		}
		if rec.UserID == userID {
			out = append(out, rec)
		}
		return nil
	})
	sort.Slice(out, func(i, j int) bool { return out[i].ID < out[j].ID })
	return out, err
}

// lastAccess merges a use not yet written, so that a list shows it at once.
func (s *Service) lastAccess(rec record) time.Time {
	if t, ok := s.uses.Last(rec.ID); ok && t.After(rec.LastAccess) {
		return t
	}
	return rec.LastAccess
}

// Delete removes one of a user's tokens, addressed by id or by value.
// store.ErrNotFound when the user has no such token.
func (s *Service) Delete(ctx context.Context, userID, idOrToken string) error {
	var rec record
	doc, err := s.st.Get(ctx, Collection, idOrToken)
	if errors.Is(err, store.ErrNotFound) {
		_, doc, err = s.st.FindUnique(ctx, Collection, "lookup", s.keys.TokenLookup(idOrToken))
	}
	if err != nil {
		return err
	}
	if err := json.Unmarshal(doc, &rec); err != nil {
		return fmt.Errorf("stored token: %w", err)
	}
	if rec.UserID != userID {
		return store.ErrNotFound
	}
	return s.remove(ctx, rec.ID)
}

// Pin pins one of a user's tokens to an API release, or unpins it ("").
// store.ErrNotFound when the user has no such token.
func (s *Service) Pin(ctx context.Context, userID, tokenID, release string) (Token, error) {
	var rec record
	err := s.st.Update(ctx, Collection, tokenID, func(doc []byte) ([]byte, error) {
		if err := json.Unmarshal(doc, &rec); err != nil {
			return nil, fmt.Errorf("stored token: %w", err)
		}
		if rec.UserID != userID {
			return nil, store.ErrNotFound
		}
		rec.Release = release
		return api.Marshal(rec)
	})
	if err != nil {
		return Token{}, err
	}
	// Cached principals carry the old pin.
	s.invalidate.InvalidateToken(ctx, tokenID)
	value, err := s.keys.OpenToken(rec.Sealed)
	if err != nil {
		return Token{}, fmt.Errorf("token %s: %w", rec.ID, err)
	}
	return Token{ID: rec.ID, Name: rec.Name, Token: value, LastAccess: Timestamp(s.lastAccess(rec)), APIRelease: rec.Release}, nil
}

func (s *Service) remove(ctx context.Context, id string) error {
	if err := s.st.Delete(ctx, Collection, id); err != nil && !errors.Is(err, store.ErrNotFound) {
		return err
	}
	s.uses.Forget(id)
	s.invalidate.InvalidateToken(ctx, id)
	return nil
}

// DeleteForUser removes every token of a deleted user.
func (s *Service) DeleteForUser(ctx context.Context, userID string) error {
	recs, err := s.recordsOf(ctx, userID)
	if err != nil {
		return err
	}
	for _, rec := range recs {
		if err := s.remove(ctx, rec.ID); err != nil {
			return err
		}
	}
	return nil
}

// FindToken implements auth.Tokens.
func (s *Service) FindToken(ctx context.Context, value string) (auth.TokenRecord, error) {
	_, doc, err := s.st.FindUnique(ctx, Collection, "lookup", s.keys.TokenLookup(value))
	if errors.Is(err, store.ErrNotFound) {
		return auth.TokenRecord{}, auth.NotFound(err)
	}
	if err != nil {
		return auth.TokenRecord{}, err
	}
	var rec record
	if err := json.Unmarshal(doc, &rec); err != nil {
		return auth.TokenRecord{}, fmt.Errorf("stored token: %w", err)
	}
	return auth.TokenRecord{ID: rec.ID, UserID: rec.UserID, Release: rec.Release}, nil
}

// Touch implements auth.Tokens: the use is kept in memory and written in a
// batch, so that a busy token costs no write per request.
func (s *Service) Touch(id string, at time.Time) { s.uses.Touch(id, at) }

// Flush writes the recorded uses.
func (s *Service) Flush(ctx context.Context) error { return s.uses.Flush(ctx) }

// Run writes recorded uses every interval until ctx ends, then once more.
func (s *Service) Run(ctx context.Context, interval time.Duration) {
	s.uses.Run(ctx, interval, s.log, "access tokens")
}
