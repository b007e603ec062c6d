package outputs

import (
	"context"
	"encoding/json"
	"errors"

	"github.com/loggate/loggate/backend/store"
	"github.com/loggate/loggate/router/api"
)

// Update applies a partial update, the body of PUT /system/outputs/{id}:
// title, configuration (a whole configuration, validated like a new one,
// where the password mask keeps a stored password) and content_pack. type
// may be sent but must be the output's own. Other keys, streams among them,
// are ignored as Graylog ignores them. The error wraps store.ErrNotFound
// when there is no such output and is an *api.ValidationError for bad
// values.
func (s *Service) Update(ctx context.Context, id string, delta map[string]json.RawMessage) (Summary, error) {
	if !validID(id) {
		return Summary{}, notFound(id)
	}
	var updated Summary
	err := s.st.Update(ctx, Collection, id, func(doc []byte) ([]byte, error) {
		out, err := decode(doc)
		if err != nil {
			return nil, err
		}
		if err := apply(&out, delta); err != nil {
			return nil, err
		}
		updated = out
		return api.Marshal(out)
	})
	if errors.Is(err, store.ErrNotFound) {
		return Summary{}, notFound(id)
	}
	if err != nil {
		return Summary{}, err
	}
	return updated, nil
}

// apply validates a delta and applies it to out.
func apply(out *Summary, delta map[string]json.RawMessage) error {
	verr := &api.ValidationError{}
	if raw, ok := delta["title"]; ok {
		var title string
		switch {
		case json.Unmarshal(raw, &title) != nil:
			verr.Add("title", "The title must be a string")
		case title == "":
			verr.Add("title", "Value %q is not a valid non-empty String!", title)
		}
		out.Title = title
	}
	typ, known := LookupType(out.Type)
	if raw, ok := delta["type"]; ok {
		var t string
		if json.Unmarshal(raw, &t) != nil || t != out.Type {
			verr.Add("type", "The type of an output cannot be changed; it is %s", out.Type)
		}
	}
	if raw, ok := delta["configuration"]; ok {
		var in map[string]json.RawMessage
		switch {
		case !known:
			verr.Add("type", "Invalid output type")
		case json.Unmarshal(raw, &in) != nil || in == nil:
			verr.Add("configuration", "The configuration must be an object")
		default:
			out.Configuration = typ.Config.CoerceInto(verr, in, out.Configuration)
		}
	}
	if raw, ok := delta["content_pack"]; ok {
		var cp *string
		if err := json.Unmarshal(raw, &cp); err != nil {
			verr.Add("content_pack", "The content pack must be a string or null")
		}
		out.ContentPack = cp
	}
	return verr.Err()
}
