// Package sidecars is Graylog 4.0's Sidecar API (the sidecar plugin built
// into Graylog 4.0): the Sidecars' registration and heartbeat, the
// collectors they run (with the default filebeat, winlogbeat and nxlog
// collectors), collector configurations and their rendering, configuration
// variables, and the actions (start, stop, restart a collector) delivered to
// a Sidecar with its next registration answer.
package sidecars

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"regexp"
	"strconv"
	"strings"
	"sync"
	"time"

	"go.mongodb.org/mongo-driver/bson/primitive"

	"github.com/loggate/loggate/backend/store"
	"github.com/loggate/loggate/router/api"
)

// Collections, Graylog's names.
const (
	SidecarsCollection       = "sidecars"
	CollectorsCollection     = "sidecar_collectors"
	ConfigurationsCollection = "sidecar_configurations"
	VariablesCollection      = "sidecar_configuration_variables"
	ActionsCollection        = "sidecar_collector_actions"
)

// SettingsClass is the cluster configuration class of the Sidecar
// settings.
const SettingsClass = "org.graylog.plugins.sidecar.system.SidecarConfiguration"

// Limits on what one request may carry.
const (
	// maxIDLength bounds a Sidecar's node id (a UUID, usually).
	maxIDLength = 512
	// maxItems bounds every list a request sends: nodes of an assignment,
	// assignments of a node, Sidecars and collectors of a bulk action,
	// actions, collector statuses and log files of a registration.
	maxItems = 10000
)

// ClusterConfig reads a cluster configuration class, as
// clusterconfig.Service does: nil when none is stored.
type ClusterConfig interface {
	Get(ctx context.Context, class string) (json.RawMessage, error)
}

// Settings are the Sidecar settings of the cluster configuration.
type Settings struct {
	InactiveThreshold time.Duration
	// ExpirationThreshold is how long a Sidecar may stay unseen before
	// it is deleted.
	ExpirationThreshold   time.Duration
	UpdateInterval        time.Duration
	SendStatus            bool
	ConfigurationOverride bool
}

// DefaultSettings are Graylog's SidecarConfiguration.defaultConfiguration.
var DefaultSettings = Settings{InactiveThreshold: time.Minute, ExpirationThreshold: 14 * 24 * time.Hour,
	UpdateInterval: 30 * time.Second, SendStatus: true}

// Service stores Sidecars, collectors, configurations, variables and
// actions. Reads go to the store, so that every node of a cluster sees the
// same; writes are serialized on this node.
type Service struct {
	st     store.Store
	config ClusterConfig
	now    func() time.Time
	mu     sync.Mutex
}

// NewService returns the service, adding the default collectors that are
// missing, as Graylog's V20180212165000_AddDefaultCollectors migration does
// on every start. config may be nil: the default settings then apply.
func NewService(ctx context.Context, st store.Store, config ClusterConfig, now func() time.Time) (*Service, error) {
	s := &Service{st: st, config: config, now: now}
	if err := s.addDefaultCollectors(ctx); err != nil {
		return nil, fmt.Errorf("sidecars: adding the default collectors: %w", err)
	}
	return s, nil
}

func newID() string { return primitive.NewObjectID().Hex() }

// Settings returns the Sidecar settings of the cluster configuration.
func (s *Service) Settings(ctx context.Context) (Settings, error) {
	out := DefaultSettings
	if s.config == nil {
		return out, nil
	}
	doc, err := s.config.Get(ctx, SettingsClass)
	if err != nil || doc == nil {
		return out, err
	}
	var c struct {
		Inactive string `json:"sidecar_inactive_threshold"`
		Expire   string `json:"sidecar_expiration_threshold"`
		Update   string `json:"sidecar_update_interval"`
		Send     *bool  `json:"sidecar_send_status"`
		Override *bool  `json:"sidecar_configuration_override"`
	}
	if err := json.Unmarshal(doc, &c); err != nil {
		return out, fmt.Errorf("sidecars: reading the settings: %w", err)
	}
	if d, ok := parsePeriod(c.Inactive); ok {
		out.InactiveThreshold = d
	}
	if d, ok := parsePeriod(c.Expire); ok {
		out.ExpirationThreshold = d
	}
	if d, ok := parsePeriod(c.Update); ok {
		out.UpdateInterval = d
	}
	if c.Send != nil {
		out.SendStatus = *c.Send
	}
	if c.Override != nil {
		out.ConfigurationOverride = *c.Override
	}
	return out, nil
}

var periodSyntax = regexp.MustCompile(`^P(?:(\d+)W)?(?:(\d+)D)?(?:T(?:(\d+)H)?(?:(\d+)M)?(?:(\d+)(?:\.(\d{1,3}))?S)?)?$`)

// parsePeriod reads the ISO 8601 periods Graylog stores (PT30S, PT1M,
// P14D): weeks, days, hours, minutes and seconds.
func parsePeriod(p string) (time.Duration, bool) {
	m := periodSyntax.FindStringSubmatch(p)
	if m == nil || p == "P" || strings.HasSuffix(p, "T") {
		return 0, false
	}
	units := []time.Duration{7 * 24 * time.Hour, 24 * time.Hour, time.Hour, time.Minute, time.Second}
	var d time.Duration
	for i, u := range units {
		if m[i+1] == "" {
			continue
		}
		n, err := strconv.ParseInt(m[i+1], 10, 32)
		if err != nil {
			return 0, false
		}
		d += time.Duration(n) * u
	}
	if m[6] != "" {
		ms, _ := strconv.Atoi((m[6] + "00")[:3])
		d += time.Duration(ms) * time.Millisecond
	}
	return d, true
}

// all decodes every document of a collection.
func all[T any](ctx context.Context, st store.Store, coll string) ([]T, error) {
	out, err := store.All(ctx, st, coll, func(doc []byte) (T, error) {
		var v T
		err := json.Unmarshal(doc, &v)
		return v, err
	})
	if err != nil {
		return nil, fmt.Errorf("sidecars: reading %s: %w", coll, err)
	}
	return out, nil
}

// get decodes one document; found is false when there is none.
func get[T any](ctx context.Context, st store.Store, coll, id string) (v T, found bool, err error) {
	doc, err := st.Get(ctx, coll, id)
	if errors.Is(err, store.ErrNotFound) {
		return v, false, nil
	}
	if err != nil {
		return v, false, fmt.Errorf("sidecars: reading %s %s: %w", coll, id, err)
	}
	if err := json.Unmarshal(doc, &v); err != nil {
		return v, false, fmt.Errorf("sidecars: decoding %s %s: %w", coll, id, err)
	}
	return v, true, nil
}

func (s *Service) put(ctx context.Context, coll, id string, v any) error {
	doc, err := api.Marshal(v)
	if err != nil {
		return fmt.Errorf("sidecars: %w", err)
	}
	if err := s.st.Put(ctx, coll, id, doc); err != nil {
		return fmt.Errorf("sidecars: saving %s %s: %w", coll, id, err)
	}
	return nil
}

// remove deletes a document; deleted is false when there was none.
func (s *Service) remove(ctx context.Context, coll, id string) (deleted bool, err error) {
	err = s.st.Delete(ctx, coll, id)
	switch {
	case errors.Is(err, store.ErrNotFound):
		return false, nil
	case err != nil:
		return false, fmt.Errorf("sidecars: deleting %s %s: %w", coll, id, err)
	}
	return true, nil
}

// --- Sidecars ---

// Registration is what a Sidecar sends with every heartbeat.
type Registration struct {
	NodeName    string
	NodeDetails NodeDetails
	Version     string
}

// RegistrationResponse is Graylog's answer to a registration.
type RegistrationResponse struct {
	Configuration struct {
		UpdateInterval int64 `json:"update_interval"`
		SendStatus     bool  `json:"send_status"`
	} `json:"configuration"`
	ConfigurationOverride bool         `json:"configuration_override"`
	Actions               []Action     `json:"actions"`
	Assignments           []Assignment `json:"assignments"`
}

// Register records a Sidecar's heartbeat (creating it on its first) and
// answers its settings, its assignments and the actions pending for it,
// which are delivered once.
func (s *Service) Register(ctx context.Context, nodeID string, reg Registration) (RegistrationResponse, error) {
	var resp RegistrationResponse
	settings, err := s.Settings(ctx)
	if err != nil {
		return resp, err
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	sc, found, err := get[Sidecar](ctx, s.st, SidecarsCollection, nodeID)
	if err != nil {
		return resp, err
	}
	if !found {
		sc = Sidecar{ID: newID(), NodeID: nodeID}
	}
	sc.NodeName, sc.NodeDetails, sc.SidecarVersion = reg.NodeName, reg.NodeDetails, reg.Version
	sc.LastSeen = api.Time{Time: s.now().UTC()}
	if err := s.put(ctx, SidecarsCollection, nodeID, sc); err != nil {
		return resp, err
	}
	actions, found, err := get[Actions](ctx, s.st, ActionsCollection, nodeID)
	if err != nil {
		return resp, err
	}
	if found {
		if _, err := s.remove(ctx, ActionsCollection, nodeID); err != nil {
			return resp, err
		}
		resp.Actions = actions.Action
		if resp.Actions == nil {
			resp.Actions = []Action{}
		}
	}
	resp.Configuration.UpdateInterval = int64(settings.UpdateInterval / time.Second)
	resp.Configuration.SendStatus = settings.SendStatus
	resp.ConfigurationOverride = settings.ConfigurationOverride
	resp.Assignments = sc.Assignments
	return resp, nil
}

// Sidecars returns every Sidecar, in node id order.
func (s *Service) Sidecars(ctx context.Context) ([]Sidecar, error) {
	return all[Sidecar](ctx, s.st, SidecarsCollection)
}

// Sidecar returns the Sidecar with that node id.
func (s *Service) Sidecar(ctx context.Context, nodeID string) (Sidecar, error) {
	sc, found, err := get[Sidecar](ctx, s.st, SidecarsCollection, nodeID)
	if err == nil && !found {
		err = api.Errorf(api.NotFound, "Could not find sidecar <%s>", nodeID)
	}
	return sc, err
}

// Active reports whether a Sidecar was seen within the inactive threshold.
func (s *Service) active(sc Sidecar, settings Settings) bool {
	return sc.LastSeen.After(s.now().Add(-settings.InactiveThreshold))
}

// inactiveMessage is the status message of a Sidecar marked inactive
// (Graylog's).
const inactiveMessage = "Received no ping signal from sidecar"

// Purge marks the Sidecars that reported running but have not been seen
// within the inactive threshold as unknown, and deletes those not seen
// within the expiration threshold with their pending actions: Graylog's
// PurgeExpiredSidecarsThread. A Sidecar that registers again is created
// anew. Each Sidecar is decided on as stored when it is changed, so that
// a heartbeat another node records meanwhile is neither overwritten nor
// deleted; registrations on this node wait for one Sidecar at a time.
func (s *Service) Purge(ctx context.Context) (marked, deleted int, err error) {
	settings, err := s.Settings(ctx)
	if err != nil {
		return 0, 0, err
	}
	all, err := s.Sidecars(ctx)
	if err != nil {
		return 0, 0, err
	}
	now := s.now()
	expired := func(sc Sidecar) bool { return sc.LastSeen.Before(now.Add(-settings.ExpirationThreshold)) }
	inactive := func(sc Sidecar) bool {
		st := sc.NodeDetails.Status
		return st != nil && statusOf(st.Status) == StatusRunning && sc.LastSeen.Before(now.Add(-settings.InactiveThreshold))
	}
	for _, sc := range all {
		var done bool
		switch {
		case expired(sc):
			done, err = s.purgeExpired(ctx, sc.NodeID, expired)
			if done {
				deleted++
			}
		case inactive(sc):
			done, err = s.markInactive(ctx, sc.NodeID, inactive)
			if done {
				marked++
			}
		}
		if err != nil {
			return marked, deleted, err
		}
	}
	return marked, deleted, nil
}

// purgeExpired deletes a Sidecar and its pending actions if it is still
// expired.
func (s *Service) purgeExpired(ctx context.Context, nodeID string, expired func(Sidecar) bool) (bool, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	sc, found, err := get[Sidecar](ctx, s.st, SidecarsCollection, nodeID)
	if err != nil || !found || !expired(sc) {
		return false, err
	}
	if _, err := s.remove(ctx, SidecarsCollection, nodeID); err != nil {
		return false, err
	}
	if _, err := s.remove(ctx, ActionsCollection, nodeID); err != nil {
		return false, err
	}
	return true, nil
}

// errNotInactive leaves a Sidecar seen meanwhile unchanged.
var errNotInactive = errors.New("sidecars: seen meanwhile")

// markInactive marks a Sidecar's status and its collectors' unknown if it
// is still inactive, atomically with other nodes' writes of it.
func (s *Service) markInactive(ctx context.Context, nodeID string, inactive func(Sidecar) bool) (bool, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	err := s.st.Update(ctx, SidecarsCollection, nodeID, func(doc []byte) ([]byte, error) {
		var sc Sidecar
		if err := json.Unmarshal(doc, &sc); err != nil {
			return nil, fmt.Errorf("sidecars: decoding %s %s: %w", SidecarsCollection, nodeID, err)
		}
		if !inactive(sc) {
			return nil, errNotInactive
		}
		st := sc.NodeDetails.Status
		collectors := make([]CollectorStatus, len(st.Collectors))
		for i, c := range st.Collectors {
			collectors[i] = CollectorStatus{CollectorID: c.CollectorID, Status: StatusUnknown, Message: inactiveMessage}
		}
		sc.NodeDetails.Status = &StatusList{Status: StatusUnknown, Message: inactiveMessage, Collectors: collectors}
		return api.Marshal(sc)
	})
	switch {
	case errors.Is(err, errNotInactive), errors.Is(err, store.ErrNotFound):
		return false, nil
	case err != nil:
		return false, fmt.Errorf("sidecars: saving %s %s: %w", SidecarsCollection, nodeID, err)
	}
	return true, nil
}

// PurgeInterval is how often the leader purges Sidecars (Graylog's ten
// minutes).
const PurgeInterval = 10 * time.Minute

// NodeAssignments are the assignments of one Sidecar.
type NodeAssignments struct {
	NodeID      string       `json:"node_id"`
	Assignments []Assignment `json:"assignments"`
}

// Assign replaces the assignments of each Sidecar named, as Graylog's
// PUT /sidecars/configurations does: a node named twice gets the
// assignments of both entries; each is checked (its collector and
// configuration exist and belong together) before the Sidecar is saved,
// Sidecar by Sidecar.
func (s *Service) Assign(ctx context.Context, nodes []NodeAssignments) error {
	s.mu.Lock()
	defer s.mu.Unlock()
	var order []string
	merged := map[string][]Assignment{}
	for _, n := range nodes {
		if _, seen := merged[n.NodeID]; !seen {
			order = append(order, n.NodeID)
			merged[n.NodeID] = []Assignment{}
		}
		merged[n.NodeID] = append(merged[n.NodeID], n.Assignments...)
	}
	for _, nodeID := range order {
		sc, found, err := get[Sidecar](ctx, s.st, SidecarsCollection, nodeID)
		if err != nil {
			return err
		}
		if !found {
			return api.Errorf(api.NotFound, "Couldn't find collector with ID %s", nodeID)
		}
		for _, a := range merged[nodeID] {
			c, found, err := get[Collector](ctx, s.st, CollectorsCollection, a.CollectorID)
			if err != nil {
				return err
			}
			if !found {
				return api.Errorf(api.NotFound, "Couldn't find collector with ID %s", a.CollectorID)
			}
			conf, found, err := get[Configuration](ctx, s.st, ConfigurationsCollection, a.ConfigurationID)
			if err != nil {
				return err
			}
			if !found {
				return api.Errorf(api.NotFound, "Couldn't find configuration with ID %s", a.ConfigurationID)
			}
			if conf.CollectorID != c.ID {
				return api.Errorf(api.NotFound, "Configuration doesn't match collector ID %s", a.CollectorID)
			}
		}
		sc.Assignments = merged[nodeID]
		if err := s.put(ctx, SidecarsCollection, nodeID, sc); err != nil {
			return err
		}
	}
	return nil
}

// --- Collectors ---

// Collectors returns every collector, in id order.
func (s *Service) Collectors(ctx context.Context) ([]Collector, error) {
	return all[Collector](ctx, s.st, CollectorsCollection)
}

// Collector returns a collector by id.
func (s *Service) Collector(ctx context.Context, id string) (Collector, error) {
	c, found, err := get[Collector](ctx, s.st, CollectorsCollection, id)
	if err == nil && !found {
		err = api.Errorf(api.NotFound, "Cound not find collector <%s>.", id) // sic, Graylog's words
	}
	return c, err
}

var (
	validCollectorName = regexp.MustCompile(`^[A-Za-z0-9_.-]+$`)
	validPath          = regexp.MustCompile(`^[^;*?"<>|&]+$`)
)

// ValidateCollector is Graylog's CollectorResource.validate.
func (s *Service) ValidateCollector(ctx context.Context, c Collector) (*ValidationResult, error) {
	v := newValidation()
	switch {
	case c.Name == "":
		v.add("name", "Collector name cannot be empty.")
	case !validCollectorName.MatchString(c.Name):
		v.add("name", "Collector name can only contain the following characters: A-Z,a-z,0-9,_,-,.")
	}
	switch {
	case c.ExecutablePath == "":
		v.add("executable_path", "Collector binary path cannot be empty.")
	case !validPath.MatchString(c.ExecutablePath):
		v.add("executable_path", "Collector binary path cannot contain the following characters: ; * ? \" < > | &")
	}
	if c.NodeOperatingSystem != "linux" && c.NodeOperatingSystem != "windows" {
		v.add("node_operating_system", "Operating system can only be 'linux' or 'windows'.")
	}
	if !(c.ServiceType == "exec" && (c.NodeOperatingSystem == "linux" || c.NodeOperatingSystem == "windows") ||
		c.ServiceType == "svc" && c.NodeOperatingSystem == "windows") {
		v.add("service_type", "Linux collectors only support 'Foreground execution' while Windows collectors additionally support 'Windows service'.")
	}
	cs, err := s.Collectors(ctx)
	if err != nil {
		return nil, err
	}
	for _, other := range cs {
		if other.Name == c.Name && other.NodeOperatingSystem == c.NodeOperatingSystem && other.ID != c.ID {
			v.add("name", "Collector \""+c.Name+"\" already exists for the \""+other.NodeOperatingSystem+"\" operating system.")
			break
		}
	}
	return v, nil
}

// SaveCollector validates and stores a collector: a new one when id is
// "", else the collector with id, which must exist.
func (s *Service) SaveCollector(ctx context.Context, id string, c Collector) (Collector, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if id == "" {
		id = newID()
	} else if _, err := s.Collector(ctx, id); err != nil {
		return Collector{}, err
	}
	c.ID = id
	v, err := s.ValidateCollector(ctx, c)
	if err != nil {
		return Collector{}, err
	}
	if err := v.err(); err != nil {
		return Collector{}, err
	}
	return c, s.put(ctx, CollectorsCollection, id, c)
}

// CopyCollector stores a copy of a collector under a new name.
func (s *Service) CopyCollector(ctx context.Context, id, name string) error {
	c, err := s.Collector(ctx, id)
	if err != nil {
		return err
	}
	c.Name = name
	_, err = s.SaveCollector(ctx, "", c)
	return err
}

// DeleteCollector deletes a collector no configuration uses; deleted is
// false when there was none.
func (s *Service) DeleteCollector(ctx context.Context, id string) (deleted bool, err error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	confs, err := s.Configurations(ctx)
	if err != nil {
		return false, err
	}
	for _, c := range confs {
		if c.CollectorID == id {
			return false, api.Errorf(api.Invalid, "Collector still in use, cannot delete.")
		}
	}
	return s.remove(ctx, CollectorsCollection, id)
}

// --- Configurations ---

// Configurations returns every configuration, in id order.
func (s *Service) Configurations(ctx context.Context) ([]Configuration, error) {
	return all[Configuration](ctx, s.st, ConfigurationsCollection)
}

// Configuration returns a configuration by id.
func (s *Service) Configuration(ctx context.Context, id string) (Configuration, error) {
	c, found, err := get[Configuration](ctx, s.st, ConfigurationsCollection, id)
	if err == nil && !found {
		err = api.Errorf(api.NotFound, "Could not find Configuration <%s>.", id)
	}
	return c, err
}

var validConfigurationName = regexp.MustCompile(`^[^;*?"<>|&]+$`)

// ValidateConfiguration is Graylog's ConfigurationResource.validate.
func (s *Service) ValidateConfiguration(ctx context.Context, c Configuration) (*ValidationResult, error) {
	v := newValidation()
	confs, err := s.Configurations(ctx)
	if err != nil {
		return nil, err
	}
	for _, other := range confs {
		if other.Name == c.Name && other.ID != c.ID {
			v.add("name", "Configuration \""+c.Name+"\" already exists")
			break
		}
	}
	switch {
	case c.Name == "":
		v.add("name", "Configuration name cannot be empty.")
	case !validConfigurationName.MatchString(c.Name):
		v.add("name", "Configuration name can not include the following characters: ; * ? \" < > | &")
	}
	if c.CollectorID == "" {
		v.add("collector_id", "Associated collector ID cannot be empty.")
	}
	if c.Color == "" {
		v.add("color", "Collector color cannot be empty.")
	}
	if c.Template == "" {
		v.add("template", "Collector template cannot be empty.")
	}
	if _, err := s.Preview(ctx, c.Template); err != nil {
		var re *renderError
		if !errors.As(err, &re) {
			return nil, err
		}
		v.add("template", "Template error: "+re.msg)
	}
	return v, nil
}

// SaveConfiguration validates and stores a configuration: a new one when
// id is "", else the configuration with id, which must exist and may change
// its collector only while no Sidecar has it assigned.
func (s *Service) SaveConfiguration(ctx context.Context, id string, c Configuration) (Configuration, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if id == "" {
		id = newID()
	} else {
		old, err := s.Configuration(ctx, id)
		if err != nil {
			return Configuration{}, err
		}
		if old.CollectorID != c.CollectorID {
			using, err := s.sidecarsUsing(ctx, id)
			if err != nil {
				return Configuration{}, err
			}
			if len(using) > 0 {
				return Configuration{}, api.Errorf(api.Invalid, "Configuration still in use, cannot change collector type.")
			}
		}
	}
	c.ID = id
	v, err := s.ValidateConfiguration(ctx, c)
	if err != nil {
		return Configuration{}, err
	}
	if err := v.err(); err != nil {
		return Configuration{}, err
	}
	return c, s.put(ctx, ConfigurationsCollection, id, c)
}

// CopyConfiguration stores a copy of a configuration under a new name.
func (s *Service) CopyConfiguration(ctx context.Context, id, name string) error {
	c, err := s.Configuration(ctx, id)
	if err != nil {
		return err
	}
	c.Name = name
	_, err = s.SaveConfiguration(ctx, "", c)
	return err
}

// DeleteConfiguration deletes a configuration no Sidecar has assigned;
// deleted is false when there was none.
func (s *Service) DeleteConfiguration(ctx context.Context, id string) (deleted bool, err error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	using, err := s.sidecarsUsing(ctx, id)
	if err != nil {
		return false, err
	}
	if len(using) > 0 {
		return false, api.Errorf(api.Invalid, "Configuration still in use, cannot delete.")
	}
	return s.remove(ctx, ConfigurationsCollection, id)
}

// sidecarsUsing returns the Sidecars that have the configuration assigned.
func (s *Service) sidecarsUsing(ctx context.Context, configurationID string) ([]Sidecar, error) {
	scs, err := s.Sidecars(ctx)
	if err != nil {
		return nil, err
	}
	var out []Sidecar
	for _, sc := range scs {
		for _, a := range sc.Assignments {
			if a.ConfigurationID == configurationID {
				out = append(out, sc)
				break
			}
		}
	}
	return out, nil
}

// ConfigurationSidecars returns the ids (the documents' ids, not the node
// ids, as in Graylog) of the Sidecars that have the configuration assigned.
func (s *Service) ConfigurationSidecars(ctx context.Context, id string) ([]string, error) {
	if _, err := s.Configuration(ctx, id); err != nil {
		return nil, err
	}
	using, err := s.sidecarsUsing(ctx, id)
	if err != nil {
		return nil, err
	}
	ids := make([]string, len(using))
	for i, sc := range using {
		ids[i] = sc.ID
	}
	return ids, nil
}

// userScope returns the configuration variables by name.
func (s *Service) userScope(ctx context.Context) (map[string]string, error) {
	vs, err := s.Variables(ctx)
	if err != nil {
		return nil, err
	}
	out := make(map[string]string, len(vs))
	for _, v := range vs {
		out[v.Name] = v.Content
	}
	return out, nil
}

// Render renders a configuration for a Sidecar: its template with the
// Sidecar's variables and the configuration variables.
func (s *Service) Render(ctx context.Context, nodeID, configurationID string) (Configuration, error) {
	sc, found, err := get[Sidecar](ctx, s.st, SidecarsCollection, nodeID)
	if err != nil {
		return Configuration{}, err
	}
	if !found {
		return Configuration{}, api.Errorf(api.NotFound, "Couldn't find Sidecar by ID: %s", nodeID)
	}
	c, found, err := get[Configuration](ctx, s.st, ConfigurationsCollection, configurationID)
	if err != nil {
		return Configuration{}, err
	}
	if !found {
		return Configuration{}, api.Errorf(api.NotFound, "Couldn't find configuration by ID: %s", configurationID)
	}
	user, err := s.userScope(ctx)
	if err != nil {
		return Configuration{}, err
	}
	out, err := render(c.ID, c.Template, scope{"sidecar": {
		"nodeId": sc.NodeID, "nodeName": sc.NodeName, "sidecarVersion": sc.SidecarVersion,
		"operatingSystem": sc.NodeDetails.OperatingSystem,
	}, "user": user})
	if err != nil {
		var re *renderError
		if errors.As(err, &re) {
			return Configuration{}, api.Errorf(api.Invalid, "Could not render configuration %s: %s", c.ID, re.msg)
		}
		return Configuration{}, err
	}
	c.Template = out
	return c, nil
}

// Preview renders a template with placeholders for the Sidecar's
// variables, as Graylog's preview and validation do. A template that does
// not render is a *renderError.
func (s *Service) Preview(ctx context.Context, template string) (string, error) {
	user, err := s.userScope(ctx)
	if err != nil {
		return "", err
	}
	return render(newUUID(), template, scope{"sidecar": {
		"nodeId": "<node id>", "nodeName": "<node name>", "sidecarVersion": "<version>",
		"operatingSystem": "<operating system>",
	}, "user": user})
}

// newUUID returns a random UUID, the name Graylog gives a previewed
// template.
func newUUID() string {
	id := primitive.NewObjectID()
	h := fmt.Sprintf("%x%x", id[:], id[:4])
	return h[0:8] + "-" + h[8:12] + "-4" + h[13:16] + "-8" + h[17:20] + "-" + h[20:32]
}

// --- Configuration variables ---

// Variables returns every configuration variable, sorted by name.
func (s *Service) Variables(ctx context.Context) ([]Variable, error) {
	vs, err := all[Variable](ctx, s.st, VariablesCollection)
	if err != nil {
		return nil, err
	}
	sortBy(vs, func(v Variable) string { return v.Name })
	return vs, nil
}

// Variable returns a configuration variable by id.
func (s *Service) Variable(ctx context.Context, id string) (Variable, error) {
	v, found, err := get[Variable](ctx, s.st, VariablesCollection, id)
	if err == nil && !found {
		err = api.Errorf(api.NotFound, "Could not find ConfigurationVariable <%s>.", id)
	}
	return v, err
}

var (
	validVariableName   = regexp.MustCompile(`^[A-Za-z0-9_]+$`)
	invalidVariableName = regexp.MustCompile(`^[0-9]`)
)

// ValidateVariable is Graylog's validateConfigurationVariableHelper; id is
// the variable's own id ("" for a new one), so that its own name is no
// conflict.
func (s *Service) ValidateVariable(ctx context.Context, id string, v Variable) (*ValidationResult, error) {
	r := newValidation()
	switch {
	case v.Name == "":
		r.add("name", "Variable name can not be empty.")
	case !validVariableName.MatchString(v.Name):
		r.add("name", "Variable name can only contain the following characters: A-Z,a-z,0-9,_")
	case invalidVariableName.MatchString(v.Name):
		r.add("name", "Variable name can not start with numbers.")
	}
	vs, err := s.Variables(ctx)
	if err != nil {
		return nil, err
	}
	for _, other := range vs {
		if other.Name == v.Name && other.ID != id {
			r.add("name", "A variable with that name already exists.")
			break
		}
	}
	if v.Content == "" {
		r.add("content", "Variable content can not be empty.")
	}
	return r, nil
}

// SaveVariable validates and stores a variable: a new one when id is "",
// else the variable with id, which must exist. A renamed variable is
// renamed in the templates that use it too.
func (s *Service) SaveVariable(ctx context.Context, id string, v Variable) (Variable, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	var old Variable
	if id != "" {
		var err error
		if old, err = s.Variable(ctx, id); err != nil {
			return Variable{}, err
		}
	}
	r, err := s.ValidateVariable(ctx, id, v)
	if err != nil {
		return Variable{}, err
	}
	if err := r.err(); err != nil {
		return Variable{}, err
	}
	if id == "" {
		id = newID()
	} else if old.Name != v.Name {
		confs, err := s.VariableConfigurations(ctx, old)
		if err != nil {
			return Variable{}, err
		}
		for _, c := range confs {
			c.Template = strings.ReplaceAll(c.Template, old.fullName(), v.fullName())
			if err := s.put(ctx, ConfigurationsCollection, c.ID, c); err != nil {
				return Variable{}, err
			}
		}
	}
	v.ID = id
	return v, s.put(ctx, VariablesCollection, id, v)
}

// VariableConfigurations returns the configurations whose template names
// the variable.
func (s *Service) VariableConfigurations(ctx context.Context, v Variable) ([]Configuration, error) {
	confs, err := s.Configurations(ctx)
	if err != nil {
		return nil, err
	}
	out := []Configuration{}
	for _, c := range confs {
		if strings.Contains(c.Template, v.fullName()) {
			out = append(out, c)
		}
	}
	return out, nil
}

// DeleteVariable deletes a variable no template uses; deleted is false
// when there was none.
func (s *Service) DeleteVariable(ctx context.Context, id string) (deleted bool, err error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	v, err := s.Variable(ctx, id)
	if err != nil {
		return false, err
	}
	confs, err := s.VariableConfigurations(ctx, v)
	if err != nil {
		return false, err
	}
	if len(confs) > 0 {
		names := make([]string, len(confs))
		for i, c := range confs {
			names[i] = c.Name
		}
		r := newValidation()
		r.add("name", "Variable is still used in the following configurations: "+strings.Join(names, ", "))
		return false, r.err()
	}
	return s.remove(ctx, VariablesCollection, id)
}

// --- Actions ---

// PendingActions returns the actions pending for a Sidecar.
func (s *Service) PendingActions(ctx context.Context, sidecarID string) ([]Action, error) {
	a, _, err := get[Actions](ctx, s.st, ActionsCollection, sidecarID)
	if a.Action == nil {
		a.Action = []Action{}
	}
	return a.Action, err
}

// AddActions queues actions for a Sidecar: each replaces the pending action
// of its collector, others stay.
func (s *Service) AddActions(ctx context.Context, sidecarID string, actions []Action) error {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.addActions(ctx, sidecarID, actions)
}

func (s *Service) addActions(ctx context.Context, sidecarID string, actions []Action) error {
	a, found, err := get[Actions](ctx, s.st, ActionsCollection, sidecarID)
	if err != nil {
		return err
	}
	if !found {
		a = Actions{ID: newID(), SidecarID: sidecarID}
	}
	named := map[string]bool{}
	for _, n := range actions {
		named[n.CollectorID] = true
	}
	kept := []Action{}
	for _, old := range a.Action {
		if !named[old.CollectorID] {
			kept = append(kept, old)
		}
	}
	a.Action = append(kept, actions...)
	a.Created = api.Time{Time: s.now().UTC()}
	return s.put(ctx, ActionsCollection, sidecarID, a)
}

// BulkAction is one Sidecar's part of a bulk action.
type BulkAction struct {
	SidecarID    string   `json:"sidecar_id"`
	CollectorIDs []string `json:"collector_ids"`
}

// AddBulkAction queues action ("start", "stop", "restart") for the
// collectors named on each Sidecar named.
func (s *Service) AddBulkAction(ctx context.Context, action string, bulk []BulkAction) error {
	s.mu.Lock()
	defer s.mu.Unlock()
	for _, b := range bulk {
		actions := make([]Action, len(b.CollectorIDs))
		for i, id := range b.CollectorIDs {
			actions[i] = Action{CollectorID: id, Properties: map[string]any{action: true}}
		}
		if err := s.addActions(ctx, b.SidecarID, actions); err != nil {
			return err
		}
	}
	return nil
}
