package contentpacks

import (
	"context"
	"encoding/json"
	"fmt"
	"slices"

	"github.com/loggate/loggate/backend/logs/outputs"
)

// OutputV1 is the output entity type.
var OutputV1 = ModelType{Name: "output", Version: "1"}

// Outputs is what content packs need of the outputs.
type Outputs interface {
	List(ctx context.Context) ([]outputs.Summary, error)
	Get(ctx context.Context, id string) (outputs.Summary, error)
	Create(ctx context.Context, req outputs.CreateRequest, creator string) (outputs.Summary, error)
	Delete(ctx context.Context, id string) error
}

// graylogOnly are the configuration fields of Graylog 4.0's output types
// that loggate's leave out, by type: every export of such an output
// carries them (GelfOutput's queue_size and max_inflight_sends tune its
// Java client's buffers), and installing it drops them.
var graylogOnly = map[string][]string{
	outputs.GELFType: {"queue_size", "max_inflight_sends"},
}

// outputFacade is Graylog's OutputFacade.
type outputFacade struct{ o Outputs }

// outputData is Graylog's OutputEntity.
type outputData struct {
	Title         *ValueRef       `json:"title"`
	Type          *ValueRef       `json:"type"`
	Configuration json.RawMessage `json:"configuration"`
}

// existing finds nothing: Graylog always creates an output.
func (f outputFacade) existing(context.Context, json.RawMessage, install) (*native, error) {
	return nil, nil
}

// create stores the output attached to no stream: the streams of the pack
// attach it (Graylog's StreamFacade).
func (f outputFacade) create(ctx context.Context, data json.RawMessage, p install, user string) (native, error) {
	var d outputData
	if err := decodeData(data, &d); err != nil {
		return native{}, err
	}
	var req outputs.CreateRequest
	var err error
	if req.Title, err = p.str(d.Title, "title", ""); err != nil {
		return native{}, err
	}
	if req.Type, err = p.str(d.Type, "type", ""); err != nil {
		return native{}, err
	}
	if req.Configuration, err = p.valueMap(d.Configuration); err != nil {
		return native{}, fmt.Errorf("configuration: %w", err)
	}
	for _, k := range graylogOnly[req.Type] {
		delete(req.Configuration, k)
	}
	out, err := f.o.Create(ctx, req, user)
	if err != nil {
		return native{}, err
	}
	return native{id: out.ID, title: out.Title}, nil
}

func (f outputFacade) exists(ctx context.Context, id string) bool {
	_, err := f.o.Get(ctx, id)
	return err == nil
}

// remove detaches the output from every stream and deletes it.
func (f outputFacade) remove(ctx context.Context, id string) error { return f.o.Delete(ctx, id) }

func (f outputFacade) excerpts(ctx context.Context) ([]Excerpt, error) {
	all, err := f.o.List(ctx)
	if err != nil {
		return nil, err
	}
	var out []Excerpt
	for _, o := range all {
		out = append(out, Excerpt{ID: o.ID, Type: OutputV1, Title: o.Title})
	}
	return out, nil
}

func (f outputFacade) export(ctx context.Context, id string, _ exportIDs) (any, error) {
	o, err := f.o.Get(ctx, id)
	if err != nil {
		return nil, err
	}
	// Password fields are exported masked, as for inputs.
	conf := o.Configuration
	if t, ok := outputs.LookupType(o.Type); ok {
		conf = t.Config.Mask(conf)
	}
	cfg, err := refsOf(conf)
	if err != nil {
		return nil, err
	}
	if cfg == nil {
		cfg = map[string]any{}
	}
	raw, err := json.Marshal(cfg)
	if err != nil {
		return nil, err
	}
	return outputData{Title: ref(o.Title), Type: ref(o.Type), Configuration: raw}, nil
}

// --- the outputs of streams

// streamOutputs resolves the outputs a stream entity names, entity ids of
// the pack's outputs, into the ids of the outputs they became.
func streamOutputs(refs []ValueRef, p install) ([]string, error) {
	var out []string
	for i := range refs {
		eid, err := p.str(&refs[i], "outputs", "")
		if err != nil {
			return nil, err
		}
		id, ok := p.natives[Descriptor{ID: eid, Type: OutputV1}]
		if !ok {
			// Graylog's ContentPackException.
			return nil, fmt.Errorf("missing referenced output: %s", eid)
		}
		if !slices.Contains(out, id) {
			out = append(out, id)
		}
	}
	return out, nil
}

// liveOutputs returns the outputs of a stream that still exist.
func liveOutputs(ctx context.Context, o Outputs, ids []string) []string {
	var out []string
	for _, id := range ids {
		if _, err := o.Get(ctx, id); err == nil {
			out = append(out, id)
		}
	}
	return out
}
