package streams

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"strings"

	"github.com/loggate/loggate/backend/store"
	"github.com/loggate/loggate/router/api"
)

// checkIndexSet answers Graylog's 400s for an index set a stream cannot
// write to, and returns its id as stored: ObjectIds in lower case. An id
// in upper case finds the index set too, but routing and the checks of
// what uses an index set compare ids as stored.
func (s *Service) checkIndexSet(ctx context.Context, id string) (string, error) {
	writable, err := s.indexSets.Writable(ctx, id)
	if errors.Is(err, store.ErrNotFound) {
		return "", api.Errorf(api.Invalid, "Index set with ID <%s> does not exist!", id)
	}
	if err != nil {
		return "", fmt.Errorf("index set %s: %w", id, err)
	}
	if !writable {
		return "", api.Errorf(api.Invalid, "Assigned index set must be writable!")
	}
	return strings.ToLower(id), nil
}

// Create stores a new stream. It assigns the ids of the stream and of its
// rules; CreatedAt is set when zero, MatchingType when empty. The title is
// required, the rules must be of known types, and the index set must exist
// and be writable.
func (s *Service) Create(ctx context.Context, st *Stream) error {
	if st.Title == "" {
		return api.Invalidf("title", `Value "" is not a valid non-empty String!`)
	}
	if st.MatchingType == "" {
		st.MatchingType = MatchAnd
	}
	if _, err := ParseMatchingType(string(st.MatchingType)); err != nil {
		return err
	}
	for _, r := range st.Rules {
		if !r.Type.Valid() {
			return api.Errorf(api.Invalid, "Unknown stream rule type %d", int(r.Type))
		}
	}
	ix, err := s.checkIndexSet(ctx, st.IndexSetID)
	if err != nil {
		return err
	}
	st.IndexSetID = ix
	st.ID = newID()
	if st.CreatedAt.IsZero() {
		st.CreatedAt = api.Time{Time: s.now().UTC()}
	}
	for i := range st.Rules {
		st.Rules[i].ID = newID()
		st.Rules[i].StreamID = st.ID
	}
	return s.insert(ctx, st)
}

// Settings is a change of a stream's settings; nil fields stay as they are.
type Settings struct {
	Title                          *string
	Description                    *string
	MatchingType                   *MatchingType
	RemoveMatchesFromDefaultStream *bool
	IndexSetID                     *string
}

// Update changes a stream's settings. The index set it ends up with must
// exist and be writable, whether or not it changes, as in Graylog.
func (s *Service) Update(ctx context.Context, id string, set Settings) (*Stream, error) {
	cur, err := s.Get(id)
	if err != nil {
		return nil, err
	}
	ix := cur.IndexSetID
	if set.IndexSetID != nil {
		ix = *set.IndexSetID
	}
	if ix, err = s.checkIndexSet(ctx, ix); err != nil {
		return nil, err
	}
	return s.modify(ctx, id, func(st *Stream) error {
		if set.Title != nil {
			st.Title = *set.Title
		}
		if set.Description != nil {
			d := *set.Description
			st.Description = &d
		}
		if set.MatchingType != nil {
			st.MatchingType = *set.MatchingType
		}
		if set.RemoveMatchesFromDefaultStream != nil {
			st.RemoveMatchesFromDefaultStream = *set.RemoveMatchesFromDefaultStream
		}
		st.IndexSetID = ix
		return nil
	})
}

// SetDisabled pauses (true) or resumes (false) a stream.
func (s *Service) SetDisabled(ctx context.Context, id string, disabled bool) error {
	_, err := s.modify(ctx, id, func(st *Stream) error {
		st.Disabled = disabled
		return nil
	})
	return err
}

// Delete removes a stream with its rules.
func (s *Service) Delete(ctx context.Context, id string) error { return s.remove(ctx, id) }

// CloneRequest names what a clone takes from the request rather than from
// its source.
type CloneRequest struct {
	Title                          string
	Description                    *string
	RemoveMatchesFromDefaultStream bool
	IndexSetID                     string
	CreatorUserID                  string
}

// Clone creates a paused copy of a stream with copies of its rules and the
// same outputs and matching type, as Graylog's clone does.
func (s *Service) Clone(ctx context.Context, id string, c CloneRequest) (*Stream, error) {
	src, err := s.Get(id)
	if err != nil {
		return nil, err
	}
	// Only the outputs that still exist, as Graylog copies the loaded ones.
	outs, err := s.summaries(ctx, src.Outputs)
	if err != nil {
		return nil, err
	}
	st := &Stream{
		Title: c.Title, Description: c.Description, CreatorUserID: c.CreatorUserID,
		MatchingType: src.MatchingType, Disabled: true, IndexSetID: c.IndexSetID,
		RemoveMatchesFromDefaultStream: c.RemoveMatchesFromDefaultStream,
		Outputs:                        make([]string, 0, len(outs)),
	}
	for _, o := range outs {
		st.Outputs = append(st.Outputs, o.ID)
	}
	for _, r := range src.Rules {
		st.Rules = append(st.Rules, Rule{Type: r.Type, Value: r.Value, Field: r.Field, Inverted: r.Inverted, Description: r.Description})
	}
	if err := s.Create(ctx, st); err != nil {
		return nil, err
	}
	return st, nil
}

// errRuleNotFound is Graylog's answer for an unknown stream rule.
func errRuleNotFound(id string) error {
	return api.Errorf(api.NotFound, "Couldn't find stream rule with ID %s", id)
}

// Rule returns a rule of a stream.
func (s *Service) Rule(streamID, ruleID string) (Rule, error) {
	st, err := s.Get(streamID)
	if err != nil {
		return Rule{}, err
	}
	i := st.ruleIndex(ruleID)
	if i < 0 {
		return Rule{}, errRuleNotFound(ruleID)
	}
	return st.Rules[i], nil
}

// AddRule adds a rule to a stream and returns it with its new id. The rule
// must be of a known type; the handler validates the rest.
func (s *Service) AddRule(ctx context.Context, streamID string, r Rule) (Rule, error) {
	if !r.Type.Valid() {
		return Rule{}, api.Errorf(api.Invalid, "Unknown stream rule type %d", int(r.Type))
	}
	r.ID = newID()
	st, err := s.modify(ctx, streamID, func(st *Stream) error {
		r.StreamID = st.ID
		st.Rules = append(st.Rules, r)
		return nil
	})
	if err != nil {
		return Rule{}, err
	}
	return st.Rules[st.ruleIndex(r.ID)], nil
}

// UpdateRule replaces the type, field, value, inverted flag and description
// of a rule.
func (s *Service) UpdateRule(ctx context.Context, streamID, ruleID string, r Rule) error {
	_, err := s.modify(ctx, streamID, func(st *Stream) error {
		i := st.ruleIndex(ruleID)
		if i < 0 {
			return errRuleNotFound(ruleID)
		}
		cur := &st.Rules[i]
		cur.Type, cur.Field, cur.Value, cur.Inverted, cur.Description = r.Type, r.Field, r.Value, r.Inverted, r.Description
		return nil
	})
	return err
}

// DeleteRule removes a rule from a stream.
func (s *Service) DeleteRule(ctx context.Context, streamID, ruleID string) error {
	_, err := s.modify(ctx, streamID, func(st *Stream) error {
		i := st.ruleIndex(ruleID)
		if i < 0 {
			return errRuleNotFound(ruleID)
		}
		st.Rules = slices.Delete(st.Rules, i, i+1)
		return nil
	})
	return err
}
