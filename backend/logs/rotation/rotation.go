// Package rotation owns the index sets' life cycle jobs: rotating each
// series' write index by its rotation strategy (message count, size or
// time) and retiring old indices by its retention strategy, as Graylog's
// IndexRotationThread and IndexRetentionThread do.
package rotation

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"slices"
	"time"

	"github.com/loggate/loggate/backend/logs/indexsets"
	"github.com/loggate/loggate/backend/logs/messages"
)

// Store is the part of messages.Store the jobs use.
type Store interface {
	Indices(ctx context.Context, prefix string) ([]messages.Index, error)
	Rotate(ctx context.Context, prefix string) (string, error)
	Delete(ctx context.Context, index string) error
	CloseIndex(ctx context.Context, index string) error
}

// IndexSets lists index sets; *indexsets.Service satisfies it.
type IndexSets interface {
	All(ctx context.Context) ([]indexsets.IndexSet, error)
}

// Action is one thing a run did.
type Action struct {
	IndexSet string // the index set's id
	Index    string
	// Kind is "rotated" (Index is the new write index), "deleted" or
	// "closed".
	Kind   string
	Reason string
}

// Run checks every index set once: it rotates the write indices that are
// due, then applies retention. One index set's failure does not stop the
// others; the errors are joined. A nil log discards.
func Run(ctx context.Context, sets IndexSets, st Store, now time.Time, log *slog.Logger) ([]Action, error) {
	if log == nil {
		log = slog.New(slog.DiscardHandler)
	}
	all, err := sets.All(ctx)
	if err != nil {
		return nil, fmt.Errorf("rotation: listing index sets: %w", err)
	}
	var actions []Action
	var errs []error
	for _, is := range all {
		acts, err := runOne(ctx, is, st, now)
		for _, a := range acts {
			log.Info("index "+a.Kind, "index_set", is.ID, "index", a.Index, "reason", a.Reason)
		}
		actions = append(actions, acts...)
		if err != nil {
			errs = append(errs, fmt.Errorf("index set %s (%s): %w", is.Title, is.IndexPrefix, err))
		}
	}
	return actions, errors.Join(errs...)
}

func runOne(ctx context.Context, is indexsets.IndexSet, st Store, now time.Time) ([]Action, error) {
	if !is.Writable {
		// As Graylog's rotation and retention threads do: an index set
		// that is not written to is neither rotated nor retired.
		return nil, nil
	}
	indices, err := st.Indices(ctx, is.IndexPrefix)
	if err != nil || len(indices) == 0 {
		// No index yet: the first write creates <prefix>_0.
		return nil, err
	}
	var actions []Action
	write := indices[len(indices)-1]
	if reason := due(is, write, now); reason != "" {
		name, err := st.Rotate(ctx, is.IndexPrefix)
		if err != nil {
			return nil, fmt.Errorf("rotating: %w", err)
		}
		actions = append(actions, Action{IndexSet: is.ID, Index: name, Kind: "rotated", Reason: reason})
		if indices, err = st.Indices(ctx, is.IndexPrefix); err != nil {
			return actions, err
		}
	}
	deleted, err := retire(ctx, is, indices, st)
	return append(actions, deleted...), err
}

// due returns why the write index must rotate, or "" if it need not. An
// empty write index never rotates: rotating it would only pile up empty
// indices.
func due(is indexsets.IndexSet, write messages.Index, now time.Time) string {
	if write.Count == 0 {
		return ""
	}
	c := is.RotationStrategy
	switch is.RotationStrategyClass {
	// As Graylog's strategies: more than the limit, not the limit itself.
	case indexsets.MessageCountRotation:
		if c.MaxDocsPerIndex > 0 && write.Count > int64(c.MaxDocsPerIndex) {
			return fmt.Sprintf("%d messages, max_docs_per_index is %d", write.Count, c.MaxDocsPerIndex)
		}
	case indexsets.SizeBasedRotation:
		if c.MaxSize > 0 && write.Size > c.MaxSize {
			return fmt.Sprintf("%d bytes, max_size is %d", write.Size, c.MaxSize)
		}
	case indexsets.TimeBasedRotation:
		if p := c.RotationPeriod; p != nil && p.Positive() {
			if next := p.AddTo(anchor(write.Created, *p)); !now.Before(next) {
				return fmt.Sprintf("created %s, rotation_period %s ended at %s", write.Created.UTC().Format(time.RFC3339),
					p, next.UTC().Format(time.RFC3339))
			}
		}
	}
	return ""
}

// anchor is the start of the period the write index was created in, as
// Graylog's TimeBasedRotationStrategy.determineRotationPeriodAnchor finds
// it: the creation time rounded down to the period's largest unit (P1D to
// midnight UTC, P1W to Monday, P1M to the 1st), then back to a multiple of
// the period's count of that unit (PT6H: 00, 06, 12 or 18 h). The index
// rotates when the period from there ends, so daily indices change at
// midnight whenever they were created.
func anchor(created time.Time, p indexsets.Period) time.Time {
	t := created.UTC()
	// Joda's normalizedStandard: the time fields and weeks into
	// milliseconds and back as weeks, days, hours, minutes and seconds;
	// months into years.
	ms := int64(p.Millis) + int64(p.Seconds)*1000 + int64(p.Minutes)*60_000 + int64(p.Hours)*3_600_000 +
		int64(p.Days)*86_400_000 + int64(p.Weeks)*604_800_000
	months := int64(p.Years)*12 + int64(p.Months)
	years, months := months/12, months%12
	weeks, days := ms/604_800_000, ms%604_800_000/86_400_000
	hours, minutes, seconds := ms%86_400_000/3_600_000, ms%3_600_000/60_000, ms%60_000/1000
	y, m, d := t.Date()
	// back rounds down to a multiple of n of a field counted from 0 or 1.
	back := func(v, n int64) int { return int(v % max(n, 1)) }
	switch {
	case years > 0:
		return time.Date(y-back(int64(y), years), 1, 1, 0, 0, 0, 0, time.UTC)
	case months > 0:
		return time.Date(y, m-time.Month(back(int64(m), months)), 1, 0, 0, 0, 0, time.UTC)
	case weeks > 0:
		monday := time.Date(y, m, d-(int(t.Weekday())+6)%7, 0, 0, 0, 0, time.UTC)
		_, week := monday.ISOWeek()
		return monday.AddDate(0, 0, -7*back(int64(week), weeks))
	case days > 0:
		return time.Date(y, m, d-back(int64(d), days), 0, 0, 0, 0, time.UTC)
	case hours > 0:
		return time.Date(y, m, d, t.Hour()-back(int64(t.Hour()), hours), 0, 0, 0, time.UTC)
	case minutes > 0:
		return time.Date(y, m, d, t.Hour(), t.Minute()-back(int64(t.Minute()), minutes), 0, 0, time.UTC)
	case seconds > 0:
		return time.Date(y, m, d, t.Hour(), t.Minute(), t.Second()-back(int64(t.Second()), seconds), 0, time.UTC)
	}
	return t // milliseconds only: Graylog refuses such a period
}

// retire applies the retention strategy to indices (oldest first, the
// write index last). As in Graylog, it counts only the open indices that
// were not reopened: a closed index has been retired already, and one a
// person reopened is theirs to keep. Deletion deletes the oldest beyond
// max_number_of_indices, closing closes them, noop keeps them.
func retire(ctx context.Context, is indexsets.IndexSet, indices []messages.Index, st Store) ([]Action, error) {
	keep := is.RetentionStrategy.MaxNumberOfIndices
	kind, verb, op := "deleted", "deleting", st.Delete
	switch is.RetentionStrategyClass {
	case indexsets.DeletionRetention:
	case indexsets.ClosingRetention:
		kind, verb, op = "closed", "closing", st.CloseIndex
	default:
		return nil, nil
	}
	live := slices.DeleteFunc(slices.Clone(indices), func(ix messages.Index) bool { return ix.Closed || ix.Reopened })
	if keep <= 0 || len(live) <= keep {
		return nil, nil
	}
	var actions []Action
	for _, ix := range live[:len(live)-keep] {
		if ix.Write {
			continue
		}
		if err := op(ctx, ix.Name); err != nil && !errors.Is(err, messages.ErrNotFound) {
			return actions, fmt.Errorf("%s %s: %w", verb, ix.Name, err)
		}
		actions = append(actions, Action{IndexSet: is.ID, Index: ix.Name, Kind: kind,
			Reason: fmt.Sprintf("%d indices, max_number_of_indices is %d", len(live), keep)})
	}
	return actions, nil
}
