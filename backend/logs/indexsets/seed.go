package indexsets

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"

	"go.mongodb.org/mongo-driver/bson/primitive"

	"github.com/loggate/loggate/backend/store"
	"github.com/loggate/loggate/router/api"
)

// seedMarker records what seeding did, so that a restart repeats nothing:
// Graylog's DefaultIndexSetCreated marker and the ids of the events index
// sets its events migration created.
type seedMarker struct {
	DefaultCreated bool   `json:"default_index_set_created"`
	Events         string `json:"events_index_set_id,omitempty"`
	SystemEvents   string `json:"system_events_index_set_id,omitempty"`
}

const seedKey = "seed"

func ptr[T any](v T) *T { return &v }

// defaultSet is the index set V20161116172100_DefaultIndexSetMigration
// creates from Graylog 4.0's default configuration (elasticsearch_shards 4,
// count rotation at 20 million messages, deletion after 20 indices).
func defaultSet() IndexSet {
	return IndexSet{
		Title:                           "Default index set",
		Description:                     ptr("The Graylog default index set"),
		Writable:                        true,
		IndexPrefix:                     "graylog",
		Shards:                          4,
		Replicas:                        0,
		RotationStrategyClass:           MessageCountRotation,
		RotationStrategy:                rotations[MessageCountRotation].defaults,
		RetentionStrategyClass:          DeletionRetention,
		RetentionStrategy:               retentions[DeletionRetention].defaults,
		IndexAnalyzer:                   "standard",
		IndexTemplateName:               "graylog-internal",
		IndexTemplateType:               ptr(TemplateMessages),
		IndexOptimizationMaxNumSegments: 1,
		FieldTypeRefreshInterval:        5000,
	}
}

// eventsSet is an index set V20190705071400_AddEventIndexSetsMigration
// creates: monthly indices kept for a year, field types refreshed every
// minute.
func eventsSet(title, description, prefix string) IndexSet {
	month := Period{Months: 1}
	return IndexSet{
		Title:                           title,
		Description:                     ptr(description),
		Writable:                        true,
		IndexPrefix:                     prefix,
		Shards:                          4,
		Replicas:                        0,
		RotationStrategyClass:           TimeBasedRotation,
		RotationStrategy:                RotationConfig{Type: configType(TimeBasedRotation), RotationPeriod: &month},
		RetentionStrategyClass:          DeletionRetention,
		RetentionStrategy:               RetentionConfig{Type: configType(DeletionRetention), MaxNumberOfIndices: 12},
		IndexAnalyzer:                   "standard",
		IndexTemplateName:               prefix + "-template",
		IndexTemplateType:               ptr(TemplateEvents),
		IndexOptimizationMaxNumSegments: 1,
		FieldTypeRefreshInterval:        60_000,
	}
}

// seed creates the default index set once, and the two events index sets
// whenever they are missing, as Graylog's migrations do at every start. Each
// step is recorded in the marker, and an index set found by its prefix is
// adopted rather than created again, so that a start that crashed half way
// is finished, not repeated.
func (s *Service) seed(ctx context.Context) error {
	s.mu.Lock()
	defer s.mu.Unlock()
	var m seedMarker
	switch doc, err := s.st.Get(ctx, ConfigCollection, seedKey); {
	case errors.Is(err, store.ErrNotFound):
	case err != nil:
		return fmt.Errorf("reading the seed marker: %w", err)
	default:
		if err := json.Unmarshal(doc, &m); err != nil {
			return fmt.Errorf("stored seed marker: %w", err)
		}
	}
	before := m
	if !m.DefaultCreated {
		id, err := s.ensure(ctx, defaultSet(), "")
		if err != nil {
			return err
		}
		switch _, err := s.DefaultID(ctx); {
		case errors.Is(err, errNoDefault):
			if err := s.putDefault(ctx, id); err != nil {
				return err
			}
		case err != nil:
			return err
		}
		m.DefaultCreated = true
	}
	var err error
	if m.Events, err = s.ensureEvents(ctx, m.Events, eventsSet("Graylog Events", "Stores Graylog events.", "gl-events")); err != nil {
		return err
	}
	if m.SystemEvents, err = s.ensureEvents(ctx, m.SystemEvents, eventsSet("Graylog System Events", "Stores Graylog system events.", "gl-system-events")); err != nil {
		return err
	}
	if m == before {
		return nil
	}
	doc, _ := api.Marshal(m) // a struct of strings and a bool always marshals
	if err := s.st.Put(ctx, ConfigCollection, seedKey, doc); err != nil {
		return fmt.Errorf("storing the seed marker: %w", err)
	}
	return nil
}

// ensureEvents returns the id of an events index set: the recorded one while
// it exists, else one found or created by ensure.
func (s *Service) ensureEvents(ctx context.Context, recorded string, want IndexSet) (string, error) {
	if recorded != "" {
		_, err := s.Get(ctx, recorded)
		if err == nil {
			return recorded, nil
		}
		if !errors.Is(err, store.ErrNotFound) {
			return "", err
		}
	}
	return s.ensure(ctx, want, TemplateEvents)
}

// ensure returns the id of the index set with want's prefix, creating it if
// there is none. An existing one must have the template type template (when
// one is given): Graylog refuses to start when a non-events index set holds
// an events prefix.
func (s *Service) ensure(ctx context.Context, want IndexSet, template string) (string, error) {
	id, doc, err := s.st.FindUnique(ctx, Collection, "index_prefix", want.IndexPrefix)
	switch {
	case err == nil:
		is, err := decode(doc)
		if err != nil {
			return "", err
		}
		if template != "" && (is.IndexTemplateType == nil || *is.IndexTemplateType != template) {
			return "", fmt.Errorf("index prefix conflict: a non-%s index set with prefix %q already exists (%s)", template, want.IndexPrefix, id)
		}
		return id, nil
	case !errors.Is(err, store.ErrNotFound):
		return "", fmt.Errorf("finding index set %s: %w", want.IndexPrefix, err)
	}
	all, err := s.All(ctx)
	if err != nil {
		return "", err
	}
	if msg := prefixConflict(want.IndexPrefix, all); msg != "" {
		return "", fmt.Errorf("creating the %q index set: %s; delete the index set holding that prefix", want.Title, msg)
	}
	want.ID = primitive.NewObjectID().Hex()
	want.CreationDate = api.Time{Time: s.now().UTC()}
	if err := s.insert(ctx, want); err != nil {
		return "", err
	}
	return want.ID, nil
}

// Builtin returns the ids of the "Graylog Events" and "Graylog System
// Events" index sets, for the events streams.
func (s *Service) Builtin(ctx context.Context) (events, systemEvents string, err error) {
	doc, err := s.st.Get(ctx, ConfigCollection, seedKey)
	if err != nil {
		return "", "", fmt.Errorf("reading the seed marker: %w", err)
	}
	var m seedMarker
	if err := json.Unmarshal(doc, &m); err != nil {
		return "", "", fmt.Errorf("stored seed marker: %w", err)
	}
	return m.Events, m.SystemEvents, nil
}
