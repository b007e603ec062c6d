package contentpacks

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"slices"
	"strings"

	"github.com/loggate/loggate/backend/logs/extractors"
	"github.com/loggate/loggate/backend/logs/grok"
	"github.com/loggate/loggate/backend/logs/inputs"
	"github.com/loggate/loggate/backend/logs/streams"
	"github.com/loggate/loggate/router/api"
)

// The entity types loggate installs, exports and uninstalls.
var (
	GrokPatternV1 = ModelType{Name: "grok_pattern", Version: "1"}
	StreamV1      = ModelType{Name: "stream", Version: "1"}
	InputV1       = ModelType{Name: "input", Version: "1"}
)

// GrokPatterns is what content packs need of the grok patterns.
type GrokPatterns interface {
	All() []grok.Pattern
	Get(id string) (grok.Pattern, error)
	Create(ctx context.Context, p grok.Pattern) (grok.Pattern, error)
	Delete(ctx context.Context, id string) error
}

// Streams is what content packs need of the streams.
type Streams interface {
	All() []*streams.Stream
	Get(id string) (*streams.Stream, error)
	Create(ctx context.Context, st *streams.Stream) error
	Delete(ctx context.Context, id string) error
}

// IndexSets gives the default index set new streams write to.
type IndexSets interface {
	DefaultID(ctx context.Context) (string, error)
}

// Inputs is what content packs need of the inputs.
type Inputs interface {
	All(ctx context.Context) ([]inputs.Input, error)
	Get(ctx context.Context, id string) (inputs.Input, error)
	Create(ctx context.Context, req inputs.CreateRequest, creator string) (inputs.Input, error)
	Delete(ctx context.Context, id string) error
}

// Extractors is what content packs need of the extractors and static
// fields of inputs.
type Extractors interface {
	List(ctx context.Context, inputID string) ([]extractors.Extractor, error)
	Create(ctx context.Context, inputID string, req extractors.Request, creator string) (extractors.Extractor, error)
	AddStaticField(ctx context.Context, inputID string, key, value *string) error
}

// native is an entity of this server an entity of a pack became.
type native struct {
	id, title string
}

// facade installs, exports and removes the entities of one type.
type facade interface {
	// existing returns the entity of this server the pack entity is, if
	// any (installing then creates nothing).
	existing(ctx context.Context, data json.RawMessage, p install) (*native, error)
	create(ctx context.Context, data json.RawMessage, p install, user string) (native, error)
	// exists reports whether a native entity is still there.
	exists(ctx context.Context, id string) bool
	remove(ctx context.Context, id string) error
	excerpts(ctx context.Context) ([]Excerpt, error)
	// export returns the data of a native entity as a pack entity; ids
	// are the entity ids of the natives exported with it.
	export(ctx context.Context, id string, ids exportIDs) (data any, err error)
}

// dependent is a facade whose entities need others, exported with them
// (Graylog's resolveNativeEntity).
type dependent interface {
	dependencies(ctx context.Context, id string) ([]Descriptor, error)
}

// install is an installation under way: its parameter values and the
// native ids of the pack entities installed so far (Graylog's
// nativeEntities), by pack entity.
type install struct {
	params
	natives map[Descriptor]string
}

// stream returns the native id of a stream a view or widget names: a
// stream of the pack, or the default stream of this server, named by its
// own id, as the pipeline's.
func (p install) stream(id string) (string, bool) {
	if n, ok := p.natives[Descriptor{ID: id, Type: StreamV1}]; ok {
		return n, true
	}
	return id, id == streams.DefaultStreamID
}

// exportIDs are the pack entity ids of the natives being exported, by
// native entity (Graylog's EntityDescriptorIds).
type exportIDs map[Descriptor]string

func decodeData(data json.RawMessage, v any) error {
	if err := json.Unmarshal(data, v); err != nil {
		return fmt.Errorf("invalid entity data: %w", err)
	}
	return nil
}

// --- grok_pattern

type grokFacade struct{ g GrokPatterns }

type grokData struct {
	Name    string `json:"name"`
	Pattern string `json:"pattern"`
}

func (f grokFacade) existing(_ context.Context, data json.RawMessage, _ install) (*native, error) {
	var d grokData
	if err := decodeData(data, &d); err != nil {
		return nil, err
	}
	for _, p := range f.g.All() {
		if p.Name == d.Name {
			if p.Pattern != d.Pattern {
				// Graylog's DivergingEntityConfigurationException.
				return nil, fmt.Errorf("expected grok pattern for name %q: <%s>; actual grok pattern: <%s>", d.Name, d.Pattern, p.Pattern)
			}
			return &native{id: p.ID, title: p.Name}, nil
		}
	}
	return nil, nil
}

func (f grokFacade) create(ctx context.Context, data json.RawMessage, _ install, _ string) (native, error) {
	var d grokData
	if err := decodeData(data, &d); err != nil {
		return native{}, err
	}
	if strings.TrimSpace(d.Name) == "" || strings.TrimSpace(d.Pattern) == "" {
		return native{}, errors.New("a grok pattern needs a name and a pattern")
	}
	p, err := f.g.Create(ctx, grok.Pattern{Name: d.Name, Pattern: d.Pattern})
	if err != nil {
		return native{}, fmt.Errorf("couldn't create grok pattern %s: %w", d.Name, err)
	}
	return native{id: p.ID, title: p.Name}, nil
}

func (f grokFacade) exists(_ context.Context, id string) bool {
	_, err := f.g.Get(id)
	return err == nil
}

func (f grokFacade) remove(ctx context.Context, id string) error { return f.g.Delete(ctx, id) }

func (f grokFacade) excerpts(context.Context) ([]Excerpt, error) {
	var out []Excerpt
	for _, p := range f.g.All() {
		out = append(out, Excerpt{ID: p.ID, Type: GrokPatternV1, Title: p.Name})
	}
	return out, nil
}

func (f grokFacade) export(_ context.Context, id string, _ exportIDs) (any, error) {
	p, err := f.g.Get(id)
	if err != nil {
		return nil, err
	}
	return grokData{Name: p.Name, Pattern: p.Pattern}, nil
}

// --- stream

type streamFacade struct {
	s  Streams
	is IndexSets
	// o are the outputs streams forward to; nil leaves streams with
	// outputs unsupported.
	o Outputs
}

type streamData struct {
	Title           *ValueRef         `json:"title"`
	Description     *ValueRef         `json:"description"`
	Disabled        *ValueRef         `json:"disabled"`
	MatchingType    *ValueRef         `json:"matching_type"`
	Rules           []ruleData        `json:"stream_rules"`
	AlertConditions []json.RawMessage `json:"alert_conditions"`
	AlarmCallbacks  []json.RawMessage `json:"alarm_callbacks"`
	Outputs         []ValueRef        `json:"outputs"`
	DefaultStream   *ValueRef         `json:"default_stream"`
	RemoveMatches   *ValueRef         `json:"remove_matches"`
}

type ruleData struct {
	Type        *ValueRef `json:"type"`
	Field       *ValueRef `json:"field"`
	Value       *ValueRef `json:"value"`
	Inverted    *ValueRef `json:"inverted"`
	Description *ValueRef `json:"description"`
}

func (f streamFacade) existing(_ context.Context, data json.RawMessage, p install) (*native, error) {
	var d streamData
	if err := decodeData(data, &d); err != nil {
		return nil, err
	}
	def, err := p.boolean(d.DefaultStream, "default_stream", false)
	if err != nil || !def {
		return nil, err
	}
	// The default stream is the one of this server, as in Graylog.
	st, err := f.s.Get(streams.DefaultStreamID)
	if err != nil {
		return nil, err
	}
	return &native{id: st.ID, title: st.Title}, nil
}

// ruleType reads a rule type as Graylog's StreamRuleType enum name (or
// its number, as older packs have it).
func ruleType(s string) (streams.RuleType, bool) {
	for _, t := range streams.RuleTypes() {
		if t.Name == s || fmt.Sprint(int(t.ID)) == s {
			return t.ID, true
		}
	}
	return 0, false
}

func (f streamFacade) create(ctx context.Context, data json.RawMessage, p install, user string) (native, error) {
	var d streamData
	if err := decodeData(data, &d); err != nil {
		return native{}, err
	}
	if len(d.Outputs) > 0 && f.o == nil {
		return native{}, unsupported("output")
	}
	if len(d.AlertConditions) > 0 || len(d.AlarmCallbacks) > 0 {
		return native{}, errors.New("legacy alert conditions and alarm callbacks of streams are not supported")
	}
	var st streams.Stream
	var err error
	errs := func(e error) {
		if err == nil {
			err = e
		}
	}
	var e error
	st.Title, e = p.str(d.Title, "title", "")
	errs(e)
	desc, e := p.str(d.Description, "description", "")
	errs(e)
	if d.Description != nil {
		st.Description = &desc
	}
	st.Disabled, e = p.boolean(d.Disabled, "disabled", false)
	errs(e)
	mt, e := p.str(d.MatchingType, "matching_type", string(streams.MatchAnd))
	errs(e)
	st.MatchingType = streams.MatchingType(mt)
	st.RemoveMatchesFromDefaultStream, e = p.boolean(d.RemoveMatches, "remove_matches", false)
	errs(e)
	for i, rd := range d.Rules {
		var r streams.Rule
		t, e := p.str(rd.Type, "stream_rules.type", "")
		errs(e)
		rt, ok := ruleType(t)
		if !ok && e == nil {
			errs(fmt.Errorf("stream rule %d: unknown type %q", i, t))
		}
		r.Type = rt
		r.Field, e = p.str(rd.Field, "stream_rules.field", "")
		errs(e)
		r.Value, e = p.str(rd.Value, "stream_rules.value", "")
		errs(e)
		r.Inverted, e = p.boolean(rd.Inverted, "stream_rules.inverted", false)
		errs(e)
		rdesc, e := p.str(rd.Description, "stream_rules.description", "")
		errs(e)
		if rd.Description != nil {
			r.Description = &rdesc
		}
		st.Rules = append(st.Rules, r)
	}
	if err != nil {
		return native{}, err
	}
	// The outputs are those the pack installed before its streams, as
	// Graylog's StreamFacade attaches them.
	if st.Outputs, err = streamOutputs(d.Outputs, p); err != nil {
		return native{}, err
	}
	if st.IndexSetID, err = f.is.DefaultID(ctx); err != nil {
		return native{}, fmt.Errorf("the default index set: %w", err)
	}
	st.CreatorUserID = user
	if err := f.s.Create(ctx, &st); err != nil {
		return native{}, err
	}
	return native{id: st.ID, title: st.Title}, nil
}

func (f streamFacade) exists(_ context.Context, id string) bool {
	_, err := f.s.Get(id)
	return err == nil
}

func (f streamFacade) remove(ctx context.Context, id string) error {
	if streams.IsBuiltin(id) {
		return nil // never removed, as Graylog keeps its default stream
	}
	return f.s.Delete(ctx, id)
}

func (f streamFacade) excerpts(context.Context) ([]Excerpt, error) {
	var out []Excerpt
	for _, st := range f.s.All() {
		if st.ID == streams.EventsStreamID || st.ID == streams.SystemEventsStreamID {
			continue
		}
		out = append(out, Excerpt{ID: st.ID, Type: StreamV1, Title: st.Title})
	}
	return out, nil
}

// perms are what attaching outputs to a stream needs besides creating it
// (POST /streams/{id}/outputs): stream_outputs:create and
// streams:edit:{id}, which for a stream not yet created only the right to
// edit every stream gives (creating a stream does not grant editing it).
func (f streamFacade) perms(data json.RawMessage) []string {
	var d streamData
	if decodeData(data, &d) != nil || len(d.Outputs) == 0 {
		return nil
	}
	return []string{"stream_outputs:create", "streams:edit"}
}

// dependencies are the outputs of the stream (Graylog's
// resolveNativeEntity).
func (f streamFacade) dependencies(ctx context.Context, id string) ([]Descriptor, error) {
	st, err := f.s.Get(id)
	if err != nil {
		return nil, err
	}
	if len(st.Outputs) > 0 && f.o == nil {
		return nil, unsupported("output")
	}
	var out []Descriptor
	for _, o := range liveOutputs(ctx, f.o, st.Outputs) {
		out = append(out, Descriptor{ID: o, Type: OutputV1})
	}
	return out, nil
}

func (f streamFacade) export(ctx context.Context, id string, ids exportIDs) (any, error) {
	st, err := f.s.Get(id)
	if err != nil {
		return nil, err
	}
	if len(st.Outputs) > 0 && f.o == nil {
		return nil, unsupported("output")
	}
	d := streamData{
		Title: ref(st.Title), Disabled: ref(st.Disabled), MatchingType: ref(string(st.MatchingType)),
		Rules: []ruleData{}, AlertConditions: []json.RawMessage{}, AlarmCallbacks: []json.RawMessage{},
		Outputs: []ValueRef{}, DefaultStream: ref(st.ID == streams.DefaultStreamID),
		RemoveMatches: ref(st.RemoveMatchesFromDefaultStream),
	}
	if st.Description != nil {
		d.Description = ref(*st.Description)
	} else {
		d.Description = ref("")
	}
	for _, r := range st.Rules {
		rd := ruleData{Type: ref(r.Type.String()), Field: ref(r.Field), Value: ref(r.Value), Inverted: ref(r.Inverted)}
		if r.Description != nil {
			rd.Description = ref(*r.Description)
		} else {
			rd.Description = ref("")
		}
		d.Rules = append(d.Rules, rd)
	}
	for _, o := range liveOutputs(ctx, f.o, st.Outputs) {
		eid, ok := ids[Descriptor{ID: o, Type: OutputV1}]
		if !ok {
			return nil, fmt.Errorf("couldn't find output entity %s", o)
		}
		d.Outputs = append(d.Outputs, *ref(eid))
	}
	return d, nil
}

// --- input

type inputFacade struct {
	in     Inputs
	ex     Extractors
	forget func(inputID string)
}

// inputData is Graylog's InputEntity (exported as InputWithExtractors).
type inputData struct {
	Title         *ValueRef           `json:"title"`
	Configuration json.RawMessage     `json:"configuration"`
	StaticFields  map[string]ValueRef `json:"static_fields"`
	Type          *ValueRef           `json:"type"`
	Global        *ValueRef           `json:"global"`
	Extractors    []extractorData     `json:"extractors"`
}

type extractorData struct {
	Title          *ValueRef       `json:"title"`
	Type           *ValueRef       `json:"type"`
	CursorStrategy *ValueRef       `json:"cursor_strategy"`
	TargetField    *ValueRef       `json:"target_field"`
	SourceField    *ValueRef       `json:"source_field"`
	Configuration  json.RawMessage `json:"configuration"`
	Converters     []converterData `json:"converters"`
	ConditionType  *ValueRef       `json:"condition_type"`
	ConditionValue *ValueRef       `json:"condition_value"`
	Order          *ValueRef       `json:"order"`
}

type converterData struct {
	Type          *ValueRef       `json:"type"`
	Configuration json.RawMessage `json:"configuration"`
}

func (f inputFacade) existing(context.Context, json.RawMessage, install) (*native, error) {
	return nil, nil // Graylog always creates a new input
}

func (f inputFacade) create(ctx context.Context, data json.RawMessage, p install, user string) (n native, err error) {
	var d inputData
	if err := decodeData(data, &d); err != nil {
		return native{}, err
	}
	var req inputs.CreateRequest
	if req.Title, err = p.str(d.Title, "title", ""); err != nil {
		return native{}, err
	}
	if req.Type, err = p.str(d.Type, "type", ""); err != nil {
		return native{}, err
	}
	if req.Global, err = p.boolean(d.Global, "global", false); err != nil {
		return native{}, err
	}
	if !req.Global {
		// A local input runs on the node that installs it, as in Graylog.
		return native{}, errors.New("only global inputs can be installed from a content pack by loggate")
	}
	if req.Configuration, err = p.valueMap(d.Configuration); err != nil {
		return native{}, fmt.Errorf("configuration: %w", err)
	}
	// Everything is resolved before anything is created.
	statics := map[string]string{}
	for k, v := range d.StaticFields {
		if statics[k], err = p.str(&v, "static_fields."+k, ""); err != nil {
			return native{}, err
		}
	}
	var reqs []extractors.Request
	for i, ed := range d.Extractors {
		r, err := extractorRequest(ed, p.params)
		if err != nil {
			return native{}, fmt.Errorf("extractor %d: %w", i, err)
		}
		reqs = append(reqs, r)
	}
	in, err := f.in.Create(ctx, req, user)
	if err != nil {
		return native{}, err
	}
	undo := func(e error) (native, error) {
		_ = f.remove(context.WithoutCancel(ctx), in.ID)
		return native{}, e
	}
	for _, r := range reqs {
		if _, err := f.ex.Create(ctx, in.ID, r, user); err != nil {
			return undo(fmt.Errorf("extractor %s: %w", deref(r.Title), err))
		}
	}
	keys := make([]string, 0, len(statics))
	for k := range statics {
		keys = append(keys, k)
	}
	slices.Sort(keys)
	for _, k := range keys {
		v := statics[k]
		if err := f.ex.AddStaticField(ctx, in.ID, &k, &v); err != nil {
			return undo(fmt.Errorf("static field %s: %w", k, err))
		}
	}
	return native{id: in.ID, title: in.Title}, nil
}

func deref(s *string) string {
	if s == nil {
		return ""
	}
	return *s
}

func extractorRequest(ed extractorData, p params) (extractors.Request, error) {
	body := map[string]any{}
	for _, f := range []struct {
		key string
		v   *ValueRef
	}{
		{"title", ed.Title}, {"extractor_type", ed.Type}, {"cut_or_copy", ed.CursorStrategy},
		{"target_field", ed.TargetField}, {"source_field", ed.SourceField},
		{"condition_type", ed.ConditionType}, {"condition_value", ed.ConditionValue},
	} {
		if f.v == nil {
			continue
		}
		s, err := p.str(f.v, f.key, "")
		if err != nil {
			return extractors.Request{}, err
		}
		body[f.key] = strings.ToLower(s)
		if f.key == "title" || f.key == "target_field" || f.key == "source_field" || f.key == "condition_value" {
			body[f.key] = s
		}
	}
	order, err := p.integer(ed.Order, "order", 0)
	if err != nil {
		return extractors.Request{}, err
	}
	body["order"] = order
	cfg, err := p.valueMap(ed.Configuration)
	if err != nil {
		return extractors.Request{}, fmt.Errorf("configuration: %w", err)
	}
	body["extractor_config"] = cfg
	converters := map[string]any{}
	for _, c := range ed.Converters {
		t, err := p.str(c.Type, "converters.type", "")
		if err != nil {
			return extractors.Request{}, err
		}
		ccfg, err := p.valueMap(c.Configuration)
		if err != nil {
			return extractors.Request{}, fmt.Errorf("converter %s: %w", t, err)
		}
		converters[strings.ToLower(t)] = ccfg
	}
	body["converters"] = converters
	b, err := json.Marshal(body)
	if err != nil {
		return extractors.Request{}, err
	}
	var req extractors.Request
	if err := json.Unmarshal(b, &req); err != nil {
		return extractors.Request{}, err
	}
	return req, nil
}

func (f inputFacade) exists(ctx context.Context, id string) bool {
	_, err := f.in.Get(ctx, id)
	return err == nil
}

func (f inputFacade) remove(ctx context.Context, id string) error {
	if err := f.in.Delete(ctx, id); err != nil {
		return err
	}
	if f.forget != nil {
		f.forget(id)
	}
	return nil
}

func (f inputFacade) excerpts(ctx context.Context) ([]Excerpt, error) {
	all, err := f.in.All(ctx)
	if err != nil {
		return nil, err
	}
	var out []Excerpt
	for _, in := range all {
		out = append(out, Excerpt{ID: in.ID, Type: InputV1, Title: in.Title})
	}
	return out, nil
}

func (f inputFacade) export(ctx context.Context, id string, _ exportIDs) (any, error) {
	in, err := f.in.Get(ctx, id)
	if err != nil {
		return nil, err
	}
	// Password fields are exported masked, as GET /system/inputs shows
	// them: a pack is shared, its secrets are not.
	conf := in.Configuration
	if t, ok := inputs.LookupType(in.Type); ok {
		conf = t.Config.Mask(conf)
	}
	cfg, err := refsOf(conf)
	if err != nil {
		return nil, err
	}
	cfgRaw, err := json.Marshal(cfg)
	if err != nil {
		return nil, err
	}
	d := inputData{
		Title: ref(in.Title), Configuration: cfgRaw, StaticFields: map[string]ValueRef{},
		Type: ref(in.Type), Global: ref(in.Global), Extractors: []extractorData{},
	}
	for k, v := range in.StaticFields {
		d.StaticFields[k] = *ref(v)
	}
	exs, err := f.ex.List(ctx, id)
	if err != nil {
		return nil, err
	}
	for _, e := range exs {
		ecfg, err := refsOf(e.Config)
		if err != nil {
			return nil, err
		}
		ecfgRaw, _ := json.Marshal(ecfg)
		ed := extractorData{
			Title: ref(e.Title), Type: ref(strings.ToUpper(e.Type)), CursorStrategy: ref(strings.ToUpper(e.CursorStrategy)),
			TargetField: ref(e.TargetField), SourceField: ref(e.SourceField), Configuration: ecfgRaw,
			Converters: []converterData{}, ConditionType: ref(strings.ToUpper(e.ConditionType)),
			ConditionValue: ref(e.ConditionValue), Order: ref(e.Order),
		}
		for _, c := range e.Converters {
			ccfg, err := refsOf(c.Config)
			if err != nil {
				return nil, err
			}
			ccfgRaw, _ := json.Marshal(ccfg)
			ed.Converters = append(ed.Converters, converterData{Type: ref(strings.ToUpper(c.Type)), Configuration: ccfgRaw})
		}
		d.Extractors = append(d.Extractors, ed)
	}
	return d, nil
}

// unsupported is the answer for an entity type loggate cannot install or
// export.
func unsupported(name string) error {
	return api.Errorf(api.Invalid, "Content pack entity type %s is not supported by loggate", name)
}
