package inputs

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"time"

	"go.mongodb.org/mongo-driver/bson/primitive"

	"github.com/loggate/loggate/backend/store"
	"github.com/loggate/loggate/router/api"
)

// NodeChecker reports whether a node id names a known node. An error means
// the check itself failed.
type NodeChecker func(ctx context.Context, nodeID string) (bool, error)

// Option configures a Service.
type Option func(*Service)

// WithNodeChecker makes the service refuse non-global inputs for nodes the
// checker does not know. Without it any non-empty node id is accepted.
func WithNodeChecker(check NodeChecker) Option {
	return func(s *Service) { s.knownNode = check }
}

// WithChangeHook makes the service call fn after every input it creates,
// updates or deletes, so that this node's runner starts or stops it at
// once (other nodes notice on their next reconciliation).
func WithChangeHook(fn func()) Option {
	return func(s *Service) { s.changed = fn }
}

// WithMaxDecompressed makes the service refuse a decompress_size_limit
// above max, the message journal's record limit: a message decompressed
// beyond it could never be journaled, and inflating it would only take
// memory.
func WithMaxDecompressed(max int64) Option {
	return func(s *Service) { s.maxDecompressed = max }
}

// Service stores inputs.
type Service struct {
	st              store.Store
	now             func() time.Time
	knownNode       NodeChecker
	changed         func()
	maxDecompressed int64
}

// checkLimits refuses configuration values above what the node can take.
func (s *Service) checkLimits(verr *api.ValidationError, config map[string]any) {
	n, ok := config["decompress_size_limit"].(int)
	if ok && s.maxDecompressed > 0 && int64(n) > s.maxDecompressed {
		verr.Add("decompress_size_limit", "Configuration field \"decompress_size_limit\" is %d bytes, above the message journal's record limit of %d bytes",
			n, s.maxDecompressed)
	}
}

func (s *Service) notify() {
	if s.changed != nil {
		s.changed()
	}
}

// NewService returns the input service.
func NewService(st store.Store, now func() time.Time, opts ...Option) *Service {
	s := &Service{st: st, now: now}
	for _, o := range opts {
		o(s)
	}
	return s
}

// errNoType is Graylog's answer to an unknown input type: a 404, not a
// validation error.
var errNoType = &api.Error{Code: api.NotFound, Message: "There is no such input type registered."}

// notFound is Graylog's 404 for an input; it wraps store.ErrNotFound.
func notFound(id string) error {
	if _, err := primitive.ObjectIDFromHex(id); err != nil {
		return &api.Error{Code: api.NotFound, Message: "Input id <" + id + "> is invalid!", Err: store.ErrNotFound}
	}
	return &api.Error{Code: api.NotFound, Message: "Input <" + id + "> not found!", Err: store.ErrNotFound}
}

// check validates a request but for its configuration, which an update
// checks against the stored one. It returns the request's type and the
// failures found; the error is a 404 for an unknown type or a failed node
// check.
func (s *Service) check(ctx context.Context, req CreateRequest) (Type, *api.ValidationError, error) {
	typ, ok := LookupType(req.Type)
	if !ok {
		return Type{}, nil, errNoType
	}
	verr := &api.ValidationError{}
	if req.Title == "" {
		verr.Add("title", "Value %q is not a valid non-empty String!", req.Title)
	}
	if !req.Global {
		if err := s.checkNode(ctx, verr, req.Node); err != nil {
			return Type{}, nil, err
		}
	}
	return typ, verr, nil
}

func (s *Service) checkNode(ctx context.Context, verr *api.ValidationError, node *string) error {
	if node == nil || *node == "" {
		verr.Add("node", "A non-global input needs the id of the node to run on")
		return nil
	}
	if s.knownNode == nil {
		return nil
	}
	known, err := s.knownNode(ctx, *node)
	if err != nil {
		return fmt.Errorf("check node %s: %w", *node, err)
	}
	if !known {
		verr.Add("node", "Node %s does not exist", *node)
	}
	return nil
}

// nodeOf is the node an input is stored with: none for a global one.
func nodeOf(req CreateRequest) *string {
	if req.Global {
		return nil
	}
	n := *req.Node
	return &n
}

// Create validates and stores a new input. The error is a 404 for an
// unknown type and an *api.ValidationError for bad values.
func (s *Service) Create(ctx context.Context, req CreateRequest, creator string) (Input, error) {
	typ, verr, err := s.check(ctx, req)
	if err != nil {
		return Input{}, err
	}
	config := typ.Config.CoerceInto(verr, req.Configuration, nil)
	s.checkLimits(verr, config)
	if err := verr.Err(); err != nil {
		return Input{}, err
	}
	in := Input{
		ID: primitive.NewObjectID().Hex(), Title: req.Title, Type: req.Type, Global: req.Global, Node: nodeOf(req),
		Configuration: config, CreatorUserID: creator, CreatedAt: s.now().UTC().Truncate(time.Millisecond),
		StaticFields: map[string]string{},
	}
	doc, err := api.Marshal(in)
	if err != nil {
		return Input{}, err
	}
	if err := s.st.Insert(ctx, Collection, in.ID, doc); err != nil {
		return Input{}, fmt.Errorf("store input: %w", err)
	}
	s.notify()
	return in, nil
}

// Update replaces an input's title, type, global flag, node and
// configuration; a password sent back as the mask keeps its stored value.
// Creator, creation time, content pack and static fields are kept. The
// error wraps store.ErrNotFound when there is no such input.
func (s *Service) Update(ctx context.Context, id string, req CreateRequest) (Input, error) {
	// As in Graylog, an unknown input is reported before a bad request.
	if _, err := s.Get(ctx, id); err != nil {
		return Input{}, err
	}
	// The type and node are checked before the store's update, whose
	// function must have no side effects such as asking for nodes.
	typ, verr, err := s.check(ctx, req)
	if err != nil {
		return Input{}, err
	}
	var updated Input
	err = s.st.Update(ctx, Collection, id, func(doc []byte) ([]byte, error) {
		in, err := decode(doc)
		if err != nil {
			return nil, err
		}
		// The function may run more than once: collect into a copy.
		fails := &api.ValidationError{}
		for f, msgs := range verr.Fields {
			for _, m := range msgs {
				fails.Add(f, "%s", m)
			}
		}
		config := typ.Config.CoerceInto(fails, req.Configuration, in.Configuration)
		s.checkLimits(fails, config)
		if err := fails.Err(); err != nil {
			return nil, err
		}
		in.Title, in.Type, in.Global, in.Node, in.Configuration = req.Title, req.Type, req.Global, nodeOf(req), config
		updated = in
		return api.Marshal(in)
	})
	if errors.Is(err, store.ErrNotFound) {
		return Input{}, notFound(id)
	}
	if err != nil {
		return Input{}, err
	}
	s.notify()
	return updated, nil
}

func decode(doc []byte) (Input, error) {
	var in Input
	if err := json.Unmarshal(doc, &in); err != nil {
		return Input{}, fmt.Errorf("stored input: %w", err)
	}
	if t, ok := LookupType(in.Type); ok {
		in.Configuration = t.Config.Typed(in.Configuration)
	}
	if in.Configuration == nil {
		in.Configuration = map[string]any{}
	}
	if in.StaticFields == nil {
		in.StaticFields = map[string]string{}
	}
	return in, nil
}

// Get returns an input with its configuration in clear. The error wraps
// store.ErrNotFound when there is no input with that id, malformed ids
// included.
func (s *Service) Get(ctx context.Context, id string) (Input, error) {
	if _, err := primitive.ObjectIDFromHex(id); err != nil {
		return Input{}, notFound(id)
	}
	doc, err := s.st.Get(ctx, Collection, id)
	if errors.Is(err, store.ErrNotFound) {
		return Input{}, notFound(id)
	}
	if err != nil {
		return Input{}, err
	}
	return decode(doc)
}

// All returns every input with its configuration in clear, in id order,
// which for ObjectIds is the order of creation.
func (s *Service) All(ctx context.Context) ([]Input, error) {
	return store.All(ctx, s.st, Collection, decode)
}

// Delete removes an input. The error wraps store.ErrNotFound when there is
// no such input.
func (s *Service) Delete(ctx context.Context, id string) error {
	if _, err := primitive.ObjectIDFromHex(id); err != nil {
		return notFound(id)
	}
	err := s.st.Delete(ctx, Collection, id)
	if errors.Is(err, store.ErrNotFound) {
		return notFound(id)
	}
	if err == nil {
		s.notify()
	}
	return err
}

// Count returns the number of inputs: in all, global ones, and by type
// class, for the cluster statistics.
func (s *Service) Count(ctx context.Context) (total, global int, byType map[string]int, err error) {
	byType = map[string]int{}
	err = s.st.List(ctx, Collection, func(_ string, doc []byte) error {
		var in struct {
			Type   string `json:"type"`
			Global bool   `json:"global"`
		}
		if err := json.Unmarshal(doc, &in); err != nil {
			return fmt.Errorf("stored input: %w", err)
		}
		total++
		if in.Global {
			global++
		}
		byType[in.Type]++
		return nil
	})
	if err != nil {
		return 0, 0, nil, err
	}
	return total, global, byType, nil
}
