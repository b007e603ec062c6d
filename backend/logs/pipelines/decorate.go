package pipelines

import (
	"context"

	"github.com/loggate/loggate/backend/logs/messages"
	"github.com/loggate/loggate/backend/logs/pipelines/lang"
)

// Decorate runs the stages of one pipeline on msg, as Graylog's
// PipelineInterpreter.processForPipelines does for the pipeline processor
// decorator: whatever the message's streams, without the pipelines of the
// streams its rules route it to and without running the messages the rules
// create, which it returns. msg is the caller's copy: the rules change it
// in place. A pipeline that does not exist (or ""), runs nothing. The
// rules run with the interpreter's own bounds, as in processing.
func (in *Interpreter) Decorate(ctx context.Context, pipelineID string, msg *messages.Message) []messages.Message {
	_ = in.svc.Refresh(ctx)
	p, ok := in.svc.program().pipelines[pipelineID]
	if !ok {
		return nil
	}
	lm := &lang.Message{Message: msg}
	c := lang.NewContext(lm, in.now)
	in.runPipelines(c, []*compiledPipeline{p}, nil)
	var out []messages.Message
	for _, m := range c.Created {
		out = append(out, *m.Message)
	}
	c.Reset(nil)
	return out
}
