package contentpacks

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"slices"
	"sort"
	"strings"
	"sync"
	"time"

	"github.com/google/uuid"
	"go.mongodb.org/mongo-driver/bson/primitive"

	"github.com/loggate/loggate/auth"
	"github.com/loggate/loggate/backend/alerts/entity"
	"github.com/loggate/loggate/backend/analysis/views"
	"github.com/loggate/loggate/backend/logs/lookup"
	"github.com/loggate/loggate/backend/logs/streams"
	"github.com/loggate/loggate/backend/store"
	"github.com/loggate/loggate/backend/system/sidecars"
	"github.com/loggate/loggate/router/api"
)

// createPerm is the permission creating an entity of a type directly
// needs (POST /system/grok, /streams, /system/inputs): installing a pack
// that creates one needs it too, so that contentpack:install alone opens
// no port and routes no messages.
var createPerm = map[string]string{
	GrokPatternV1.Name:   "inputs:create",
	StreamV1.Name:        "streams:create",
	InputV1.Name:         "inputs:create",
	LookupAdapterV1.Name: "lookuptables:create",
	LookupCacheV1.Name:   "lookuptables:create",
	LookupTableV1.Name:   "lookuptables:create",
	PipelineRuleV1.Name:  "pipeline_rule:create",
	PipelineV1.Name:      "pipeline:create",
	NotificationV1.Name:  "eventnotifications:create",
	// An event definition also needs to read the streams it searches (all
	// of them when it names none), checked as it is created.
	EventDefinitionV1.Name: "eventdefinitions:create",
	DashboardV2.Name:       "dashboards:create",
	// Saved searches need no permission beyond authentication, as POST
	// /views checks none for them.
	SearchV1.Name: "",
	OutputV1.Name: "outputs:create",
	// Graylog's UrlWhitelistResource changes entries with PUT.
	URLWhitelistEntryV1.Name:             "urlwhitelist:write",
	SidecarCollectorV1.Name:              sidecars.PermCollectorsCreate,
	SidecarCollectorConfigurationV1.Name: sidecars.PermConfigurationsNew,
}

// permissioned is a facade whose entities can need more than the
// permission creating one of its type needs.
type permissioned interface {
	perms(data json.RawMessage) []string
}

// readPerm is the permission reading a native entity directly needs: the
// catalog lists and exports only what the caller may read.
func readPerm(typ, id string) string {
	switch typ {
	case GrokPatternV1.Name:
		return "inputs:read"
	case StreamV1.Name:
		return "streams:read:" + id
	case InputV1.Name:
		return "inputs:read:" + id
	case LookupAdapterV1.Name, LookupCacheV1.Name, LookupTableV1.Name:
		return "lookuptables:read:" + id
	case PipelineRuleV1.Name:
		return "pipeline_rule:read:" + id
	case PipelineV1.Name:
		return "pipeline:read:" + id
	case EventDefinitionV1.Name:
		return "eventdefinitions:read:" + id
	case NotificationV1.Name:
		return "eventnotifications:read:" + id
	case DashboardV2.Name, SearchV1.Name:
		return "view:read:" + id // and the owner, and dashboards:read (guarded)
	case OutputV1.Name:
		return "outputs:read:" + id
	case URLWhitelistEntryV1.Name:
		return "urlwhitelist:read"
	case SidecarCollectorV1.Name:
		return sidecars.PermCollectorsRead
	case SidecarCollectorConfigurationV1.Name:
		return sidecars.PermConfigurationsRead
	}
	return "*"
}

// The store collections (Graylog's names).
const (
	PacksCollection         = "content_packs"
	InstallationsCollection = "content_packs_installations"
)

// Deps are the services whose entities packs install. A nil one leaves its
// entity types unsupported.
type Deps struct {
	Grok       GrokPatterns
	Streams    Streams
	IndexSets  IndexSets
	Inputs     Inputs
	Extractors Extractors
	// ForgetInput, when set, drops the state of a deleted input.
	ForgetInput func(inputID string)
	// Lookup installs lookup data adapters, caches and tables.
	Lookup Lookup
	// Pipelines installs pipeline rules and pipelines (connected to
	// streams).
	Pipelines Pipelines
	// EventDefinitions, Notifications and Owners install event
	// definitions and notifications (the three or neither).
	EventDefinitions EventDefinitions
	Notifications    EventNotifications
	Owners           Owners
	// Views and ViewSearches install dashboards and saved searches with
	// their searches.
	Views        Views
	ViewSearches ViewSearches
	// LegacyDashboards, with the views, installs Graylog 3.x dashboards.
	LegacyDashboards LegacyDashboards
	// Outputs installs outputs, which streams forward to.
	Outputs Outputs
	// URLWhitelist installs entries of the URL whitelist.
	URLWhitelist URLWhitelist
	// Sidecars installs Sidecar collectors and their configurations.
	Sidecars Sidecars
}

// Service stores packs and installations and installs packs.
type Service struct {
	st      store.Store
	now     func() time.Time
	facades map[string]facade
	// versions are the model versions of the types of facades.
	versions map[string]string
	// older are the facades installing older versions of a type (3.x's
	// dashboard version 1): the catalog exports only a type's version of
	// facades.
	older map[ModelType]facade
	order []string // entity types in installation order
	// mu serializes installations and uninstallations, whose checks read
	// every installation.
	mu sync.Mutex
}

// NewService returns the content packs over st.
func NewService(st store.Store, d Deps, now func() time.Time) *Service {
	s := &Service{st: st, now: now, facades: map[string]facade{}, versions: map[string]string{}, older: map[ModelType]facade{}}
	// Graylog installs in dependency order: adapters and caches before
	// their tables, streams before the pipelines connected to them, rules
	// before the pipelines running them.
	if d.Grok != nil {
		s.add(GrokPatternV1, grokFacade{d.Grok})
	}
	// Whitelist entries before the lookup adapters that call their URLs.
	if d.URLWhitelist != nil {
		s.add(URLWhitelistEntryV1, whitelistFacade{d.URLWhitelist})
	}
	if d.Lookup != nil {
		s.add(LookupAdapterV1, componentFacade{l: d.Lookup, k: lookup.Adapters, t: LookupAdapterV1, all: d.Lookup.Adapters})
		s.add(LookupCacheV1, componentFacade{l: d.Lookup, k: lookup.Caches, t: LookupCacheV1, all: d.Lookup.Caches})
		s.add(LookupTableV1, tableFacade{d.Lookup})
	}
	if d.Inputs != nil && d.Extractors != nil {
		s.add(InputV1, inputFacade{in: d.Inputs, ex: d.Extractors, forget: d.ForgetInput})
	}
	// Outputs before the streams forwarding to them.
	if d.Outputs != nil {
		s.add(OutputV1, outputFacade{d.Outputs})
	}
	if d.Streams != nil && d.IndexSets != nil {
		s.add(StreamV1, streamFacade{s: d.Streams, is: d.IndexSets, o: d.Outputs})
	}
	if d.Pipelines != nil {
		s.add(PipelineRuleV1, ruleFacade{d.Pipelines})
		s.add(PipelineV1, pipelineFacade{d.Pipelines})
	}
	// Collectors before their configurations.
	if d.Sidecars != nil {
		s.add(SidecarCollectorV1, collectorFacade{d.Sidecars})
		s.add(SidecarCollectorConfigurationV1, configurationFacade{d.Sidecars})
	}
	// Notifications before the event definitions sending to them, streams
	// before the definitions searching them.
	if d.EventDefinitions != nil && d.Notifications != nil && d.Owners != nil {
		nf := notificationFacade{n: d.Notifications, owned: owned{d.Owners, entity.TypeNotification, NotificationV1}}
		s.add(NotificationV1, nf)
		s.add(EventDefinitionV1, eventDefinitionFacade{defs: d.EventDefinitions, owned: owned{d.Owners, entity.TypeDefinition, EventDefinitionV1},
			notificationExists: nf.exists, streamExists: s.exists(StreamV1)})
	}
	// Views last: their searches read the streams of the pack.
	if d.Views != nil && d.ViewSearches != nil {
		s.add(DashboardV2, viewFacade{v: d.Views, s: d.ViewSearches, mt: DashboardV2, typ: views.Dashboard})
		if d.LegacyDashboards != nil {
			s.older[DashboardV1] = dashboardV1Facade{viewFacade{v: d.Views, s: d.ViewSearches, mt: DashboardV1, typ: views.Dashboard}, d.LegacyDashboards}
		}
		s.add(SearchV1, viewFacade{v: d.Views, s: d.ViewSearches, mt: SearchV1, typ: views.Search})
	}
	return s
}

// exists reports whether a native entity of the type is there; of a type
// without a facade, it says yes (exporting it then refuses the type).
func (s *Service) exists(t ModelType) func(ctx context.Context, id string) bool {
	return func(ctx context.Context, id string) bool {
		f, ok := s.facades[t.Name]
		return !ok || f.exists(ctx, id)
	}
}

func (s *Service) add(t ModelType, f facade) {
	s.facades[t.Name] = f
	s.versions[t.Name] = t.Version
	s.order = append(s.order, t.Name)
}

func packKey(id string, rev int) string { return fmt.Sprintf("%s\x00%010d", id, rev) }

// validate checks an uploaded pack.
func validate(p *Pack) error {
	switch {
	case p.V != "1":
		return api.Errorf(api.Invalid, "Unsupported content pack version %q: loggate reads version 1", string(p.V))
	case strings.TrimSpace(p.ID) == "":
		return api.Errorf(api.Invalid, "The content pack id must not be empty")
	case strings.ContainsAny(p.ID, ":,*/") || p.ID == "." || p.ID == "..":
		// Graylog takes any id, but its permissions (contentpack:read:<id>)
		// and paths (/system/content_packs/<id>) cannot name these.
		return api.Errorf(api.Invalid, "The content pack id must not hold ':', ',', '*' or '/', nor be '.' or '..'")
	case p.Rev < 1:
		return api.Errorf(api.Invalid, "The content pack revision must be 1 or more")
	case len(p.Entities) > MaxEntities:
		return api.Errorf(api.Invalid, "A content pack holds at most %d entities", MaxEntities)
	case len(p.Parameters) > MaxParameters:
		return api.Errorf(api.Invalid, "A content pack holds at most %d parameters", MaxParameters)
	}
	names := map[string]bool{}
	for _, par := range p.Parameters {
		if strings.TrimSpace(par.Name) == "" {
			return api.Errorf(api.Invalid, "A content pack parameter needs a name")
		}
		if names[par.Name] {
			return api.Errorf(api.Invalid, "Duplicate content pack parameter %s", par.Name)
		}
		names[par.Name] = true
		switch par.Type {
		case TypeBoolean, TypeDouble, TypeFloat, TypeInteger, TypeLong, TypeString:
		default:
			return api.Errorf(api.Invalid, "Parameter %s has an unknown type %q", par.Name, par.Type)
		}
		if d := par.DefaultValue; len(d) > 0 && string(d) != "null" {
			if err := checkLiteral(par.Type, d); err != nil {
				return api.Errorf(api.Invalid, "Default value of parameter %s: %v", par.Name, err)
			}
		}
	}
	ids := map[string]bool{}
	for i, e := range p.Entities {
		switch {
		case e.V != "1":
			return api.Errorf(api.Invalid, "Entity %d: unsupported entity version %q", i, string(e.V))
		case e.ID == "":
			return api.Errorf(api.Invalid, "Entity %d has no id", i)
		case e.Type.Name == "":
			return api.Errorf(api.Invalid, "Entity %s has no type", e.ID)
		case ids[e.ID]:
			return api.Errorf(api.Invalid, "Duplicate entity id %s", e.ID)
		}
		ids[e.ID] = true
		var obj map[string]json.RawMessage
		if json.Unmarshal(e.Data, &obj) != nil || obj == nil {
			return api.Errorf(api.Invalid, "Entity %s: data must be a JSON object", e.ID)
		}
		if e.Constraints == nil {
			p.Entities[i].Constraints = []json.RawMessage{}
		}
	}
	if p.Parameters == nil {
		p.Parameters = []Parameter{}
	}
	if p.Entities == nil {
		p.Entities = []Entity{}
	}
	return nil
}

// Upload stores a new pack revision; a taken id and revision is a 400, as
// in Graylog.
func (s *Service) Upload(ctx context.Context, p Pack) (Pack, error) {
	if err := validate(&p); err != nil {
		return Pack{}, err
	}
	if p.CreatedAt.IsZero() {
		p.CreatedAt = api.Time{Time: s.now().UTC()}
	}
	if p.ServerVersion == "" {
		p.ServerVersion = ServerVersion
	}
	doc, err := api.Marshal(p)
	if err != nil {
		return Pack{}, err
	}
	err = s.st.Insert(ctx, PacksCollection, packKey(p.ID, p.Rev), doc)
	if errors.Is(err, store.ErrConflict) {
		return Pack{}, api.Errorf(api.Invalid, "Content pack %s with this revision %d already found!", p.ID, p.Rev)
	}
	if err != nil {
		return Pack{}, fmt.Errorf("content packs: storing %s/%d: %w", p.ID, p.Rev, err)
	}
	return p, nil
}

// All returns every pack revision, by id and revision.
func (s *Service) All(ctx context.Context) ([]Pack, error) {
	out, err := store.All(ctx, s.st, PacksCollection, func(doc []byte) (Pack, error) {
		var p Pack
		err := json.Unmarshal(doc, &p)
		return p, err
	})
	if err != nil {
		return nil, fmt.Errorf("content packs: %w", err)
	}
	return out, nil
}

// Latest returns the latest revision of every pack.
func (s *Service) Latest(ctx context.Context) ([]Pack, error) {
	all, err := s.All(ctx)
	if err != nil {
		return nil, err
	}
	var out []Pack
	for i, p := range all {
		if i+1 == len(all) || all[i+1].ID != p.ID {
			out = append(out, p)
		}
	}
	return out, nil
}

// Revisions returns the revisions of a pack; none is a 404.
func (s *Service) Revisions(ctx context.Context, id string) ([]Pack, error) {
	all, err := s.All(ctx)
	if err != nil {
		return nil, err
	}
	var out []Pack
	for _, p := range all {
		if p.ID == id {
			out = append(out, p)
		}
	}
	if len(out) == 0 {
		return nil, api.Errorf(api.NotFound, "Content pack %s not found!", id)
	}
	return out, nil
}

// Get returns a pack revision.
func (s *Service) Get(ctx context.Context, id string, rev int) (Pack, error) {
	doc, err := s.st.Get(ctx, PacksCollection, packKey(id, rev))
	if errors.Is(err, store.ErrNotFound) {
		return Pack{}, api.Errorf(api.NotFound, "Content pack %s with revision %d not found!", id, rev)
	}
	if err != nil {
		return Pack{}, fmt.Errorf("content packs: %w", err)
	}
	var p Pack
	if err := json.Unmarshal(doc, &p); err != nil {
		return Pack{}, fmt.Errorf("content pack %s/%d: %w", id, rev, err)
	}
	return p, nil
}

// Delete removes every revision of a pack, refused while it is installed.
func (s *Service) Delete(ctx context.Context, id string) error {
	return s.deleteRevs(ctx, id, -1)
}

// DeleteRevision removes a revision, refused while it is installed.
func (s *Service) DeleteRevision(ctx context.Context, id string, rev int) error {
	return s.deleteRevs(ctx, id, rev)
}

func (s *Service) deleteRevs(ctx context.Context, id string, rev int) error {
	s.mu.Lock()
	defer s.mu.Unlock()
	ins, err := s.Installations(ctx, id)
	if err != nil {
		return err
	}
	for _, in := range ins {
		if rev < 0 {
			return api.Errorf(api.Invalid, "Content pack %s with all its revisions can't be deleted: There are still installations of this content pack", id)
		}
		if in.PackRev == rev {
			return api.Errorf(api.Invalid, "Content pack %s and revision %d can't be deleted: There are still installations of this content pack revision.", id, rev)
		}
	}
	all, err := s.All(ctx)
	if err != nil {
		return err
	}
	for _, p := range all {
		if p.ID != id || (rev >= 0 && p.Rev != rev) {
			continue
		}
		err := s.st.Delete(ctx, PacksCollection, packKey(p.ID, p.Rev))
		if err != nil && !errors.Is(err, store.ErrNotFound) {
			return fmt.Errorf("content packs: deleting %s/%d: %w", p.ID, p.Rev, err)
		}
	}
	return nil
}

// allInstallations returns every installation, oldest first.
func (s *Service) allInstallations(ctx context.Context) ([]Installation, error) {
	out, err := store.All(ctx, s.st, InstallationsCollection, func(doc []byte) (Installation, error) {
		var in Installation
		err := json.Unmarshal(doc, &in)
		return in, err
	})
	if err != nil {
		return nil, fmt.Errorf("content pack installations: %w", err)
	}
	return out, nil
}

// Installations returns the installations of a pack.
func (s *Service) Installations(ctx context.Context, packID string) ([]Installation, error) {
	all, err := s.allInstallations(ctx)
	if err != nil {
		return nil, err
	}
	out := []Installation{}
	for _, in := range all {
		if in.PackID == packID {
			out = append(out, in)
		}
	}
	return out, nil
}

// Metadata counts the installations of every pack revision.
func (s *Service) Metadata(ctx context.Context) (map[string]map[int]map[string]int, error) {
	all, err := s.allInstallations(ctx)
	if err != nil {
		return nil, err
	}
	out := map[string]map[int]map[string]int{}
	for _, in := range all {
		if out[in.PackID] == nil {
			out[in.PackID] = map[int]map[string]int{}
		}
		if out[in.PackID][in.PackRev] == nil {
			out[in.PackID][in.PackRev] = map[string]int{"installation_count": 0}
		}
		out[in.PackID][in.PackRev]["installation_count"]++
	}
	return out, nil
}

// Installation returns an installation of a pack.
func (s *Service) Installation(ctx context.Context, packID, id string) (Installation, error) {
	doc, err := s.st.Get(ctx, InstallationsCollection, id)
	if errors.Is(err, store.ErrNotFound) {
		return Installation{}, api.Errorf(api.NotFound, "Couldn't find installation %s", id)
	}
	if err != nil {
		return Installation{}, fmt.Errorf("content pack installations: %w", err)
	}
	var in Installation
	if err := json.Unmarshal(doc, &in); err != nil {
		return Installation{}, err
	}
	if in.PackID != packID {
		return Installation{}, api.Errorf(api.NotFound, "Couldn't find installation %s", id)
	}
	return in, nil
}

// facadeOf returns the facade installing and uninstalling an entity type,
// or the 400 for a type loggate does not support.
func (s *Service) facadeOf(t ModelType) (facade, error) {
	if f, ok := s.older[t]; ok {
		return f, nil
	}
	f, ok := s.facades[t.Name]
	if !ok {
		return nil, unsupported(t.Name)
	}
	if t.Version != s.versions[t.Name] {
		return nil, api.Errorf(api.Invalid, "Content pack entity type %s version %s is not supported by loggate", t.Name, t.Version)
	}
	return f, nil
}

// guarded is a facade whose entities more may read than the holders of
// their readPerm (views, event definitions and notifications: their owners
// too).
type guarded interface {
	readable(ctx context.Context, p *auth.Principal, id string) bool
}

// readable reports whether p may read a native entity of type t.
func (s *Service) readable(ctx context.Context, p *auth.Principal, t, id string) bool {
	if g, ok := s.facades[t].(guarded); ok {
		return g.readable(ctx, p, id)
	}
	return p.Permits(readPerm(t, id))
}

// rank orders entities for installation: grok patterns, URL whitelist
// entries, lookup adapters, caches and tables, inputs, outputs, streams,
// pipeline rules, pipelines, Sidecar collectors, their configurations,
// notifications, event definitions, dashboards and saved searches.
func (s *Service) rank(t string) int { return slices.Index(s.order, t) }

// Install installs a pack revision with the given parameter values.
func (s *Service) Install(ctx context.Context, id string, rev int, given map[string]ValueRef, comment, user string) (Installation, error) {
	// Held from the reading of the pack on: a pack deleted meanwhile
	// would leave an installation that cannot be uninstalled, and an
	// entity found on the system while the permissions are checked must
	// not be uninstalled before it is counted.
	s.mu.Lock()
	defer s.mu.Unlock()
	p, err := s.Get(ctx, id, rev)
	if err != nil {
		return Installation{}, err
	}
	vals, err := validateParameters(given, p.Parameters)
	if err != nil {
		return Installation{}, err
	}
	entities := slices.Clone(p.Entities)
	for _, e := range entities {
		if _, err := s.facadeOf(e.Type); err != nil {
			return Installation{}, err
		}
	}
	sort.SliceStable(entities, func(i, j int) bool { return s.rank(entities[i].Type.Name) < s.rank(entities[j].Type.Name) })
	// Every entity the installation would create needs the caller's
	// permission to create it, checked before anything is created.
	probe := install{params: vals, natives: map[Descriptor]string{}}
	for _, e := range entities {
		f, _ := s.facadeOf(e.Type)
		if found, err := f.existing(ctx, e.Data, probe); err == nil && found != nil {
			continue // found on the system: nothing is created for it
		}
		perm, ok := createPerm[e.Type.Name]
		if !ok {
			perm = "*"
		}
		var need []string
		if perm != "" {
			need = append(need, perm)
		} else if auth.FromContext(ctx) == nil {
			return Installation{}, auth.Unauthenticated()
		}
		if pf, ok := f.(permissioned); ok {
			need = append(need, pf.perms(e.Data)...)
		}
		for _, perm := range need {
			if err := auth.RequireMsg(ctx, perm,
				fmt.Sprintf("Not authorized to create the %s entities of content pack %s", e.Type.Name, id)); err != nil {
				return Installation{}, err
			}
		}
	}

	all, err := s.allInstallations(ctx)
	if err != nil {
		return Installation{}, err
	}
	installs, onSystem := counts(all)
	type created struct {
		f  facade
		id string
	}
	var made []created
	rollback := func() {
		bg := context.WithoutCancel(ctx)
		for i := len(made) - 1; i >= 0; i-- {
			_ = made[i].f.remove(bg, made[i].id)
		}
	}
	descs := []NativeDescriptor{}
	inst := install{params: vals, natives: map[Descriptor]string{}}
	for _, e := range entities {
		f, _ := s.facadeOf(e.Type)
		found, err := f.existing(ctx, e.Data, inst)
		if err == nil && found != nil {
			d := NativeDescriptor{ID: found.id, Type: e.Type, ContentPackEnID: e.ID, Title: found.title}
			// An entity this installation created (an entity of the pack
			// the same as another) was not on the system.
			mine := slices.ContainsFunc(made, func(c created) bool { return c.id == found.id })
			d.FoundOnSystem = !mine && (installs[found.id] == 0 || onSystem[found.id] > 0)
			descs = append(descs, d)
			inst.natives[Descriptor{ID: e.ID, Type: e.Type}] = found.id
			continue
		}
		var n native
		if err == nil {
			n, err = f.create(ctx, e.Data, inst, user)
		}
		if err != nil {
			rollback()
			code := api.ErrorCode(err)
			if code == api.Internal {
				code = api.Invalid
			}
			var ae *api.Error
			if errors.As(err, &ae) && ae.Code == api.Unavailable {
				return Installation{}, err
			}
			return Installation{}, api.Wrap(code, fmt.Sprintf("Failed to install content pack <%s/%d>: entity %s (%s): %s", id, rev, e.ID, e.Type.Name, message(err)), err)
		}
		made = append(made, created{f, n.id})
		inst.natives[Descriptor{ID: e.ID, Type: e.Type}] = n.id
		descs = append(descs, NativeDescriptor{ID: n.id, Type: e.Type, ContentPackEnID: e.ID, Title: n.title})
	}
	in := Installation{
		ID: primitive.NewObjectID().Hex(), PackID: id, PackRev: rev, Parameters: vals, Entities: descs,
		Comment: comment, CreatedAt: api.Time{Time: s.now().UTC()}, CreatedBy: user,
	}
	if in.Parameters == nil {
		in.Parameters = map[string]ValueRef{}
	}
	doc, err := api.Marshal(in)
	if err == nil {
		err = s.st.Insert(ctx, InstallationsCollection, in.ID, doc)
	}
	if err != nil {
		rollback()
		return Installation{}, fmt.Errorf("content packs: storing the installation: %w", err)
	}
	return in, nil
}

// message is an error's message for a client: an *api.Error's own words.
func message(err error) string {
	var ae *api.Error
	if errors.As(err, &ae) {
		return ae.Message
	}
	var ve *api.ValidationError
	if errors.As(err, &ve) {
		return ve.Error()
	}
	return err.Error()
}

// counts returns, per native entity id, in how many installations it is
// and in how many of them it was found on the system (installations, as
// Graylog counts them, not entities: two entities of one pack can be the
// same native one).
func counts(all []Installation) (installs, onSystem map[string]int) {
	installs, onSystem = map[string]int{}, map[string]int{}
	for _, in := range all {
		seen, found := map[string]bool{}, map[string]bool{}
		for _, d := range in.Entities {
			if !seen[d.ID] {
				seen[d.ID] = true
				installs[d.ID]++
			}
			if d.FoundOnSystem && !found[d.ID] {
				found[d.ID] = true
				onSystem[d.ID]++
			}
		}
	}
	return installs, onSystem
}

// UninstallDetails lists what uninstalling would remove: the entities no
// other installation holds.
func (s *Service) UninstallDetails(ctx context.Context, packID, id string) (map[string][]NativeDescriptor, error) {
	in, err := s.Installation(ctx, packID, id)
	if err != nil {
		return nil, err
	}
	all, err := s.allInstallations(ctx)
	if err != nil {
		return nil, err
	}
	installs, _ := counts(all)
	out := []NativeDescriptor{}
	for _, d := range in.Entities {
		if installs[d.ID] <= 1 {
			out = append(out, d)
		}
	}
	return map[string][]NativeDescriptor{"entities": out}, nil
}

// Uninstall removes an installation and the entities it created that no
// other installation holds and that were not found on the system.
func (s *Service) Uninstall(ctx context.Context, packID, id string) (Pack, Uninstallation, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	in, err := s.Installation(ctx, packID, id)
	if err != nil {
		return Pack{}, Uninstallation{}, err
	}
	p, err := s.Get(ctx, in.PackID, in.PackRev)
	if err != nil {
		return Pack{}, Uninstallation{}, api.Errorf(api.NotFound, "Couldn't find content pack %s rev %d", in.PackID, in.PackRev)
	}
	all, err := s.allInstallations(ctx)
	if err != nil {
		return Pack{}, Uninstallation{}, err
	}
	installs, onSystem := counts(all)
	u := Uninstallation{Entities: []NativeDescriptor{}, Failed: []NativeDescriptor{}, Skipped: []NativeDescriptor{}}
	// Reverse installation order: pipelines before their rules and
	// streams, tables before their caches and adapters.
	ents := slices.Clone(in.Entities)
	sort.SliceStable(ents, func(i, j int) bool { return s.rank(ents[i].Type.Name) > s.rank(ents[j].Type.Name) })
	for _, d := range ents {
		f, err := s.facadeOf(d.Type)
		if err != nil {
			u.Failed = append(u.Failed, d)
			continue
		}
		n, sys := installs[d.ID], onSystem[d.ID]
		switch {
		case n > 1 || (n == 1 && sys >= 1):
			u.Skipped = append(u.Skipped, d)
		case !f.exists(ctx, d.ID):
			// Gone already: neither removed nor failed, as in Graylog.
		default:
			if err := f.remove(ctx, d.ID); err != nil {
				api.Logger(ctx).Warn("content packs: removing an entity", "type", d.Type.Name, "id", d.ID, "err", err)
				u.Failed = append(u.Failed, d)
			} else {
				u.Entities = append(u.Entities, d)
			}
		}
	}
	if err := s.st.Delete(ctx, InstallationsCollection, in.ID); err != nil && !errors.Is(err, store.ErrNotFound) {
		return Pack{}, Uninstallation{}, fmt.Errorf("content packs: deleting installation %s: %w", in.ID, err)
	}
	return p, u, nil
}

// Catalog lists the entities of this server that can be exported.
func (s *Service) Catalog(ctx context.Context) ([]Excerpt, error) {
	p := auth.FromContext(ctx)
	out := []Excerpt{}
	for _, t := range s.order {
		ex, err := s.facades[t].excerpts(ctx)
		if err != nil {
			return nil, err
		}
		for _, e := range ex {
			if s.readable(ctx, p, t, e.ID) {
				out = append(out, e)
			}
		}
	}
	return out, nil
}

// Resolve exports entities of this server as pack entities, each under a
// new id (the default stream under its own), as Graylog 4.0's catalog
// does, with the entities they need: a lookup table's cache and data
// adapter, a pipeline's rules and connected streams, a stream's outputs, a
// Sidecar configuration's collector, an event definition's notifications
// and the streams it searches, a view's streams.
func (s *Service) Resolve(ctx context.Context, ds []Descriptor) ([]Entity, error) {
	if len(ds) > MaxEntities {
		return nil, api.Errorf(api.Invalid, "At most %d entities can be resolved at once", MaxEntities)
	}
	var all []Descriptor
	seen := map[Descriptor]bool{}
	for queue := ds; len(queue) > 0; queue = queue[1:] {
		d := queue[0]
		if seen[d] {
			continue
		}
		seen[d] = true
		if _, ok := s.older[d.Type]; ok {
			// As Graylog's catalog, which lists no dashboard of version 1.
			return nil, api.Errorf(api.Invalid, "Content pack entity type %s version %s is installed but not exported by loggate: export version %s",
				d.Type.Name, d.Type.Version, s.versions[d.Type.Name])
		}
		f, err := s.facadeOf(d.Type)
		if err != nil {
			return nil, err
		}
		if p := auth.FromContext(ctx); p == nil {
			return nil, auth.Unauthenticated()
		} else if !s.readable(ctx, p, d.Type.Name, d.ID) {
			return nil, api.Errorf(api.Forbidden, "Not authorized to read %s %s", d.Type.Name, d.ID)
		}
		if all = append(all, d); len(all) > MaxEntities {
			return nil, api.Errorf(api.Invalid, "At most %d entities can be resolved at once", MaxEntities)
		}
		if dep, ok := f.(dependent); ok {
			more, err := dep.dependencies(ctx, d.ID)
			if err != nil {
				return nil, exportError(d, err)
			}
			queue = append(queue, more...)
		}
	}
	ids := exportIDs{}
	for _, d := range all {
		ids[d] = uuid.NewString()
		if d.Type.Name == StreamV1.Name && d.ID == streams.DefaultStreamID {
			ids[d] = d.ID
		}
	}
	out := []Entity{}
	for _, d := range all {
		f, _ := s.facadeOf(d.Type)
		data, err := f.export(ctx, d.ID, ids)
		if err != nil {
			return nil, exportError(d, err)
		}
		raw, err := json.Marshal(data)
		if err != nil {
			return nil, err
		}
		out = append(out, Entity{V: "1", Type: d.Type, ID: ids[d], Data: raw, Constraints: []json.RawMessage{serverConstraint}})
	}
	return out, nil
}

// exportError is an error exporting an entity: a client's own, or a 500.
func exportError(d Descriptor, err error) error {
	if code := api.ErrorCode(err); code == api.Invalid || code == api.NotFound || code == api.Unavailable {
		return err
	}
	return fmt.Errorf("content packs: exporting %s %s: %w", d.Type.Name, d.ID, err)
}

// serverConstraint is the constraint exported entities carry.
var serverConstraint = json.RawMessage(`{"type":"server-version","version":">=4.0.0"}`)

// constraintResults reports a pack's constraints: a server version is met
// (loggate speaks Graylog 4.0's API), a plugin version is not.
func constraintResults(p Pack) []map[string]any {
	out := []map[string]any{}
	seen := map[string]bool{}
	for _, e := range p.Entities {
		for _, c := range e.Constraints {
			if seen[string(c)] {
				continue
			}
			seen[string(c)] = true
			var t struct {
				Type string `json:"type"`
			}
			_ = json.Unmarshal(c, &t)
			out = append(out, map[string]any{"constraint": c, "fulfilled": t.Type == "server-version"})
		}
	}
	return out
}
