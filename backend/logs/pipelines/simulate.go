package pipelines

import (
	"bytes"
	"encoding/json"
	"fmt"
	"net/http"
	"time"

	"github.com/loggate/loggate/backend/logs/messages"
	"github.com/loggate/loggate/backend/logs/pipelines/lang"
	"github.com/loggate/loggate/router/api"
)

// simulateRequest is Graylog's SimulationRequest.
type simulateRequest struct {
	StreamID *string                    `json:"stream_id"`
	Message  map[string]json.RawMessage `json:"message"`
	InputID  *string                    `json:"input_id"`
}

type simulatedMessage struct {
	HighlightRanges any            `json:"highlight_ranges"`
	Message         map[string]any `json:"message"`
	Index           string         `json:"index"`
	DecorationStats any            `json:"decoration_stats"`
}

type traceEntry struct {
	Time    int64  `json:"time"`
	Message string `json:"message"`
}

type simulateResponse struct {
	Messages         []simulatedMessage `json:"messages"`
	SimulationTrace  []traceEntry       `json:"simulation_trace"`
	TookMicroseconds int64              `json:"took_microseconds"`
}

func (h *Handler) simulate(w http.ResponseWriter, r *http.Request) error {
	var req simulateRequest
	if err := api.Decode(r, &req, true); err != nil {
		return err
	}
	if req.StreamID == nil {
		return api.Errorf(api.Invalid, "Null streamId")
	}
	if req.Message == nil {
		return api.Errorf(api.Invalid, "Null message")
	}
	if err := h.checkStream(r.Context(), *req.StreamID); err != nil {
		return err
	}
	msg, err := simulatedInput(req.Message, h.in.now())
	if err != nil {
		return err
	}
	// The message is on the one stream asked for, not on the default one.
	msg.Streams = []string{*req.StreamID}
	if req.InputID != nil {
		msg.Set(messages.FieldSourceInput, *req.InputID)
	}
	resp := h.in.simulate(msg)
	api.WriteJSON(w, http.StatusOK, resp)
	return nil
}

// simulate runs a message through the pipelines of its streams with the
// current program, recording Graylog's simulation trace.
func (in *Interpreter) simulate(msg *messages.Message) simulateResponse {
	start := time.Now()
	resp := simulateResponse{Messages: []simulatedMessage{}, SimulationTrace: []traceEntry{}}
	trace := func(format string, args ...any) {
		resp.SimulationTrace = append(resp.SimulationTrace, traceEntry{Time: time.Since(start).Microseconds(), Message: fmt.Sprintf(format, args...)})
	}
	out := in.run(in.svc.program(), lang.NewContext(nil, in.now), []*lang.Message{{Message: msg}}, nil, trace)
	for _, m := range out {
		resp.Messages = append(resp.Messages, simulatedMessage{Message: m.Map()})
	}
	resp.TookMicroseconds = time.Since(start).Microseconds()
	return resp
}

// simulatedInput builds the message to simulate from its JSON fields.
// Graylog requires an _id.
func simulatedInput(fields map[string]json.RawMessage, now time.Time) (*messages.Message, error) {
	raw, ok := fields[messages.FieldID]
	var id string
	if !ok || json.Unmarshal(raw, &id) != nil || id == "" {
		return nil, &api.Error{Code: api.Internal, Message: "message id cannot be null"}
	}
	m := &messages.Message{ID: id, Timestamp: now.UTC().Truncate(time.Millisecond)}
	lm := &lang.Message{Message: m}
	for _, k := range lang.SortedKeys(fields) {
		if k == messages.FieldID || k == messages.FieldStreams {
			continue
		}
		dec := json.NewDecoder(bytes.NewReader(fields[k]))
		dec.UseNumber()
		var v any
		if err := dec.Decode(&v); err != nil {
			return nil, api.Errorf(api.Invalid, "Invalid value of field %s", k)
		}
		v = lang.FromJSON(v)
		if k == messages.FieldTimestamp {
			if s, ok := v.(string); ok {
				for _, layout := range []string{time.RFC3339Nano, "2006-01-02 15:04:05.000", "2006-01-02 15:04:05"} {
					if t, err := time.Parse(layout, s); err == nil {
						m.Timestamp = t.UTC().Truncate(time.Millisecond)
						break
					}
				}
			}
			continue
		}
		lm.SetField(k, v)
	}
	return m, nil
}
