package lookup

import (
	"context"
	"encoding/json"
	"strings"

	"github.com/loggate/loggate/router/api"
)

// Kind names caches or data adapters: their collection, their types and
// the words of their answers.
type Kind struct {
	coll  string
	kinds map[string]kind
	what  string // "cache", "data adapter"
	// usedBy reports whether a table uses the component with that id.
	usedBy func(t Table, id string) bool
}

// Caches and Adapters are the two kinds of components.
var (
	Caches = Kind{coll: CachesCollection, kinds: cacheKinds, what: "cache",
		usedBy: func(t Table, id string) bool { return t.CacheID == id }}
	Adapters = Kind{coll: AdaptersCollection, kinds: adapterKinds, what: "data adapter",
		usedBy: func(t Table, id string) bool { return t.DataAdapterID == id }}
)

// Types are the kind's types' descriptors.
func (k Kind) Types() map[string]any { return descriptors(k.kinds) }

// normalize checks a component and returns it with its config as its
// type reads it, defaults included.
func (k Kind) normalize(c Component) (Component, error) {
	if err := required([2]string{"title", c.Title}, [2]string{"name", c.Name}); err != nil {
		return c, err
	}
	_, cfg, err := decodeConfig(c.Config, k.kinds, k.what)
	if err != nil {
		return c, err
	}
	if c.Config, err = json.Marshal(cfg); err != nil {
		return c, err
	}
	return c, nil
}

// Component returns a stored component by id or name.
func (s *Service) Component(ctx context.Context, k Kind, idOrName string) (Component, error) {
	return find[Component](ctx, s.st, k.coll, idOrName, notFound)
}

// CreateComponent stores a new cache or data adapter.
func (s *Service) CreateComponent(ctx context.Context, k Kind, c Component) (Component, error) {
	c, err := k.normalize(c)
	if err != nil {
		return Component{}, err
	}
	if err := s.checkRemote(ctx, k, c, nil); err != nil {
		return Component{}, err
	}
	c.ID = newID()
	if err := s.save(ctx, k.coll, k.what, c.ID, c.Name, c, true); err != nil {
		return Component{}, err
	}
	return c, nil
}

// mismatch is the answer to an update whose body names another entity
// than its path.
func mismatch(idOrName string) error {
	return api.Errorf(api.Invalid, "URL parameter <%s> does not match parameter in request body", idOrName)
}

// UpdateComponent replaces a stored cache or data adapter; the body's id
// or name must be the path's.
func (s *Service) UpdateComponent(ctx context.Context, k Kind, idOrName string, c Component) (Component, error) {
	if idOrName != c.ID && idOrName != c.Name {
		return Component{}, mismatch(idOrName)
	}
	c, err := k.normalize(c)
	if err != nil {
		return Component{}, err
	}
	if err := s.checkRemote(ctx, k, c, nil); err != nil {
		return Component{}, err
	}
	if c.ID == "" {
		cur, err := s.Component(ctx, k, idOrName)
		if err != nil {
			return Component{}, err
		}
		c.ID = cur.ID
	}
	if err := s.save(ctx, k.coll, k.what, c.ID, c.Name, c, false); err != nil {
		return Component{}, err
	}
	return c, nil
}

// DeleteComponent removes a cache or data adapter no table uses; check
// is the caller's permission check, run once it is found.
func (s *Service) DeleteComponent(ctx context.Context, k Kind, idOrName string, check func(id string) error) (Component, error) {
	c, err := s.Component(ctx, k, idOrName)
	if err != nil {
		return Component{}, err
	}
	if err := check(c.ID); err != nil {
		return Component{}, err
	}
	if err := s.Reload(ctx); err != nil {
		return Component{}, err
	}
	for _, t := range s.Tables() {
		if k.usedBy(t, c.ID) {
			word := "adapter"
			if k.what == "cache" {
				word = "cache"
			}
			return Component{}, api.Errorf(api.Invalid, "The %s is still in use, cannot delete.", word)
		}
	}
	if err := s.st.Delete(ctx, k.coll, c.ID); err != nil {
		return Component{}, err
	}
	s.changed(ctx)
	return c, nil
}

// ValidateComponent is the validate endpoint: the name must be free (or
// the body's own), the config must be one loggate runs and, for a file,
// readable.
func (s *Service) ValidateComponent(ctx context.Context, k Kind, c Component) (map[string][]string, error) {
	var v api.ValidationError
	if c.Name != "" {
		cur, err := find[Component](ctx, s.st, k.coll, c.Name, notFound)
		if err == nil && cur.ID != c.ID {
			v.Add("name", "The %s name is already in use.", k.what)
		} else if err != nil && err != notFound {
			return nil, err
		}
	}
	_, cfg, err := parseConfig(c.Config, k.kinds, k.what)
	if err != nil {
		// An unknown or refused type is a 400, as a create of it is.
		return nil, err
	}
	cfg.check(&v)
	if mv, ok := cfg.(validator); ok {
		mv.validate(&v)
	}
	if err := s.checkRemote(ctx, k, c, &v); err != nil {
		return nil, err
	}
	return v.Fields, nil
}

// checkRemote refuses the URL of an HTTP adapter the URL whitelist does not
// permit, as Graylog validates it: into v when given, else as a 400. The
// key stands in for ${key}; the URL each lookup calls is checked again.
func (s *Service) checkRemote(ctx context.Context, k Kind, c Component, v *api.ValidationError) error {
	if s.opts.URLPermitted == nil {
		return nil
	}
	_, cfg, err := parseConfig(c.Config, k.kinds, k.what)
	if err != nil {
		return nil // refused elsewhere
	}
	r, ok := cfg.(remote)
	if !ok || r.remoteURL() == "" {
		return nil
	}
	u := strings.ReplaceAll(r.remoteURL(), "${key}", "key")
	permitted, err := s.opts.URLPermitted(ctx, u)
	if err != nil {
		return err
	}
	if permitted {
		return nil
	}
	if v != nil {
		v.Add("url", "URL <%s> is not whitelisted.", r.remoteURL())
		return nil
	}
	return api.Invalidf("url", "URL <%s> is not whitelisted.", r.remoteURL())
}

// CreateTable stores a new lookup table.
func (s *Service) CreateTable(ctx context.Context, t Table) (Table, error) {
	t, err := s.normalizeTable(ctx, t)
	if err != nil {
		return Table{}, err
	}
	t.ID = newID()
	if err := s.save(ctx, TablesCollection, "lookup table", t.ID, t.Name, t, true); err != nil {
		return Table{}, err
	}
	return t, nil
}

// UpdateTable replaces a stored table; the body's id or name must be the
// path's.
func (s *Service) UpdateTable(ctx context.Context, idOrName string, t Table) (Table, error) {
	if idOrName != t.ID && idOrName != t.Name {
		return Table{}, mismatch(idOrName)
	}
	t, err := s.normalizeTable(ctx, t)
	if err != nil {
		return Table{}, err
	}
	if t.ID == "" {
		cur, err := s.Table(ctx, idOrName)
		if err != nil {
			return Table{}, err
		}
		t.ID = cur.ID
	}
	if err := s.save(ctx, TablesCollection, "lookup table", t.ID, t.Name, t, false); err != nil {
		return Table{}, err
	}
	return t, nil
}

// DeleteTable removes a table; check is the caller's permission check.
func (s *Service) DeleteTable(ctx context.Context, idOrName string, check func(id string) error) (Table, error) {
	t, err := s.Table(ctx, idOrName)
	if err != nil {
		return Table{}, err
	}
	if err := check(t.ID); err != nil {
		return Table{}, err
	}
	if err := s.st.Delete(ctx, TablesCollection, t.ID); err != nil {
		return Table{}, err
	}
	s.changed(ctx)
	return t, nil
}

// normalizeTable checks a table: required fields, default values, and a
// cache and an adapter that exist.
func (s *Service) normalizeTable(ctx context.Context, t Table) (Table, error) {
	if err := required([2]string{"title", t.Title}, [2]string{"name", t.Name},
		[2]string{"cache_id", t.CacheID}, [2]string{"data_adapter_id", t.DataAdapterID}); err != nil {
		return t, err
	}
	t.DefaultSingleValueType = upperOr(t.DefaultSingleValueType, typeNull)
	t.DefaultMultiValueType = upperOr(t.DefaultMultiValueType, typeNull)
	if _, verr := t.parseDefaults(); verr != nil {
		return t, verr
	}
	if _, err := find[Component](ctx, s.st, CachesCollection, t.CacheID, notFound); err == notFound {
		return t, api.Invalidf("cache_id", "There is no cache %s.", t.CacheID)
	} else if err != nil {
		return t, err
	}
	if _, err := find[Component](ctx, s.st, AdaptersCollection, t.DataAdapterID, notFound); err == notFound {
		return t, api.Invalidf("data_adapter_id", "There is no data adapter %s.", t.DataAdapterID)
	} else if err != nil {
		return t, err
	}
	return t, nil
}

func upperOr(s, def string) string {
	if s == "" {
		return def
	}
	return strings.ToUpper(s)
}

// ValidateTable is the tables' validate endpoint: a free name and default
// values of their types.
func (s *Service) ValidateTable(ctx context.Context, t Table) (map[string][]string, error) {
	var v api.ValidationError
	if t.Name != "" {
		cur, err := find[Table](ctx, s.st, TablesCollection, t.Name, notFound)
		if err == nil && cur.ID != t.ID {
			v.Add("name", "The lookup table name is already in use.")
		} else if err != nil && err != notFound {
			return nil, err
		}
	}
	t.DefaultSingleValueType = upperOr(t.DefaultSingleValueType, typeNull)
	t.DefaultMultiValueType = upperOr(t.DefaultMultiValueType, typeNull)
	if _, verr := t.parseDefaults(); verr != nil {
		for f, msgs := range verr.Fields {
			for _, m := range msgs {
				v.Add(f, "%s", m)
			}
		}
	}
	return v.Fields, nil
}
