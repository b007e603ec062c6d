package contentpacks

import (
	"context"
	"encoding/json"
	"fmt"

	"github.com/loggate/loggate/backend/logs/lookup"
	"github.com/loggate/loggate/router/api"
)

// The lookup table entity types.
var (
	LookupAdapterV1 = ModelType{Name: "lookup_adapter", Version: "1"}
	LookupCacheV1   = ModelType{Name: "lookup_cache", Version: "1"}
	LookupTableV1   = ModelType{Name: "lookup_table", Version: "1"}
)

// Lookup is what content packs need of the lookup tables, their caches
// and their data adapters.
type Lookup interface {
	Tables() []lookup.Table
	Caches() []lookup.Component
	Adapters() []lookup.Component
	Table(ctx context.Context, idOrName string) (lookup.Table, error)
	Component(ctx context.Context, k lookup.Kind, idOrName string) (lookup.Component, error)
	CreateTable(ctx context.Context, t lookup.Table) (lookup.Table, error)
	CreateComponent(ctx context.Context, k lookup.Kind, c lookup.Component) (lookup.Component, error)
	DeleteTable(ctx context.Context, idOrName string, check func(id string) error) (lookup.Table, error)
	DeleteComponent(ctx context.Context, k lookup.Kind, idOrName string, check func(id string) error) (lookup.Component, error)
}

// anyone is the permission check of deletes an installation makes.
func anyone(string) error { return nil }

// notFound reports whether err is a 404.
func notFound(err error) bool { return api.ErrorCode(err) == api.NotFound }

// --- lookup_adapter, lookup_cache

// componentFacade is Graylog's LookupDataAdapterFacade or LookupCacheFacade.
type componentFacade struct {
	l   Lookup
	k   lookup.Kind
	t   ModelType
	all func() []lookup.Component
}

// componentData is Graylog's LookupDataAdapterEntity and LookupCacheEntity.
type componentData struct {
	Name          *ValueRef       `json:"name"`
	Title         *ValueRef       `json:"title"`
	Description   *ValueRef       `json:"description"`
	Configuration json.RawMessage `json:"configuration"`
}

// existing is the component of the entity's name (or id), as Graylog finds
// it.
func (f componentFacade) existing(ctx context.Context, data json.RawMessage, p install) (*native, error) {
	var d componentData
	if err := decodeData(data, &d); err != nil {
		return nil, err
	}
	name, err := p.str(d.Name, "name", "")
	if err != nil || name == "" {
		return nil, err
	}
	c, err := f.l.Component(ctx, f.k, name)
	if notFound(err) {
		return nil, nil
	}
	if err != nil {
		return nil, err
	}
	return &native{id: c.ID, title: c.Title}, nil
}

func (f componentFacade) create(ctx context.Context, data json.RawMessage, p install, _ string) (native, error) {
	var d componentData
	if err := decodeData(data, &d); err != nil {
		return native{}, err
	}
	var c lookup.Component
	var err error
	if c.Name, err = p.str(d.Name, "name", ""); err != nil {
		return native{}, err
	}
	if c.Title, err = p.str(d.Title, "title", ""); err != nil {
		return native{}, err
	}
	if c.Description, err = p.str(d.Description, "description", ""); err != nil {
		return native{}, err
	}
	if c.Config, err = p.value(d.Configuration); err != nil {
		return native{}, fmt.Errorf("configuration: %w", err)
	}
	c, err = f.l.CreateComponent(ctx, f.k, c)
	if err != nil {
		return native{}, err
	}
	return native{id: c.ID, title: c.Title}, nil
}

func (f componentFacade) exists(ctx context.Context, id string) bool {
	_, err := f.l.Component(ctx, f.k, id)
	return err == nil
}

func (f componentFacade) remove(ctx context.Context, id string) error {
	_, err := f.l.DeleteComponent(ctx, f.k, id, anyone)
	return err
}

func (f componentFacade) excerpts(context.Context) ([]Excerpt, error) {
	var out []Excerpt
	for _, c := range f.all() {
		out = append(out, Excerpt{ID: c.ID, Type: f.t, Title: c.Title})
	}
	return out, nil
}

func (f componentFacade) export(ctx context.Context, id string, _ exportIDs) (any, error) {
	c, err := f.l.Component(ctx, f.k, id)
	if err != nil {
		return nil, err
	}
	cfg, err := refsOf(c.Config)
	if err != nil {
		return nil, err
	}
	cfgRaw, err := json.Marshal(cfg)
	if err != nil {
		return nil, err
	}
	return componentData{Name: ref(c.Name), Title: ref(c.Title), Description: ref(c.Description), Configuration: cfgRaw}, nil
}

// --- lookup_table

// tableFacade is Graylog's LookupTableFacade.
type tableFacade struct{ l Lookup }

// tableData is Graylog's LookupTableEntity: its cache and data adapter are
// the ids of pack entities.
type tableData struct {
	Name                   *ValueRef `json:"name"`
	Title                  *ValueRef `json:"title"`
	Description            *ValueRef `json:"description"`
	CacheName              *ValueRef `json:"cache_name"`
	DataAdapterName        *ValueRef `json:"data_adapter_name"`
	DefaultSingleValue     *ValueRef `json:"default_single_value"`
	DefaultSingleValueType *ValueRef `json:"default_single_value_type"`
	DefaultMultiValue      *ValueRef `json:"default_multi_value"`
	DefaultMultiValueType  *ValueRef `json:"default_multi_value_type"`
}

// existing is the table of the entity's name (or id); another title is
// refused, as in Graylog.
func (f tableFacade) existing(ctx context.Context, data json.RawMessage, p install) (*native, error) {
	var d tableData
	if err := decodeData(data, &d); err != nil {
		return nil, err
	}
	name, err := p.str(d.Name, "name", "")
	if err != nil || name == "" {
		return nil, err
	}
	title, err := p.str(d.Title, "title", "")
	if err != nil {
		return nil, err
	}
	t, err := f.l.Table(ctx, name)
	if notFound(err) {
		return nil, nil
	}
	if err != nil {
		return nil, err
	}
	if t.Name != name || t.Title != title {
		// Graylog's DivergingEntityConfigurationException.
		return nil, fmt.Errorf("different lookup table configuration with name %q", name)
	}
	return &native{id: t.ID, title: t.Title}, nil
}

func (f tableFacade) create(ctx context.Context, data json.RawMessage, p install, _ string) (native, error) {
	var d tableData
	if err := decodeData(data, &d); err != nil {
		return native{}, err
	}
	var t lookup.Table
	var err error
	strs := []struct {
		dst  *string
		v    *ValueRef
		what string
	}{
		{&t.Name, d.Name, "name"}, {&t.Title, d.Title, "title"}, {&t.Description, d.Description, "description"},
		{&t.DefaultSingleValue, d.DefaultSingleValue, "default_single_value"},
		{&t.DefaultSingleValueType, d.DefaultSingleValueType, "default_single_value_type"},
		{&t.DefaultMultiValue, d.DefaultMultiValue, "default_multi_value"},
		{&t.DefaultMultiValueType, d.DefaultMultiValueType, "default_multi_value_type"},
	}
	for _, s := range strs {
		if *s.dst, err = p.str(s.v, s.what, ""); err != nil {
			return native{}, err
		}
	}
	adapter, err := p.str(d.DataAdapterName, "data_adapter_name", "")
	if err != nil {
		return native{}, err
	}
	var ok bool
	if t.DataAdapterID, ok = p.natives[Descriptor{ID: adapter, Type: LookupAdapterV1}]; !ok {
		return native{}, fmt.Errorf("missing data adapter %q for lookup table %s", adapter, t.Name)
	}
	cache, err := p.str(d.CacheName, "cache_name", "")
	if err != nil {
		return native{}, err
	}
	if t.CacheID, ok = p.natives[Descriptor{ID: cache, Type: LookupCacheV1}]; !ok {
		return native{}, fmt.Errorf("missing cache %q for lookup table %s", cache, t.Name)
	}
	t, err = f.l.CreateTable(ctx, t)
	if err != nil {
		return native{}, err
	}
	return native{id: t.ID, title: t.Title}, nil
}

func (f tableFacade) exists(ctx context.Context, id string) bool {
	_, err := f.l.Table(ctx, id)
	return err == nil
}

func (f tableFacade) remove(ctx context.Context, id string) error {
	_, err := f.l.DeleteTable(ctx, id, anyone)
	return err
}

func (f tableFacade) excerpts(context.Context) ([]Excerpt, error) {
	var out []Excerpt
	for _, t := range f.l.Tables() {
		out = append(out, Excerpt{ID: t.ID, Type: LookupTableV1, Title: t.Title})
	}
	return out, nil
}

func (f tableFacade) dependencies(ctx context.Context, id string) ([]Descriptor, error) {
	t, err := f.l.Table(ctx, id)
	if err != nil {
		return nil, err
	}
	return []Descriptor{{ID: t.DataAdapterID, Type: LookupAdapterV1}, {ID: t.CacheID, Type: LookupCacheV1}}, nil
}

func (f tableFacade) export(ctx context.Context, id string, ids exportIDs) (any, error) {
	t, err := f.l.Table(ctx, id)
	if err != nil {
		return nil, err
	}
	cache, ok := ids[Descriptor{ID: t.CacheID, Type: LookupCacheV1}]
	if !ok {
		return nil, fmt.Errorf("couldn't find lookup cache entity %s", t.CacheID)
	}
	adapter, ok := ids[Descriptor{ID: t.DataAdapterID, Type: LookupAdapterV1}]
	if !ok {
		return nil, fmt.Errorf("couldn't find lookup data adapter entity %s", t.DataAdapterID)
	}
	return tableData{
		Name: ref(t.Name), Title: ref(t.Title), Description: ref(t.Description),
		CacheName: ref(cache), DataAdapterName: ref(adapter),
		DefaultSingleValue: ref(t.DefaultSingleValue), DefaultSingleValueType: ref(t.DefaultSingleValueType),
		DefaultMultiValue: ref(t.DefaultMultiValue), DefaultMultiValueType: ref(t.DefaultMultiValueType),
	}, nil
}
