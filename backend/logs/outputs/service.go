package outputs

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

// Streams is what outputs need of the streams service: attaching a new
// output to the streams its creator named, and detaching a deleted one from
// all of them.
type Streams interface {
	// AddOutput attaches an output to a stream. It wraps store.ErrNotFound
	// when the stream does not exist.
	AddOutput(ctx context.Context, streamID, outputID string) error
	// RemoveOutput detaches an output from every stream that has it.
	RemoveOutput(ctx context.Context, outputID string) error
}

// CreateRequest is Graylog's CreateOutputRequest, the body of
// POST /system/outputs.
type CreateRequest struct {
	Title         string                     `json:"title"`
	Type          string                     `json:"type"`
	Configuration map[string]json.RawMessage `json:"configuration"`
	// Streams are the ids of streams to attach the new output to.
	Streams     []string `json:"streams"`
	ContentPack *string  `json:"content_pack"`
}

// Service stores outputs.
type Service struct {
	st      store.Store
	streams Streams
	now     func() time.Time
}

// NewService returns the output service.
func NewService(st store.Store, streams Streams, now func() time.Time) *Service {
	return &Service{st: st, streams: streams, now: now}
}

// notFound is Graylog's 404 for an output; it wraps store.ErrNotFound.
func notFound(id string) error {
	return &api.Error{Code: api.NotFound, Message: "Couldn't find output with id " + id, Err: store.ErrNotFound}
}

func validID(id string) bool {
	_, err := primitive.ObjectIDFromHex(id)
	return err == nil
}

// Create validates and stores a new output and attaches it to the streams
// the request names. The error is an *api.ValidationError for a bad body; a
// stream that does not exist is a 404 and leaves nothing stored.
func (s *Service) Create(ctx context.Context, req CreateRequest, creator string) (Summary, error) {
	verr := &api.ValidationError{}
	if req.Title == "" {
		verr.Add("title", "Value %q is not a valid non-empty String!", req.Title)
	}
	typ, ok := LookupType(req.Type)
	if !ok {
		verr.Add("type", "Invalid output type")
	}
	var config map[string]any
	if ok {
		config = typ.Config.CoerceInto(verr, req.Configuration, nil)
	}
	if err := verr.Err(); err != nil {
		return Summary{}, err
	}
	out := Summary{
		ID: primitive.NewObjectID().Hex(), Title: req.Title, Type: req.Type, CreatorUserID: creator,
		CreatedAt: api.Time{Time: s.now().UTC().Truncate(time.Millisecond)}, Configuration: config, ContentPack: req.ContentPack,
	}
	doc, err := api.Marshal(out)
	if err != nil {
		return Summary{}, err
	}
	if err := s.st.Insert(ctx, Collection, out.ID, doc); err != nil {
		return Summary{}, fmt.Errorf("store output: %w", err)
	}
	if err := s.attach(ctx, out.ID, req.Streams); err != nil {
		return Summary{}, err
	}
	return out, nil
}

// attach adds a stored output to streams. On failure it undoes what was
// done, the attachments and the output itself.
func (s *Service) attach(ctx context.Context, outputID string, streams []string) error {
	seen := make(map[string]bool, len(streams))
	for _, sid := range streams {
		if seen[sid] {
			continue
		}
		seen[sid] = true
		err := s.streams.AddOutput(ctx, sid, outputID)
		if err == nil {
			continue
		}
		var apiErr *api.Error
		switch {
		case errors.As(err, &apiErr):
		case errors.Is(err, store.ErrNotFound):
			err = &api.Error{Code: api.NotFound, Message: "Stream <" + sid + "> not found!", Err: err}
		default:
			err = fmt.Errorf("attach output %s to stream %s: %w", outputID, sid, err)
		}
		return errors.Join(err, s.undo(ctx, outputID))
	}
	return nil
}

// undo removes a half-created output. Its own failures are returned for the
// log; the client sees the first error.
func (s *Service) undo(ctx context.Context, outputID string) error {
	// A client that went away must not leave a half-attached output behind.
	ctx = context.WithoutCancel(ctx)
	var errs []error
	if err := s.streams.RemoveOutput(ctx, outputID); err != nil {
		errs = append(errs, fmt.Errorf("undo: detach output %s: %w", outputID, err))
	}
	if err := s.st.Delete(ctx, Collection, outputID); err != nil && !errors.Is(err, store.ErrNotFound) {
		errs = append(errs, fmt.Errorf("undo: delete output %s: %w", outputID, err))
	}
	return errors.Join(errs...)
}

// Get returns an output. The error wraps store.ErrNotFound when there is no
// output with that id, malformed ids included.
func (s *Service) Get(ctx context.Context, id string) (Summary, error) {
	if !validID(id) {
		return Summary{}, notFound(id)
	}
	doc, err := s.st.Get(ctx, Collection, id)
	if errors.Is(err, store.ErrNotFound) {
		return Summary{}, notFound(id)
	}
	if err != nil {
		return Summary{}, err
	}
	return decode(doc)
}

func decode(doc []byte) (Summary, error) {
	var out Summary
	if err := json.Unmarshal(doc, &out); err != nil {
		return Summary{}, fmt.Errorf("stored output: %w", err)
	}
	if t, ok := LookupType(out.Type); ok {
		out.Configuration = t.Config.Typed(out.Configuration)
	}
	if out.Configuration == nil {
		out.Configuration = map[string]any{}
	}
	return out, nil
}

// List returns every output in id order, which for ObjectIds is the order
// of creation.
func (s *Service) List(ctx context.Context) ([]Summary, error) {
	return store.All(ctx, s.st, Collection, decode)
}

// CountByType returns the number of outputs, in all and by type class.
func (s *Service) CountByType(ctx context.Context) (total int, byType map[string]int, err error) {
	byType = map[string]int{}
	err = s.st.List(ctx, Collection, func(_ string, doc []byte) error {
		var o struct {
			Type string `json:"type"`
		}
		if err := json.Unmarshal(doc, &o); err != nil {
			return fmt.Errorf("stored output: %w", err)
		}
		total++
		byType[o.Type]++
		return nil
	})
	if err != nil {
		return 0, nil, err
	}
	return total, byType, nil
}

// Delete detaches an output from every stream and removes it. The error
// wraps store.ErrNotFound when there is no such output.
func (s *Service) Delete(ctx context.Context, id string) error {
	if _, err := s.Get(ctx, id); err != nil {
		return err
	}
	// Detach first: should the delete fail, a detached output is harmless,
	// while a stream naming a deleted one is not.
	if err := s.streams.RemoveOutput(ctx, id); err != nil {
		return fmt.Errorf("detach output %s: %w", id, err)
	}
	if err := s.st.Delete(ctx, Collection, id); err != nil && !errors.Is(err, store.ErrNotFound) {
		return err
	}
	return nil
}
