package views

import (
	"context"
	"encoding/json"
	"errors"
	"maps"
	"strings"

	"go.mongodb.org/mongo-driver/bson/primitive"

	"github.com/loggate/loggate/auth"
	"github.com/loggate/loggate/backend/analysis/views"
	"github.com/loggate/loggate/backend/store"
	"github.com/loggate/loggate/router/api"
)

// searchKey is the property of a SEARCH view's state entry that keeps the
// legacy saved search's query object, which 4.0 keeps in a search document
// of its own.
const searchKey = "legacy_query"

// SavedSearches returns the saved searches the caller may read: the SEARCH
// views, oldest first.
func (s *Service) SavedSearches(ctx context.Context) (SavedSearchList, error) {
	ss, err := readable(ctx, s, views.Search, canReadSearch, func(v views.View) (SavedSearch, error) { return savedSearchOf(v), nil })
	return SavedSearchList{Searches: ss, Total: len(ss)}, err
}

// SavedSearch returns one saved search.
func (s *Service) SavedSearch(ctx context.Context, id string) (SavedSearch, error) {
	v, err := s.search(ctx, id, canReadSearch, "savedsearches:read:")
	if err != nil {
		return SavedSearch{}, err
	}
	return savedSearchOf(v), nil
}

// CreateSavedSearch stores a saved search as a SEARCH view owned by the
// caller and returns its id. Its title is the saved search's, not
// Graylog's migrated "Saved Search: <title>": nothing was migrated.
func (s *Service) CreateSavedSearch(ctx context.Context, req SavedSearchRequest) (string, error) {
	p := auth.FromContext(ctx)
	if err := auth.Require(ctx, "savedsearches:create"); err != nil {
		return "", err
	}
	state, err := searchState(nil, req.Query)
	if err != nil {
		return "", err
	}
	v := views.View{
		Type: views.Search, Title: req.Title, Summary: SavedSearchSummary,
		SearchID: primitive.NewObjectID().Hex(), Properties: []string{}, Requires: map[string]json.RawMessage{},
		State: map[string]json.RawMessage{newUUID(): state},
	}
	return s.create(ctx, v, p.Username)
}

// UpdateSavedSearch replaces a saved search's title and query and returns
// it, as Graylog 2.x/3.x answered.
func (s *Service) UpdateSavedSearch(ctx context.Context, id string, req SavedSearchRequest) (SavedSearch, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	v, err := s.search(ctx, id, canEditSearch, "savedsearches:edit:")
	if err != nil {
		return SavedSearch{}, err
	}
	queryID, q, err := firstQuery(v)
	if err != nil {
		return SavedSearch{}, err
	}
	state, err := searchState(q, req.Query)
	if err != nil {
		return SavedSearch{}, err
	}
	v.Title = req.Title
	v.State = maps.Clone(v.State)
	if v.State == nil {
		v.State = map[string]json.RawMessage{}
	}
	v.State[queryID] = state
	if err := s.writeSearch(ctx, &v, ownerOf(v)); err != nil {
		return SavedSearch{}, err
	}
	updated, err := s.views.Update(ctx, id, v)
	if errors.Is(err, store.ErrNotFound) {
		return SavedSearch{}, searchNotFound(id)
	}
	if err != nil {
		return SavedSearch{}, err
	}
	return savedSearchOf(updated), nil
}

// DeleteSavedSearch deletes a saved search.
func (s *Service) DeleteSavedSearch(ctx context.Context, id string) error {
	s.mu.Lock()
	defer s.mu.Unlock()
	v, err := s.search(ctx, id, canDeleteSearch, "savedsearches:edit:")
	if err != nil {
		return err
	}
	return s.delete(ctx, v, searchNotFound)
}

// search loads a SEARCH view for an action allowed decides, checking the
// permission before the lookup as Graylog does.
func (s *Service) search(ctx context.Context, id string, allowed func(*auth.Principal, views.View) bool, perm string) (views.View, error) {
	return s.load(ctx, id, views.Search, searchNotFound, allowed, perm)
}

// searchState is the state entry of a saved search: the legacy query kept
// whole, and the fields it shows as the 4.0 message list's selected fields.
func searchState(q *queryState, legacyQuery json.RawMessage) (json.RawMessage, error) {
	if q == nil {
		q = newQueryState()
	}
	q.raw[searchKey] = legacyQuery
	var fields []string
	var lq struct {
		Fields string `json:"fields"`
	}
	if json.Unmarshal(legacyQuery, &lq) == nil && lq.Fields != "" {
		fields = strings.Split(lq.Fields, ",")
	}
	if b, err := api.Marshal(fields); err == nil {
		q.raw["selected_fields"] = b
	}
	if err := savedSearchWidgets(q, fields); err != nil {
		return nil, err
	}
	return q.encode()
}

// savedSearchOf is the legacy form of a SEARCH view. A view 4.0 made has no
// legacy query; it gets the one a 3.x search page would have saved for its
// selected fields over the last five minutes.
func savedSearchOf(v views.View) SavedSearch {
	out := SavedSearch{ID: v.ID, Title: v.Title, CreatedAt: v.CreatedAt, CreatorUserID: v.Owner}
	if _, q, err := firstQuery(v); err == nil {
		if raw, ok := q.raw[searchKey]; ok {
			out.Query = raw
			return out
		}
		var fields []string
		_ = json.Unmarshal(q.raw["selected_fields"], &fields)
		out.Query, _ = api.Marshal(map[string]any{
			"query": "", "rangeType": "relative", "relative": 300, "fields": strings.Join(fields, ","),
		})
		return out
	}
	out.Query = json.RawMessage(`{}`)
	return out
}

func searchNotFound(id string) error {
	return api.Errorf(api.NotFound, "Couldn't find saved search with ID %s", id)
}
