package legacy

import (
	"cmp"
	"context"
	"encoding/json"
	"errors"
	"slices"
	"time"

	"github.com/loggate/loggate/backend/store"
	"github.com/loggate/loggate/router/api"
)

// AlertsCollection holds the legacy alerts, as Graylog 3.3 names it.
const AlertsCollection = "alerts"

// Alert is a legacy alert: a condition of a stream that held, from when
// it was first found to hold until it was found not to (resolved). It is
// Graylog 3.3's AlertSummary.
type Alert struct {
	ID                  string         `json:"id"`
	ConditionID         string         `json:"condition_id"`
	StreamID            string         `json:"stream_id"`
	Description         string         `json:"description"`
	ConditionParameters map[string]any `json:"condition_parameters"`
	TriggeredAt         api.Time       `json:"triggered_at"`
	ResolvedAt          *api.Time      `json:"resolved_at"`
	IsInterval          bool           `json:"is_interval"`
}

// AlertFilter selects alerts for the listings.
type AlertFilter struct {
	// Streams keeps the alerts of these streams.
	Streams []string
	// Since keeps the alerts triggered at or after it (zero: all).
	Since time.Time
	// State is "resolved", "unresolved", or anything else for both.
	State string
}

// Alerts returns the alerts f selects, newest first.
func (s *Service) Alerts(ctx context.Context, f AlertFilter) ([]Alert, error) {
	all, err := store.All(ctx, s.st, AlertsCollection, func(doc []byte) (Alert, error) {
		var a Alert
		err := json.Unmarshal(doc, &a)
		return a, err
	})
	if err != nil {
		return nil, err
	}
	out := slices.DeleteFunc(all, func(a Alert) bool {
		switch {
		case !slices.Contains(f.Streams, a.StreamID), a.TriggeredAt.Before(f.Since):
			return true
		case f.State == "resolved":
			return a.ResolvedAt == nil
		case f.State == "unresolved":
			return a.ResolvedAt != nil
		}
		return false
	})
	slices.SortFunc(out, func(a, b Alert) int {
		return cmp.Or(b.TriggeredAt.Compare(a.TriggeredAt.Time), cmp.Compare(b.ID, a.ID))
	})
	return out, nil
}

// Alert returns one alert.
func (s *Service) Alert(ctx context.Context, id string) (Alert, error) {
	doc, err := s.st.Get(ctx, AlertsCollection, id)
	if errors.Is(err, store.ErrNotFound) {
		return Alert{}, api.Errorf(api.NotFound, "Couldn't find alert %s", id)
	}
	if err != nil {
		return Alert{}, err
	}
	var a Alert
	return a, json.Unmarshal(doc, &a)
}

// lastAlert returns the newest alert of a condition, if any.
func (s *Service) lastAlert(ctx context.Context, streamID, conditionID string) (*Alert, error) {
	all, err := s.Alerts(ctx, AlertFilter{Streams: []string{streamID}})
	if err != nil {
		return nil, err
	}
	for _, a := range all {
		if a.ConditionID == conditionID {
			return &a, nil
		}
	}
	return nil, nil
}

func (s *Service) putAlert(ctx context.Context, a Alert) error {
	doc, err := json.Marshal(a)
	if err != nil {
		return err
	}
	return s.st.Put(ctx, AlertsCollection, a.ID, doc)
}
