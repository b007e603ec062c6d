package streams

import (
	"context"
	"errors"
	"fmt"

	"github.com/loggate/loggate/backend/store"
	"github.com/loggate/loggate/router/api"
)

// seed creates the built-in streams that are not stored yet, as Graylog's
// migrations V20161116172200_CreateDefaultStreamMigration and
// V20190705071400_AddEventIndexSetsMigration do: the default stream on the
// default index set, the two event streams on the event index sets. A
// stream that exists is left as it is, so restarts change nothing.
func (s *Service) seed(ctx context.Context) error {
	missingDefault, err := s.missing(ctx, DefaultStreamID)
	if err != nil {
		return err
	}
	if missingDefault {
		ix, err := s.indexSets.DefaultID(ctx)
		if err != nil {
			return fmt.Errorf("default index set: %w", err)
		}
		if err := s.seedOne(ctx, s.builtin(DefaultStreamID, "All messages", "Stream containing all messages", "local:admin", ix)); err != nil {
			return err
		}
	}
	missingEvents, err := s.missing(ctx, EventsStreamID)
	if err != nil {
		return err
	}
	missingSystem, err := s.missing(ctx, SystemEventsStreamID)
	if err != nil {
		return err
	}
	if !missingEvents && !missingSystem {
		return nil
	}
	events, system, err := s.indexSets.Builtin(ctx)
	if err != nil {
		return fmt.Errorf("event index sets: %w", err)
	}
	if events == "" || system == "" {
		return fmt.Errorf("event index sets: the index set service named none (events %q, system events %q)", events, system)
	}
	if missingEvents {
		st := s.builtin(EventsStreamID, "All events", "Stream containing all events created by Graylog", "admin", events)
		if err := s.seedOne(ctx, st); err != nil {
			return err
		}
	}
	if missingSystem {
		st := s.builtin(SystemEventsStreamID, "All system events", "Stream containing all system events created by Graylog", "admin", system)
		if err := s.seedOne(ctx, st); err != nil {
			return err
		}
	}
	return nil
}

// builtin returns a built-in stream as Graylog's migrations create it: the
// event streams keep their messages out of the default stream.
func (s *Service) builtin(id, title, description, creator, indexSetID string) *Stream {
	st := &Stream{
		ID: id, Title: title, Description: &description, CreatorUserID: creator,
		MatchingType: MatchAnd, CreatedAt: api.Time{Time: s.now().UTC()}, IndexSetID: indexSetID,
		IsDefault: id == DefaultStreamID, RemoveMatchesFromDefaultStream: id != DefaultStreamID,
	}
	st.derive()
	return st
}

func (s *Service) missing(ctx context.Context, id string) (bool, error) {
	_, err := s.st.Get(ctx, Collection, id)
	if errors.Is(err, store.ErrNotFound) {
		return true, nil
	}
	if err != nil {
		return false, fmt.Errorf("stream %s: %w", id, err)
	}
	return false, nil
}

// seedOne stores a built-in stream. Another node starting at the same time
// may have stored it first, which is as good.
func (s *Service) seedOne(ctx context.Context, st *Stream) error {
	doc, err := api.Marshal(st)
	if err != nil {
		return fmt.Errorf("encode stream %s: %w", st.ID, err)
	}
	err = s.st.Insert(ctx, Collection, st.ID, doc)
	if err != nil && !errors.Is(err, store.ErrConflict) {
		return fmt.Errorf("store stream %s: %w", st.ID, err)
	}
	return nil
}
