package grok

import (
	"context"
	"errors"
	"fmt"
	"maps"
	"slices"
	"sync"

	"github.com/elastic/go-grok/patterns"
	"go.mongodb.org/mongo-driver/bson/primitive"

	"github.com/loggate/loggate/backend/store"
	"github.com/loggate/loggate/router/api"
)

// Where the record of the default patterns' installation lives: the
// cluster configuration collection, under the name of the Graylog migration
// that installs them (V20180924111644_AddDefaultGrokPatterns), whose
// completion Graylog records the same way.
const (
	configCollection = "cluster_config"
	seededKey        = "org.graylog2.migrations.V20180924111644_AddDefaultGrokPatterns.MigrationCompleted"
	// defaultPackID is the id of Graylog's "Default Grok Patterns" content
	// pack, which the migration records.
	defaultPackID = "a3ce55ad-bdf3-7a50-305c-1e5bf3de6eca"
)

// seededRecord is the stored record of the installation.
type seededRecord struct {
	ContentPackID string   `json:"content_pack_id"`
	Installed     []string `json:"installed"`
	LastUpdated   api.Time `json:"last_updated"`
}

// DefaultPatterns returns the patterns installed on first start: go-grok's
// base set (the logstash grok-patterns file, adapted to RE2) and its Apache
// httpd set, the two that together match Graylog's default pattern set
// (COMMONAPACHELOG, SYSLOGBASE, IPORHOST, …). Patterns that do not compile,
// alone or through a pattern they use, are left out. Sorted by name.
func DefaultPatterns() []Pattern { return slices.Clone(defaultPatterns()) }

var defaultPatterns = sync.OnceValue(buildDefaults)

func buildDefaults() []Pattern {
	defs := map[string]string{}
	maps.Copy(defs, patterns.Default)
	maps.Copy(defs, patterns.Httpd)
	defs = compilable(defs)
	out := make([]Pattern, 0, len(defs))
	for _, name := range slices.Sorted(maps.Keys(defs)) {
		out = append(out, Pattern{Name: name, Pattern: defs[name]})
	}
	return out
}

// compilable returns the definitions that compile among themselves.
// Dropping one can break those that use it: it repeats until none drops.
func compilable(defs map[string]string) map[string]string {
	defs = maps.Clone(defs)
	for {
		lib := libraryOf(defs)
		dropped := false
		for name := range defs {
			if _, err := compile(lib, "%{"+name+"}", false); err != nil {
				delete(defs, name)
				dropped = true
			}
		}
		if !dropped {
			return defs
		}
	}
}

func libraryOf(defs map[string]string) library {
	lib := make(library, len(defs))
	for name, p := range defs {
		lib[name] = newDefinition(p)
	}
	return lib
}

// seed installs the default patterns unless that happened before, even if
// the user deleted them since. A pattern whose name is taken is left as
// the user has it, as Graylog's content pack installation does. The record
// is written last, so that an interrupted installation resumes at the next
// start.
func (s *Service) seed(ctx context.Context) error {
	_, err := s.st.Get(ctx, configCollection, seededKey)
	if err == nil {
		return nil
	}
	if !errors.Is(err, store.ErrNotFound) {
		return fmt.Errorf("grok: reading the default patterns record: %w", err)
	}
	var installed []string
	for _, p := range defaultPatterns() {
		// Several nodes may start at once: the unique name index lets one
		// insert win.
		p.ID = primitive.NewObjectID().Hex()
		err := s.insert(ctx, p)
		switch {
		case errors.Is(err, store.ErrConflict):
			continue
		case err != nil:
			return fmt.Errorf("grok: installing default pattern %s: %w", p.Name, err)
		}
		installed = append(installed, p.Name)
	}
	doc, err := api.Marshal(seededRecord{
		ContentPackID: defaultPackID, Installed: installed,
		LastUpdated: api.Time{Time: s.now()},
	})
	if err != nil {
		return fmt.Errorf("grok: %w", err)
	}
	if err := s.st.Insert(ctx, configCollection, seededKey, doc); err != nil && !errors.Is(err, store.ErrConflict) {
		return fmt.Errorf("grok: recording the default patterns: %w", err)
	}
	return nil
}
