package contentpacks

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"sort"
	"strings"

	"github.com/loggate/loggate/backend/system/sidecars"
	"github.com/loggate/loggate/router/api"
)

// The Sidecar entity types.
var (
	SidecarCollectorV1              = ModelType{Name: "sidecar_collector", Version: "1"}
	SidecarCollectorConfigurationV1 = ModelType{Name: "sidecar_collector_configuration", Version: "1"}
)

// Sidecars is what content packs need of the Sidecar collectors and their
// configurations.
type Sidecars interface {
	Collectors(ctx context.Context) ([]sidecars.Collector, error)
	Collector(ctx context.Context, id string) (sidecars.Collector, error)
	SaveCollector(ctx context.Context, id string, c sidecars.Collector) (sidecars.Collector, error)
	DeleteCollector(ctx context.Context, id string) (deleted bool, err error)
	Configurations(ctx context.Context) ([]sidecars.Configuration, error)
	Configuration(ctx context.Context, id string) (sidecars.Configuration, error)
	SaveConfiguration(ctx context.Context, id string, c sidecars.Configuration) (sidecars.Configuration, error)
	DeleteConfiguration(ctx context.Context, id string) (deleted bool, err error)
}

// validationError words a failed Sidecar validation, whose 400 carries
// its fields' errors as its body, as one message.
func validationError(err error) error {
	var ae *api.Error
	if !errors.As(err, &ae) {
		return err
	}
	v, ok := ae.Body.(*sidecars.ValidationResult)
	if !ok || v == nil || !v.Failed {
		return err
	}
	fields := make([]string, 0, len(v.Errors))
	for f := range v.Errors {
		fields = append(fields, f)
	}
	sort.Strings(fields)
	var msgs []string
	for _, f := range fields {
		msgs = append(msgs, f+": "+strings.Join(v.Errors[f], " "))
	}
	return api.Wrap(api.Invalid, ae.Message+": "+strings.Join(msgs, "; "), err)
}

// --- sidecar_collector

// collectorFacade is Graylog's SidecarCollectorFacade.
type collectorFacade struct{ s Sidecars }

// collectorData is Graylog's SidecarCollectorEntity.
type collectorData struct {
	Name                 *ValueRef `json:"name"`
	ServiceType          *ValueRef `json:"service_type"`
	NodeOperatingSystem  *ValueRef `json:"node_operating_system"`
	ExecutablePath       *ValueRef `json:"executable_path"`
	ExecuteParameters    *ValueRef `json:"execute_parameters"`
	ValidationParameters *ValueRef `json:"validation_parameters"`
	DefaultTemplate      *ValueRef `json:"default_template"`
}

// existing is the collector of the entity's name and operating system, as
// Graylog's findExisting.
func (f collectorFacade) existing(ctx context.Context, data json.RawMessage, p install) (*native, error) {
	var d collectorData
	if err := decodeData(data, &d); err != nil {
		return nil, err
	}
	name, err := p.str(d.Name, "name", "")
	if err != nil {
		return nil, err
	}
	os, err := p.str(d.NodeOperatingSystem, "node_operating_system", "")
	if err != nil {
		return nil, err
	}
	all, err := f.s.Collectors(ctx)
	if err != nil {
		return nil, err
	}
	for _, c := range all {
		if c.Name == name && c.NodeOperatingSystem == os {
			return &native{id: c.ID, title: c.Name}, nil
		}
	}
	return nil, nil
}

func (f collectorFacade) create(ctx context.Context, data json.RawMessage, p install, _ string) (native, error) {
	var d collectorData
	if err := decodeData(data, &d); err != nil {
		return native{}, err
	}
	var c sidecars.Collector
	var err error
	for _, s := range []struct {
		dst  *string
		v    *ValueRef
		what string
	}{
		{&c.Name, d.Name, "name"}, {&c.ServiceType, d.ServiceType, "service_type"},
		{&c.NodeOperatingSystem, d.NodeOperatingSystem, "node_operating_system"},
		{&c.ExecutablePath, d.ExecutablePath, "executable_path"},
	} {
		if *s.dst, err = p.str(s.v, s.what, ""); err != nil {
			return native{}, err
		}
	}
	if c.ExecuteParameters, err = optional(p, d.ExecuteParameters, "execute_parameters"); err != nil {
		return native{}, err
	}
	if c.ValidationParameters, err = optional(p, d.ValidationParameters, "validation_parameters"); err != nil {
		return native{}, err
	}
	if c.DefaultTemplate, err = optional(p, d.DefaultTemplate, "default_template"); err != nil {
		return native{}, err
	}
	c, err = f.s.SaveCollector(ctx, "", c)
	if err != nil {
		return native{}, validationError(err)
	}
	return native{id: c.ID, title: c.Name}, nil
}

func (f collectorFacade) exists(ctx context.Context, id string) bool {
	_, err := f.s.Collector(ctx, id)
	return err == nil
}

// remove deletes the collector, refused while a configuration uses it.
func (f collectorFacade) remove(ctx context.Context, id string) error {
	_, err := f.s.DeleteCollector(ctx, id)
	return err
}

func (f collectorFacade) excerpts(ctx context.Context) ([]Excerpt, error) {
	all, err := f.s.Collectors(ctx)
	if err != nil {
		return nil, err
	}
	var out []Excerpt
	for _, c := range all {
		out = append(out, Excerpt{ID: c.ID, Type: SidecarCollectorV1, Title: c.Name})
	}
	return out, nil
}

func (f collectorFacade) export(ctx context.Context, id string, _ exportIDs) (any, error) {
	c, err := f.s.Collector(ctx, id)
	if err != nil {
		return nil, err
	}
	return collectorData{
		Name: ref(c.Name), ServiceType: ref(c.ServiceType), NodeOperatingSystem: ref(c.NodeOperatingSystem),
		ExecutablePath: ref(c.ExecutablePath), ExecuteParameters: refOrNull(c.ExecuteParameters),
		ValidationParameters: refOrNull(c.ValidationParameters), DefaultTemplate: refOrNull(c.DefaultTemplate),
	}, nil
}

// --- sidecar_collector_configuration

// configurationFacade is Graylog's SidecarCollectorConfigurationFacade.
type configurationFacade struct{ s Sidecars }

// configurationData is Graylog's SidecarCollectorConfigurationEntity: its
// collector is the id of a pack entity.
type configurationData struct {
	CollectorID *ValueRef `json:"collector_id"`
	Title       *ValueRef `json:"title"`
	Color       *ValueRef `json:"color"`
	Template    *ValueRef `json:"template"`
}

// existing finds nothing: Graylog always creates a configuration.
func (f configurationFacade) existing(context.Context, json.RawMessage, install) (*native, error) {
	return nil, nil
}

// create stores the configuration for the collector the pack's collector
// entity became (installed or found on the system); Graylog reads the
// reference as a collector id, so the id of a collector of this server is
// taken too.
func (f configurationFacade) create(ctx context.Context, data json.RawMessage, p install, _ string) (native, error) {
	var d configurationData
	if err := decodeData(data, &d); err != nil {
		return native{}, err
	}
	collector, err := p.str(d.CollectorID, "collector_id", "")
	if err != nil {
		return native{}, err
	}
	var c sidecars.Configuration
	var ok bool
	if c.CollectorID, ok = p.natives[Descriptor{ID: collector, Type: SidecarCollectorV1}]; !ok {
		if _, err := f.s.Collector(ctx, collector); err != nil {
			return native{}, fmt.Errorf("missing collector %q for the sidecar collector configuration", collector)
		}
		c.CollectorID = collector
	}
	for _, s := range []struct {
		dst  *string
		v    *ValueRef
		what string
	}{{&c.Name, d.Title, "title"}, {&c.Color, d.Color, "color"}, {&c.Template, d.Template, "template"}} {
		if *s.dst, err = p.str(s.v, s.what, ""); err != nil {
			return native{}, err
		}
	}
	c, err = f.s.SaveConfiguration(ctx, "", c)
	if err != nil {
		return native{}, validationError(err)
	}
	return native{id: c.ID, title: c.Name}, nil
}

func (f configurationFacade) exists(ctx context.Context, id string) bool {
	_, err := f.s.Configuration(ctx, id)
	return err == nil
}

// remove deletes the configuration, refused while a Sidecar has it
// assigned.
func (f configurationFacade) remove(ctx context.Context, id string) error {
	_, err := f.s.DeleteConfiguration(ctx, id)
	return err
}

func (f configurationFacade) excerpts(ctx context.Context) ([]Excerpt, error) {
	all, err := f.s.Configurations(ctx)
	if err != nil {
		return nil, err
	}
	var out []Excerpt
	for _, c := range all {
		out = append(out, Excerpt{ID: c.ID, Type: SidecarCollectorConfigurationV1, Title: c.Name})
	}
	return out, nil
}

// dependencies are the configuration's collector (Graylog's
// resolveNativeEntity).
func (f configurationFacade) dependencies(ctx context.Context, id string) ([]Descriptor, error) {
	c, err := f.s.Configuration(ctx, id)
	if err != nil {
		return nil, err
	}
	return []Descriptor{{ID: c.CollectorID, Type: SidecarCollectorV1}}, nil
}

func (f configurationFacade) export(ctx context.Context, id string, ids exportIDs) (any, error) {
	c, err := f.s.Configuration(ctx, id)
	if err != nil {
		return nil, err
	}
	collector, ok := ids[Descriptor{ID: c.CollectorID, Type: SidecarCollectorV1}]
	if !ok {
		return nil, fmt.Errorf("couldn't find sidecar collector entity %s", c.CollectorID)
	}
	return configurationData{CollectorID: ref(collector), Title: ref(c.Name), Color: ref(c.Color), Template: ref(c.Template)}, nil
}
