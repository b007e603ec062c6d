package contentpacks

import (
	"context"
	"encoding/json"
	"fmt"
	"slices"

	"github.com/google/uuid"

	"github.com/loggate/loggate/backend/system/clusterconfig"
	"github.com/loggate/loggate/router/api"
)

// URLWhitelistEntryV1 is the URL whitelist entry type.
var URLWhitelistEntryV1 = ModelType{Name: "url_whitelist_entry", Version: "1"}

// URLWhitelist is what content packs need of the URL whitelist.
type URLWhitelist interface {
	Whitelist(ctx context.Context) (clusterconfig.Whitelist, error)
	SetWhitelist(ctx context.Context, w clusterconfig.Whitelist) error
}

// whitelistFacade is Graylog's UrlWhitelistFacade.
type whitelistFacade struct{ w URLWhitelist }

// whitelistData is Graylog's WhitelistEntry, which a pack holds as it is,
// without value references.
type whitelistData struct {
	ID    *string `json:"id"`
	Type  *string `json:"type"`
	Title *string `json:"title"`
	Value *string `json:"value"`
}

func decodeWhitelistEntry(data json.RawMessage) (clusterconfig.WhitelistEntry, error) {
	var d whitelistData
	if err := decodeData(data, &d); err != nil {
		return clusterconfig.WhitelistEntry{}, err
	}
	for _, f := range []struct {
		name string
		v    *string
	}{{"id", d.ID}, {"type", d.Type}, {"title", d.Title}, {"value", d.Value}} {
		if f.v == nil {
			return clusterconfig.WhitelistEntry{}, fmt.Errorf("a URL whitelist entry needs a %s", f.name)
		}
	}
	if *d.Type != "literal" && *d.Type != "regex" {
		return clusterconfig.WhitelistEntry{}, fmt.Errorf("unknown URL whitelist entry type %q: literal or regex", *d.Type)
	}
	return clusterconfig.WhitelistEntry{ID: *d.ID, Type: *d.Type, Title: *d.Title, Value: *d.Value}, nil
}

// entryTitle is Graylog's title of an entry: its title and its value.
func entryTitle(e clusterconfig.WhitelistEntry) string { return e.Title + " [" + e.Value + "]" }

// existing is the entry of the same type and value: the whitelist already
// lets its URLs through.
func (f whitelistFacade) existing(ctx context.Context, data json.RawMessage, _ install) (*native, error) {
	want, err := decodeWhitelistEntry(data)
	if err != nil {
		return nil, err
	}
	w, err := f.w.Whitelist(ctx)
	if err != nil {
		return nil, err
	}
	for _, e := range w.Entries {
		if e.Type == want.Type && e.Value == want.Value {
			return &native{id: e.ID, title: entryTitle(e)}, nil
		}
	}
	return nil, nil
}

// create adds the entry under its id, or under a new one when another
// entry has it: Graylog would replace that entry, and uninstalling would
// then remove it.
func (f whitelistFacade) create(ctx context.Context, data json.RawMessage, _ install, _ string) (native, error) {
	e, err := decodeWhitelistEntry(data)
	if err != nil {
		return native{}, err
	}
	w, err := f.w.Whitelist(ctx)
	if err != nil {
		return native{}, err
	}
	if e.ID == "" || slices.ContainsFunc(w.Entries, func(o clusterconfig.WhitelistEntry) bool { return o.ID == e.ID }) {
		e.ID = uuid.NewString()
	}
	w.Entries = append(w.Entries, e)
	if err := f.w.SetWhitelist(ctx, w); err != nil {
		return native{}, err
	}
	return native{id: e.ID, title: entryTitle(e)}, nil
}

func (f whitelistFacade) entry(ctx context.Context, id string) (clusterconfig.WhitelistEntry, error) {
	w, err := f.w.Whitelist(ctx)
	if err != nil {
		return clusterconfig.WhitelistEntry{}, err
	}
	for _, e := range w.Entries {
		if e.ID == id {
			return e, nil
		}
	}
	return clusterconfig.WhitelistEntry{}, api.Errorf(api.NotFound, "Couldn't find URL whitelist entry %s", id)
}

func (f whitelistFacade) exists(ctx context.Context, id string) bool {
	_, err := f.entry(ctx, id)
	return err == nil
}

func (f whitelistFacade) remove(ctx context.Context, id string) error {
	w, err := f.w.Whitelist(ctx)
	if err != nil {
		return err
	}
	w.Entries = slices.DeleteFunc(w.Entries, func(e clusterconfig.WhitelistEntry) bool { return e.ID == id })
	return f.w.SetWhitelist(ctx, w)
}

func (f whitelistFacade) excerpts(ctx context.Context) ([]Excerpt, error) {
	w, err := f.w.Whitelist(ctx)
	if err != nil {
		return nil, err
	}
	var out []Excerpt
	for _, e := range w.Entries {
		out = append(out, Excerpt{ID: e.ID, Type: URLWhitelistEntryV1, Title: entryTitle(e)})
	}
	return out, nil
}

func (f whitelistFacade) export(ctx context.Context, id string, _ exportIDs) (any, error) {
	e, err := f.entry(ctx, id)
	if err != nil {
		return nil, err
	}
	return whitelistData{ID: &e.ID, Type: &e.Type, Title: &e.Title, Value: &e.Value}, nil
}
