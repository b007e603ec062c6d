package inputs

import (
	"sync"
	"time"

	"github.com/loggate/loggate/router/api"
)

// Input states, Graylog's IOState.Type. An input that exists but was not
// launched is StateCreated.
const (
	StateCreated              = "CREATED"
	StateInitialized          = "INITIALIZED"
	StateInvalidConfiguration = "INVALID_CONFIGURATION"
	StateStarting             = "STARTING"
	StateRunning              = "RUNNING"
	StateFailed               = "FAILED"
	StateStopping             = "STOPPING"
	StateStopped              = "STOPPED"
	StateTerminated           = "TERMINATED"
)

// StateSummary is Graylog's InputStateSummary.
type StateSummary struct {
	ID              string   `json:"id"`
	State           string   `json:"state"`
	StartedAt       api.Time `json:"started_at"`
	DetailedMessage *string  `json:"detailed_message"`
	MessageInput    Summary  `json:"message_input"`
}

type state struct {
	state     string
	detail    string
	startedAt time.Time
}

// States is this node's registry of input states, which a runner updates
// as it launches and stops inputs. It is safe for concurrent use.
type States struct {
	now   func() time.Time
	since time.Time

	mu     sync.RWMutex
	states map[string]state
}

// NewStates returns an empty registry. Until the runner sets an input's
// state, the input is reported as StateCreated since it was created or since
// the registry was, whichever is later: as in Graylog, where an input's
// state starts when the node registers it.
func NewStates(now func() time.Time) *States {
	return &States{now: now, since: now().UTC(), states: map[string]state{}}
}

// Set records an input's state and a detail such as the error that failed
// it ("" for none). The start time is that of the input's first state, as
// Graylog keeps it across changes.
func (s *States) Set(inputID, st, detail string) {
	s.mu.Lock()
	defer s.mu.Unlock()
	cur, ok := s.states[inputID]
	if !ok {
		cur.startedAt = s.now().UTC()
	}
	cur.state, cur.detail = st, detail
	s.states[inputID] = cur
}

// Forget drops a deleted input's state.
func (s *States) Forget(inputID string) {
	s.mu.Lock()
	defer s.mu.Unlock()
	delete(s.states, inputID)
}

// Summary returns an input's state as clients see it.
func (s *States) Summary(in Input) StateSummary {
	s.mu.RLock()
	cur, ok := s.states[in.ID]
	s.mu.RUnlock()
	if !ok {
		cur = state{state: StateCreated, startedAt: s.since}
		if in.CreatedAt.After(s.since) {
			cur.startedAt = in.CreatedAt
		}
	}
	out := StateSummary{ID: in.ID, State: cur.state, StartedAt: api.Time{Time: cur.startedAt}, MessageInput: in.Summary()}
	if cur.detail != "" {
		d := cur.detail
		out.DetailedMessage = &d
	}
	return out
}
