package legacy

import (
	"cmp"
	"context"
	"encoding/json"
	"slices"

	"go.mongodb.org/mongo-driver/bson/primitive"

	"github.com/loggate/loggate/backend/store"
	"github.com/loggate/loggate/router/api"
)

// HistoryCollection holds what the legacy checker delivered, as Graylog
// 3.3 names it.
const HistoryCollection = "alarmcallbackhistory"

// History is one delivery of an alert to an alarm callback: Graylog's
// AlarmCallbackHistorySummary.
type History struct {
	ID          string         `json:"id"`
	Callback    Callback       `json:"alarmcallbackconfiguration"`
	AlertID     string         `json:"alert_id"`
	ConditionID string         `json:"alertcondition_id"`
	Result      CallbackResult `json:"result"`
	CreatedAt   api.Time       `json:"created_at"`
}

// CallbackResult is how a delivery went: type "success", or "error" with
// the failure's text.
type CallbackResult struct {
	Type  string `json:"type"`
	Error string `json:"error,omitempty"`
}

// recordHistory records a delivery of alert a to cb; failure is its error,
// nil when it went out.
func (s *Service) recordHistory(ctx context.Context, cb Callback, a Alert, failure error) error {
	h := History{ID: primitive.NewObjectID().Hex(), Callback: cb, AlertID: a.ID, ConditionID: a.ConditionID,
		Result: CallbackResult{Type: "success"}, CreatedAt: api.Time{Time: s.now().UTC()}}
	if failure != nil {
		h.Result = CallbackResult{Type: "error", Error: failure.Error()}
	}
	doc, err := json.Marshal(h)
	if err != nil {
		return err
	}
	return s.st.Insert(ctx, HistoryCollection, h.ID, doc)
}

// Histories returns the deliveries of an alert, oldest first; none for an
// unknown alert, as Graylog answers.
func (s *Service) Histories(ctx context.Context, alertID string) ([]History, error) {
	all, err := store.All(ctx, s.st, HistoryCollection, func(doc []byte) (History, error) {
		var h History
		err := json.Unmarshal(doc, &h)
		return h, err
	})
	if err != nil {
		return nil, err
	}
	out := slices.DeleteFunc(all, func(h History) bool { return h.AlertID != alertID })
	slices.SortFunc(out, func(a, b History) int { return cmp.Or(a.CreatedAt.Compare(b.CreatedAt.Time), cmp.Compare(a.ID, b.ID)) })
	if out == nil {
		out = []History{}
	}
	return out, nil
}
