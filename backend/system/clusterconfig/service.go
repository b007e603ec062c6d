// Package clusterconfig keeps Graylog's cluster configuration: one document
// per configuration class (SearchesClusterConfig, MessageProcessorsConfig,
// UrlWhitelist, …) in the document store, shared by every node, and serves
// /system/cluster_config and the resources built on it (message processors,
// the URL whitelist, the getting-started guide).
package clusterconfig

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"slices"
	"strings"

	"github.com/loggate/loggate/backend/store"
	"github.com/loggate/loggate/router/api"
)

// collection is Graylog's cluster_config collection, which other resources
// (grok patterns, authentication services, the cluster id) share.
const collection = "cluster_config"

// ErrUnknownClass is answered for a class Graylog 4.0 does not have.
var ErrUnknownClass = errors.New("unknown configuration class")

// Service reads and writes the configuration classes.
type Service struct {
	st store.Store
}

// NewService returns the cluster configuration on st. Like Graylog, whose
// first start writes the search settings and, by its migrations, the events
// and sidecar settings with their defaults, it stores those classes'
// defaults when nothing is stored yet: the web interface reads them.
func NewService(ctx context.Context, st store.Store) (*Service, error) {
	s := &Service{st: st}
	for _, class := range []string{SearchesClass, EventsClass, SidecarClass} {
		doc, err := api.Marshal(classes[class].defaults)
		if err != nil {
			return nil, err
		}
		if err := st.Insert(ctx, collection, class, doc); err != nil && !errors.Is(err, store.ErrConflict) {
			return nil, fmt.Errorf("cluster configuration: %w", err)
		}
	}
	return s, nil
}

func known(class string) (classInfo, error) {
	c, ok := classes[class]
	if !ok {
		return classInfo{}, api.Wrap(api.NotFound, fmt.Sprintf("Couldn't find configuration class %q.", class), ErrUnknownClass)
	}
	return c, nil
}

// Get returns the stored document of a class, or nil when nothing is stored.
// Classes other resources keep in the collection (the trusted header
// settings, migration records) are read as stored, as Graylog reads every
// class it has.
func (s *Service) Get(ctx context.Context, class string) (json.RawMessage, error) {
	_, unknown := known(class)
	doc, err := s.st.Get(ctx, collection, class)
	switch {
	case errors.Is(err, store.ErrNotFound) || err == nil && !isClass(class):
		if unknown != nil {
			return nil, unknown
		}
		return nil, nil
	case err != nil:
		return nil, err
	}
	return doc, nil
}

// isClass tells the documents stored under a class name from loggate's own
// records in the collection (the cluster id).
func isClass(id string) bool { return strings.Contains(id, ".") }

// Put stores a class's document and returns what was stored: the body
// read the way Graylog's class reads it (unknown properties dropped, missing
// ones at their defaults, values of the wrong type refused).
func (s *Service) Put(ctx context.Context, class string, body []byte) (json.RawMessage, error) {
	c, err := known(class)
	if err != nil {
		return nil, err
	}
	doc, err := c.read(body)
	if err != nil {
		return nil, api.Wrap(api.Invalid, fmt.Sprintf("Couldn't parse cluster configuration %q.", class), err)
	}
	if err := s.st.Put(ctx, collection, class, doc); err != nil {
		return nil, err
	}
	return doc, nil
}

// Delete removes a class's document; removing one that is not stored is no
// error.
func (s *Service) Delete(ctx context.Context, class string) error {
	if _, err := known(class); err != nil {
		return err
	}
	if err := s.st.Delete(ctx, collection, class); err != nil && !errors.Is(err, store.ErrNotFound) {
		return err
	}
	return nil
}

// Classes returns the names of the classes that have a stored document,
// those of other resources included.
func (s *Service) Classes(ctx context.Context) ([]string, error) {
	out := []string{}
	err := s.st.List(ctx, collection, func(id string, _ []byte) error {
		if isClass(id) {
			out = append(out, id)
		}
		return nil
	})
	slices.Sort(out)
	return out, err
}

// load decodes a class's stored document into v, leaving v as it is when
// nothing is stored.
func (s *Service) load(ctx context.Context, class string, v any) error {
	doc, err := s.Get(ctx, class)
	if err != nil || doc == nil {
		return err
	}
	if err := json.Unmarshal(doc, v); err != nil {
		return fmt.Errorf("stored %s is unreadable: %w", class, err)
	}
	return nil
}

// save stores v as a class's document.
func (s *Service) save(ctx context.Context, class string, v any) error {
	doc, err := json.Marshal(v)
	if err != nil {
		return err
	}
	return s.st.Put(ctx, collection, class, doc)
}
