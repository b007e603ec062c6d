package pipelines

import (
	"context"
	"fmt"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/loggate/loggate/backend/logs/messages"
	"github.com/loggate/loggate/backend/logs/pipelines/lang"
	"github.com/loggate/loggate/backend/logs/streams"
	"github.com/loggate/loggate/backend/system/metrics"
)

// Interpreter runs the pipelines connected to a message's streams, as
// Graylog's PipelineInterpreter does: stage by stage across every selected
// pipeline, then again for pipelines of streams the rules routed the
// message to, then for the messages the rules created. A rule that fails
// records gl2_processing_error on the message and processing goes on.
type Interpreter struct {
	svc *Service
	now func() time.Time
	// errors counts run-time errors of rules; dropped the messages
	// drop_message filtered out.
	errors, dropped *metrics.Meter
	// frames are reused between messages, with their buffers.
	frames sync.Pool
	// added is the number of fields the last message got, for
	// AddedFields.
	added atomic.Int32
}

// frame is what Process needs per message: with it reused, a message
// costs no allocations of the interpreter's own.
type frame struct {
	msg   messages.Message
	lm    lang.Message
	round [1]*lang.Message
	out   []*lang.Message
	// c is the context of the rules, for one message after the other.
	c *lang.Context
	// added is the number of fields the last message got.
	added int
}

// minRoom is the room for new fields a message gets at least.
const minRoom = 4

// NewInterpreter returns the interpreter of the service's current program.
func NewInterpreter(svc *Service, reg *metrics.Registry, now func() time.Time) *Interpreter {
	if reg == nil {
		reg = metrics.New(now)
	}
	in := &Interpreter{svc: svc, now: now,
		errors:  reg.Meter("org.graylog.plugins.pipelineprocessor.processors.PipelineInterpreter.errors"),
		dropped: reg.Meter("org.graylog.plugins.pipelineprocessor.processors.PipelineInterpreter.filteredOutMessages"),
	}
	in.frames.New = func() any { return &frame{c: lang.NewContext(nil, now)} }
	return in
}

// Process runs msg through its streams' pipelines and appends to dst the
// messages to go on with: msg itself unless a rule dropped it, then the
// messages rules created. A message with no streams is put on the default
// stream first, as Graylog puts every message there before processors run.
func (in *Interpreter) Process(ctx context.Context, msg messages.Message, dst []messages.Message) []messages.Message {
	// A failing refresh is retried at the next message; processing goes
	// on with the program this node has.
	_ = in.svc.Refresh(ctx)
	prog := in.svc.program()
	if len(prog.byStream) == 0 {
		return append(dst, msg)
	}
	if len(msg.Streams) == 0 {
		msg.Streams = append(make([]string, 0, 4), streams.DefaultStreamID)
	}
	f := in.frames.Get().(*frame)
	// Rules mostly add fields, and about as many to every message: room
	// for as many as the last message got saves growing the slice field by
	// field, without a size class more than needed.
	n := len(msg.Fields)
	msg.Fields = slices.Grow(msg.Fields, max(f.added, minRoom))
	f.msg = msg
	f.lm = lang.Message{Message: &f.msg}
	f.round[0] = &f.lm
	f.out = in.run(prog, f.c, f.round[:], f.out[:0], nil)
	f.added = len(f.msg.Fields) - n
	if int32(f.added) != in.added.Load() {
		in.added.Store(int32(f.added))
	}
	for _, m := range f.out {
		dst = append(dst, *m.Message)
	}
	// What the frame refers to now belongs to dst.
	clear(f.out)
	f.msg, f.lm, f.round[0] = messages.Message{}, lang.Message{}, nil
	in.frames.Put(f)
	return dst
}

// AddedFields is the number of fields the last message processed got:
// rules mostly add about as many to every message, so processing reads
// messages with that much room.
func (in *Interpreter) AddedFields() int { return int(in.added.Load()) }

// tracer receives the simulator's trace; nil outside simulations.
type tracer func(format string, args ...any)

// run processes messages round after round, in context c, and appends to
// out those that were not dropped, in order.
func (in *Interpreter) run(prog *program, c *lang.Context, round []*lang.Message, out []*lang.Message, trace tracer) []*lang.Message {
	// The message and match results of the last message are let go.
	defer c.Reset(nil)
	for len(round) > 0 {
		var created []*lang.Message
		for _, m := range round {
			created = append(created, in.processOne(prog, c, m, trace)...)
			if m.Dropped {
				in.dropped.Mark(1)
				continue
			}
			out = append(out, m)
		}
		round = created
	}
	return out
}

// processOne runs the pipelines of m's streams in context c, and again
// for streams the rules add, each stream once. It returns the messages
// rules created.
func (in *Interpreter) processOne(prog *program, c *lang.Context, m *lang.Message, trace tracer) []*lang.Message {
	c.Reset(m)
	var doneBuf, pendingBuf [8]string
	done := doneBuf[:0]
	for !m.Dropped {
		pending := pendingBuf[:0]
		for _, s := range m.Streams {
			if !slices.Contains(done, s) {
				pending = append(pending, s)
			}
		}
		if len(pending) == 0 {
			break
		}
		var selected []*compiledPipeline
		for _, s := range pending {
			done = append(done, s)
			for _, p := range prog.byStream[s] {
				if !slices.Contains(selected, p) {
					selected = append(selected, p)
				}
			}
		}
		if len(selected) == 0 {
			continue
		}
		if trace != nil {
			names := make([]string, len(selected))
			for i, p := range selected {
				names[i] = p.title + " (" + p.id + ")"
			}
			trace("Message %s running [%s] for streams [%s]", m.ID, strings.Join(names, ", "), strings.Join(pending, ", "))
		}
		in.runPipelines(c, selected, trace)
	}
	return c.Created
}

// runPipelines runs stage slices: every pipeline's stage n before any
// stage n+1; a pipeline whose stage does not pass stops.
func (in *Interpreter) runPipelines(c *lang.Context, selected []*compiledPipeline, trace tracer) {
	next := make([]int, len(selected)) // index of each pipeline's next stage
	stopped := make([]bool, len(selected))
	for _, p := range selected {
		mark(p.executed)
	}
	for !c.Message.Dropped {
		// The lowest stage number any running pipeline has next.
		lowest, any := 0, false
		for i, p := range selected {
			if stopped[i] || next[i] >= len(p.stages) {
				continue
			}
			if n := p.stages[next[i]].number; !any || n < lowest {
				lowest, any = n, true
			}
		}
		if !any {
			return
		}
		for i, p := range selected {
			if stopped[i] || next[i] >= len(p.stages) || p.stages[next[i]].number != lowest {
				continue
			}
			st := p.stages[next[i]]
			next[i]++
			if !in.runStage(c, p, st, trace) {
				stopped[i] = true
			}
		}
	}
}

// runStage evaluates every condition of a stage, then runs the actions of
// the rules that matched, and reports whether the pipeline goes on.
func (in *Interpreter) runStage(c *lang.Context, p *compiledPipeline, st compiledStage, trace tracer) bool {
	if trace != nil {
		trace("Enter Stage %d", st.number)
	}
	var matched []*compiledRule
	for _, r := range st.rules {
		if trace != nil {
			trace("Evaluate Rule '%s' (%s) in Pipeline '%s' (%s)", r.title, r.id, p.title, p.id)
		}
		ok := false
		if r.rule != nil {
			var err error
			ok, err = r.rule.Matches(c)
			if err != nil {
				in.fail(c.Message, r, err)
				if trace != nil {
					trace("Failed evaluation Rule '%s' (%s) in Pipeline '%s' (%s)", r.title, r.id, p.title, p.id)
				}
				ok = false
			}
		}
		if ok {
			mark(r.matched)
			matched = append(matched, r)
		} else {
			mark(r.notMatched)
		}
		if trace != nil {
			if ok {
				trace("Evaluation satisfied Rule '%s' (%s) in Pipeline '%s' (%s)", r.title, r.id, p.title, p.id)
			} else {
				trace("Evaluation not satisfied Rule '%s' (%s) in Pipeline '%s' (%s)", r.title, r.id, p.title, p.id)
			}
		}
	}
	for _, r := range matched {
		if trace != nil {
			trace("Execute Rule '%s' (%s) in Pipeline '%s' (%s)", r.title, r.id, p.title, p.id)
		}
		mark(r.executed)
		if err := r.rule.Execute(c); err != nil {
			in.fail(c.Message, r, err)
			if trace != nil {
				trace("Failed execution Rule '%s' (%s) in Pipeline '%s' (%s)", r.title, r.id, p.title, p.id)
			}
			// An action error ends the actions of the whole stage.
			break
		}
		if trace != nil {
			trace("Finished execution Rule '%s' (%s) in Pipeline '%s' (%s)", r.title, r.id, p.title, p.id)
		}
	}
	pass := len(st.rules) == 0 || (st.matchAll && len(matched) == len(st.rules)) || (!st.matchAll && len(matched) > 0)
	if trace != nil {
		trace("Exit Stage %d", st.number)
		if pass {
			trace("Completed Stage %d for Pipeline '%s' (%s), continuing to next stage", st.number, p.title, p.id)
		} else {
			trace("Completed Stage %d for Pipeline '%s' (%s), NOT continuing to next stage", st.number, p.title, p.id)
		}
	}
	return pass
}

// fail records a rule's run-time error on the message, in Graylog's words.
func (in *Interpreter) fail(m *lang.Message, r *compiledRule, err error) {
	in.errors.Mark(1)
	mark(r.failed)
	m.Fail(fmt.Sprintf("For rule '%s': %s", r.title, err.Error()))
}
