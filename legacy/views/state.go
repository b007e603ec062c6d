package views

import (
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"maps"
	"slices"

	"github.com/tidwall/gjson"

	"github.com/loggate/loggate/router/api"
)

// legacyKey is the property of a view state entry that keeps the legacy
// originals of its widgets: 4.0 has no place for a widget's cache time,
// creator and exact configuration. Graylog 4.0 ignores state properties it
// does not know, and loggate's views API keeps them.
const legacyKey = "legacy_widgets"

// original is a legacy widget as its client wrote it, with a digest of the
// 4.0 widget it was converted to: when a 4.0 client has since changed that
// widget, the original no longer describes it.
type original struct {
	Widget Widget `json:"widget"`
	As     string `json:"converted_sha256"`
}

// queryState is one entry of a view's state (a ViewStateDTO) opened for
// editing; properties it does not touch are kept as they were.
type queryState struct {
	raw       map[string]json.RawMessage
	widgets   []json.RawMessage
	titles    map[string]map[string]json.RawMessage
	positions map[string]json.RawMessage
	legacy    map[string]original
}

// newQueryState is the state of a dashboard's one query, as Graylog's
// migration creates it.
func newQueryState() *queryState {
	return &queryState{
		raw: map[string]json.RawMessage{
			"selected_fields":        json.RawMessage("null"),
			"static_message_list_id": json.RawMessage("null"),
			"widget_mapping":         json.RawMessage("{}"),
			"formatting":             json.RawMessage(`{"highlighting":[]}`),
			"display_mode_settings":  json.RawMessage(`{"positions":{}}`),
		},
		widgets:   []json.RawMessage{},
		titles:    map[string]map[string]json.RawMessage{},
		positions: map[string]json.RawMessage{},
		legacy:    map[string]original{},
	}
}

// decodeState opens a state entry. Null properties count as empty.
func decodeState(raw json.RawMessage) (*queryState, error) {
	q := newQueryState()
	q.raw = map[string]json.RawMessage{}
	if err := json.Unmarshal(raw, &q.raw); err != nil {
		return nil, fmt.Errorf("decode view state: %w", err)
	}
	for key, dst := range map[string]any{"widgets": &q.widgets, "titles": &q.titles, "positions": &q.positions, legacyKey: &q.legacy} {
		if v, ok := q.raw[key]; ok {
			if err := json.Unmarshal(v, dst); err != nil {
				return nil, fmt.Errorf("decode view state %s: %w", key, err)
			}
		}
	}
	// Unmarshalling null leaves nil maps behind.
	if q.widgets == nil {
		q.widgets = []json.RawMessage{}
	}
	if q.titles == nil {
		q.titles = map[string]map[string]json.RawMessage{}
	}
	if q.positions == nil {
		q.positions = map[string]json.RawMessage{}
	}
	if q.legacy == nil {
		q.legacy = map[string]original{}
	}
	return q, nil
}

// encode returns the state entry with the edits made.
func (q *queryState) encode() (json.RawMessage, error) {
	out := maps.Clone(q.raw)
	for key, v := range map[string]any{"widgets": q.widgets, "titles": q.titles, "positions": q.positions, legacyKey: q.legacy} {
		b, err := api.Marshal(v)
		if err != nil {
			return nil, fmt.Errorf("encode view state %s: %w", key, err)
		}
		out[key] = b
	}
	if len(q.legacy) == 0 {
		delete(out, legacyKey) // views without legacy widgets stay 4.0's own
	}
	b, err := api.Marshal(out)
	if err != nil {
		return nil, fmt.Errorf("encode view state: %w", err)
	}
	return b, nil
}

// index returns the position of a widget in the 4.0 widget list, or -1.
func (q *queryState) index(id string) int {
	return slices.IndexFunc(q.widgets, func(w json.RawMessage) bool { return gjson.GetBytes(w, "id").Str == id })
}

// widget returns the legacy form of the 4.0 widget at i: its original when
// the widget is still what it was converted to, else a conversion back.
// The title 4.0 shows is the description either way.
func (q *queryState) widget(i int, owner string) Widget {
	raw := q.widgets[i]
	id := gjson.GetBytes(raw, "id").Str
	var w Widget
	if o, ok := q.legacy[id]; ok && unchanged(o.As, raw) {
		w = o.Widget
	} else {
		w = fromView(gjson.ParseBytes(raw), owner)
		if ok {
			w.CacheTime, w.CreatorUserID = o.Widget.CacheTime, o.Widget.CreatorUserID
		}
	}
	if t, ok := q.titles["widget"][id]; ok {
		var title string
		if json.Unmarshal(t, &title) == nil {
			w.Description = title
		}
	}
	return w
}

// put stores a legacy widget: converted into the 4.0 list (replacing the
// widget with its id, else appended), its original kept beside it and its
// description as the widget's title.
func (q *queryState) put(w Widget, tr json.RawMessage) error {
	converted, err := canonical(toView(w, tr))
	if err != nil {
		return fmt.Errorf("encode widget: %w", err)
	}
	if i := q.index(w.ID); i >= 0 {
		q.widgets[i] = converted
	} else {
		q.widgets = append(q.widgets, converted)
	}
	q.legacy[w.ID] = original{Widget: w, As: digest(converted)}
	title, _ := api.Marshal(w.Description)
	if q.titles["widget"] == nil {
		q.titles["widget"] = map[string]json.RawMessage{}
	}
	q.titles["widget"][w.ID] = title
	return nil
}

// remove deletes a widget with its original, title and position.
func (q *queryState) remove(id string) {
	if i := q.index(id); i >= 0 {
		q.widgets = slices.Delete(q.widgets, i, i+1)
	}
	delete(q.legacy, id)
	delete(q.titles["widget"], id)
	delete(q.positions, id)
}

// canonical encodes v with every object's keys sorted, so that the digest
// of the bytes stored is the digest of their value (see unchanged).
func canonical(v any) (json.RawMessage, error) {
	b, err := api.Marshal(v)
	if err != nil {
		return nil, err
	}
	var generic any
	if err := json.Unmarshal(b, &generic); err != nil {
		return nil, err
	}
	return api.Marshal(generic) // map keys sorted
}

// digest is the SHA-256 of a document's bytes.
func digest(doc []byte) string {
	sum := sha256.Sum256(doc)
	return hex.EncodeToString(sum[:])
}

// unchanged reports whether a 4.0 widget is still the one whose canonical
// encoding has digest want. The bytes stored are canonical, so the digest
// of the raw bytes decides, without parsing, unless a 4.0 client has
// written the widget back with its keys reordered or spaced: that is no
// change either.
func unchanged(want string, raw json.RawMessage) bool {
	if digest(raw) == want {
		return true
	}
	var v any
	if err := json.Unmarshal(raw, &v); err != nil {
		return false
	}
	b, err := api.Marshal(v)
	return err == nil && digest(b) == want
}
