package extractors

import (
	"context"

	"github.com/loggate/loggate/backend/logs/messages"
	"github.com/loggate/loggate/backend/store"
	"github.com/loggate/loggate/router/api"
)

const staticResource = "org.graylog2.rest.resources.system.inputs.StaticFieldsResource"

func staticInputNotFound(id string) error {
	return &api.Error{Code: api.NotFound, Message: "Input <" + id + "> not found.", Err: store.ErrNotFound}
}

// validStaticKey is Graylog's check of a static field key: the key
// pattern alone, so the empty key passes (Message.validKey).
func validStaticKey(key string) bool { return key == "" || messages.ValidKey(key) }

// AddStaticField adds (or replaces) a static field of an input. Graylog
// appends a second element for a key already there and shows the later
// one; loggate keeps only that one, which reads the same.
func (s *Service) AddStaticField(ctx context.Context, inputID string, key, value *string) error {
	if _, err := s.load(ctx, inputID, staticInputNotFound); err != nil {
		return err
	}
	switch {
	case key == nil:
		return api.Errorf(api.Invalid, "Null key")
	case value == nil:
		return api.Errorf(api.Invalid, "Null value")
	case !validStaticKey(*key):
		return api.Errorf(api.Invalid, "Invalid key: [%s]", *key)
	case messages.Unsettable(*key) && *key != messages.FieldStreams:
		return api.Errorf(api.Invalid, "Cannot add static field. Field [%s] is reserved.", *key)
	}
	err := s.modify(ctx, inputID, staticInputNotFound, func(d *doc) error {
		next := make(map[string]string, len(d.StaticFields)+1)
		for k, v := range d.StaticFields {
			next[k] = v
		}
		next[*key] = *value
		d.StaticFields = next
		return nil
	})
	if err != nil {
		return err
	}
	s.record(ctx, staticResource, "Added static field [%s] to input %s.", *key, inputID)
	return nil
}

// RemoveStaticField removes a static field of an input.
func (s *Service) RemoveStaticField(ctx context.Context, inputID, key string) error {
	err := s.modify(ctx, inputID, staticInputNotFound, func(d *doc) error {
		if _, ok := d.StaticFields[key]; !ok {
			return api.Errorf(api.NotFound, "No such static field [%s] on input %s.", key, inputID)
		}
		next := make(map[string]string, len(d.StaticFields))
		for k, v := range d.StaticFields {
			if k != key {
				next[k] = v
			}
		}
		d.StaticFields = next
		return nil
	})
	if err != nil {
		return err
	}
	s.record(ctx, staticResource, "Removed static field [%s] of input %s.", key, inputID)
	return nil
}
