package views

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"time"

	"github.com/tidwall/gjson"
	"go.mongodb.org/mongo-driver/bson/primitive"

	"github.com/loggate/loggate/auth"
	"github.com/loggate/loggate/backend/store"
	"github.com/loggate/loggate/router/api"
)

// SearchCollection holds the searches views show (Graylog's Search), one
// document per search, stored as the API shows it.
const SearchCollection = "searches"

// ViewSearch is Graylog's Search: the queries a view runs, each with its search
// types. Queries and parameters are kept as the client sent them: their
// content belongs to the web interface, and executing a search reads it
// afresh.
type ViewSearch struct {
	ID         string                     `json:"id"`
	Queries    []json.RawMessage          `json:"queries"`
	Parameters []json.RawMessage          `json:"parameters"`
	Requires   map[string]json.RawMessage `json:"requires"`
	// Owner is the creator's username: a search is its creator's, and
	// readable by whoever may read a view that shows it.
	Owner     *string  `json:"owner"`
	CreatedAt api.Time `json:"created_at"`
}

func (s ViewSearch) owner() string {
	if s.Owner == nil {
		return ""
	}
	return *s.Owner
}

// searchRequest is a Search as a client sends it.
type searchRequest struct {
	ID         *string                    `json:"id"`
	Queries    []json.RawMessage          `json:"queries"`
	Parameters []json.RawMessage          `json:"parameters"`
	Requires   map[string]json.RawMessage `json:"requires"`
}

// readSearch reads and validates a Search request body. Properties loggate
// does not know are ignored, so that a newer interface's searches are
// stored.
func readSearch(r *http.Request) (ViewSearch, error) {
	body, err := api.ReadBody(r)
	if err != nil {
		return ViewSearch{}, err
	}
	return decodeSearch(body)
}

// decodeSearch is readSearch on a body already read.
func decodeSearch(body []byte) (ViewSearch, error) {
	var req searchRequest
	if err := api.DecodeBytes(body, &req, false); err != nil {
		return ViewSearch{}, err
	}
	s := ViewSearch{Queries: req.Queries, Parameters: req.Parameters, Requires: req.Requires}
	verr := &api.ValidationError{}
	switch {
	case req.ID == nil || *req.ID == "":
		s.ID = primitive.NewObjectID().Hex()
	case !isObjectID(*req.ID):
		verr.Add("id", "Invalid search id %q: it must be an ObjectId (24 hexadecimal digits)", *req.ID)
	default:
		s.ID = *req.ID
	}
	if s.Queries == nil {
		s.Queries = []json.RawMessage{}
	}
	if s.Parameters == nil {
		s.Parameters = []json.RawMessage{}
	}
	if s.Requires == nil {
		s.Requires = map[string]json.RawMessage{}
	}
	seen := map[string]bool{}
	for i, q := range s.Queries {
		checkQuery(verr, i, gjson.ParseBytes(q), seen)
	}
	if err := verr.Err(); err != nil {
		return ViewSearch{}, err
	}
	return s, nil
}

// checkQuery checks what executing a query relies on: an id unique in the
// search, and search types that each have an id and a type.
func checkQuery(verr *api.ValidationError, i int, q gjson.Result, seen map[string]bool) {
	at := fmt.Sprintf("queries[%d]", i)
	if !q.IsObject() {
		verr.Add("queries", "%s must be an object (a query), got %s", at, kind(q))
		return
	}
	id := q.Get("id")
	switch {
	case id.Type != gjson.String || id.Str == "":
		verr.Add("queries", "%s.id must be a non-empty string, got %s", at, kind(id))
	case seen[id.Str]:
		verr.Add("queries", "%s.id %q is used by another query of the search", at, id.Str)
	default:
		seen[id.Str] = true
	}
	types := q.Get("search_types")
	if types.Exists() && types.Type != gjson.Null && !types.IsArray() {
		verr.Add("queries", "%s.search_types must be an array, got %s", at, kind(types))
		return
	}
	j := 0
	types.ForEach(func(_, st gjson.Result) bool {
		sat := fmt.Sprintf("%s.search_types[%d]", at, j)
		j++
		if !st.IsObject() {
			verr.Add("queries", "%s must be an object (a search type), got %s", sat, kind(st))
			return true
		}
		for _, name := range []string{"id", "type"} {
			if v := st.Get(name); v.Type != gjson.String || v.Str == "" {
				verr.Add("queries", "%s.%s must be a non-empty string, got %s", sat, name, kind(v))
			}
		}
		return true
	})
}

// Searches stores searches. Errors of missing searches wrap
// store.ErrNotFound.
type Searches struct {
	st    store.Store
	views *Service
	now   func() time.Time
}

// NewSearches returns the search store on st; views are consulted for who
// may read a search.
func NewSearches(st store.Store, views *Service, now func() time.Time) *Searches {
	return &Searches{st: st, views: views, now: now}
}

// Get returns a search by id.
func (s *Searches) Get(ctx context.Context, id string) (ViewSearch, error) {
	doc, err := s.st.Get(ctx, SearchCollection, id)
	if err != nil {
		return ViewSearch{}, fmt.Errorf("search %s: %w", id, err)
	}
	var out ViewSearch
	if err := json.Unmarshal(doc, &out); err != nil {
		return ViewSearch{}, fmt.Errorf("decode search %s: %w", id, err)
	}
	return out, nil
}

// Save stores s owned by owner, replacing a stored search of the same id
// (Graylog saves searches by id).
func (s *Searches) Save(ctx context.Context, search ViewSearch, owner string) (ViewSearch, error) {
	search.Owner = &owner
	search.CreatedAt = api.Time{Time: s.now().UTC().Truncate(time.Millisecond)}
	doc, err := json.Marshal(search)
	if err != nil {
		return ViewSearch{}, fmt.Errorf("encode search: %w", err)
	}
	if err := s.st.Put(ctx, SearchCollection, search.ID, doc); err != nil {
		return ViewSearch{}, fmt.Errorf("save search %s: %w", search.ID, err)
	}
	return search, nil
}

// isAdmin stands in for Graylog's local admin check, which reads and
// overwrites every search.
func isAdmin(p *auth.Principal) bool { return p.Permits("*") }

// canReadSearch is Graylog 4.0's SearchDomain check: the owner, an
// administrator, or whoever may read a view that shows the search.
func (s *Searches) canReadSearch(ctx context.Context, p *auth.Principal, search ViewSearch) (bool, error) {
	if p == nil {
		return false, nil
	}
	if isAdmin(p) || search.owner() == p.Username && p.Username != "" {
		return true, nil
	}
	found := false
	err := s.st.List(ctx, Collection, func(id string, doc []byte) error {
		if !found && gjson.GetBytes(doc, "search_id").Str == search.ID {
			found = canRead(p, summaryOf(id, doc).ref())
		}
		return nil
	})
	if err != nil {
		return false, fmt.Errorf("views of search %s: %w", search.ID, err)
	}
	return found, nil
}

// load returns the search the caller in ctx may read: 404 when it does not
// exist, 403 when it exists and is not theirs to read, as Graylog answers.
func (s *Searches) load(ctx context.Context, id string) (ViewSearch, error) {
	search, err := s.Get(ctx, id)
	if errors.Is(err, store.ErrNotFound) {
		return ViewSearch{}, api.Errorf(api.NotFound, "Search with id %s does not exist", id)
	}
	if err != nil {
		return ViewSearch{}, err
	}
	p := auth.FromContext(ctx)
	if p == nil {
		return ViewSearch{}, auth.Unauthenticated()
	}
	ok, err := s.canReadSearch(ctx, p, search)
	if err != nil {
		return ViewSearch{}, err
	}
	if !ok {
		return ViewSearch{}, api.Errorf(api.Forbidden, "User %s does not have permission to load search %s", p.Username, id)
	}
	return search, nil
}

// MaxSearchAge is how long a search no view shows is kept: Graylog's
// searches clean-up deletes them after four hours. The search page stores
// a search on every query it runs; only the saved ones are worth keeping.
const MaxSearchAge = 4 * time.Hour

// Purge deletes the searches created before cutoff that no view shows,
// and returns how many it deleted.
func (s *Searches) Purge(ctx context.Context, cutoff time.Time) (int, error) {
	shown := map[string]bool{}
	if err := s.st.List(ctx, Collection, func(_ string, doc []byte) error {
		shown[gjson.GetBytes(doc, "search_id").Str] = true
		return nil
	}); err != nil {
		return 0, fmt.Errorf("purge searches: list views: %w", err)
	}
	var old []string
	if err := s.st.List(ctx, SearchCollection, func(id string, doc []byte) error {
		created, err := time.Parse(time.RFC3339, gjson.GetBytes(doc, "created_at").Str)
		if err == nil && created.Before(cutoff) && !shown[id] {
			old = append(old, id)
		}
		return nil
	}); err != nil {
		return 0, fmt.Errorf("purge searches: %w", err)
	}
	n := 0
	for _, id := range old {
		err := s.st.Delete(ctx, SearchCollection, id)
		if err != nil && !errors.Is(err, store.ErrNotFound) {
			return n, fmt.Errorf("purge search %s: %w", id, err)
		}
		if err == nil {
			n++
		}
	}
	return n, nil
}

// Delete deletes a search; a missing one is no error, for what is asked
// for holds.
func (s *Searches) Delete(ctx context.Context, id string) error {
	err := s.st.Delete(ctx, SearchCollection, id)
	if err != nil && !errors.Is(err, store.ErrNotFound) {
		return fmt.Errorf("delete search %s: %w", id, err)
	}
	return nil
}

// ParseSearch reads and validates a Search as POST /views/search does,
// for searches created from elsewhere (content packs); one without an id
// gets a new one.
func ParseSearch(body []byte) (ViewSearch, error) { return decodeSearch(body) }

// DeleteUnlessShown deletes a search no stored view shows (the search of a
// view deleted, unless another view shows it too).
func (s *Searches) DeleteUnlessShown(ctx context.Context, id string) error {
	shown := false
	err := s.st.List(ctx, Collection, func(_ string, doc []byte) error {
		shown = shown || gjson.GetBytes(doc, "search_id").Str == id
		return nil
	})
	if err != nil {
		return fmt.Errorf("list views: %w", err)
	}
	if shown {
		return nil
	}
	return s.Delete(ctx, id)
}
