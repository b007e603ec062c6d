package contentpacks

import (
	"net/http"
	"strconv"

	"github.com/loggate/loggate/auth"
	"github.com/loggate/loggate/router/api"
)

// Handler serves /system/content_packs and /system/catalog.
type Handler struct{ s *Service }

// NewHandler returns the content packs' resources.
func NewHandler(s *Service) *Handler { return &Handler{s: s} }

// Request body examples for the API browser.
const (
	packExample    = `{"v":"1","id":"5f1d5a1e-0c36-4e2b-9d1b-2f0e8f1f7a10","rev":1,"name":"nginx","summary":"nginx patterns","description":"","vendor":"ops","url":"","parameters":[{"name":"TITLE","title":"Stream title","description":"","type":"string","default_value":"nginx"}],"entities":[{"v":"1","type":{"name":"grok_pattern","version":"1"},"id":"0a1b2c3d-0000-0000-0000-000000000001","data":{"name":"NGINX_STATUS","pattern":"%{NUMBER:status:int}"},"constraints":[]},{"v":"1","type":{"name":"stream","version":"1"},"id":"0a1b2c3d-0000-0000-0000-000000000002","data":{"title":{"@type":"parameter","@value":"TITLE"},"description":{"@type":"string","@value":""},"disabled":{"@type":"boolean","@value":false},"matching_type":{"@type":"string","@value":"AND"},"stream_rules":[{"type":{"@type":"string","@value":"EXACT"},"field":{"@type":"string","@value":"source"},"value":{"@type":"string","@value":"nginx"},"inverted":{"@type":"boolean","@value":false},"description":{"@type":"string","@value":""}}],"alert_conditions":[],"alarm_callbacks":[],"outputs":[],"default_stream":{"@type":"boolean","@value":false},"remove_matches":{"@type":"boolean","@value":false}},"constraints":[]}]}`
	installExample = `{"parameters":{"TITLE":{"@type":"string","@value":"nginx"}},"comment":"staging"}`
	resolveExample = `{"entities":[{"id":"<grok pattern id>","type":{"name":"grok_pattern","version":"1"}}]}`
)

// Routes returns the routes. The literal paths come before the templates
// that would take them.
func (h *Handler) Routes() []api.Route {
	const base = "/system/content_packs"
	return []api.Route{
		{Method: "GET", Path: base, Summary: "List available content packs", Permission: "contentpack:read",
			Handler: api.JSON(h.list)},
		{Method: "GET", Path: base + "/latest", Summary: "List latests available content packs", Permission: "contentpack:read",
			Handler: api.JSON(h.latest)},
		{Method: "POST", Path: base, Summary: "Upload a content pack", Permission: "contentpack:create",
			Body: packExample, Handler: h.upload},
		{Method: "GET", Path: base + "/{contentPackId}/installations", Summary: "Get details about the installations.",
			Permission: "contentpack:read:{contentPackId}", PathChecked: true, Handler: api.JSON(h.installations)},
		{Method: "GET", Path: base + "/{contentPackId}/installations/{installationId}/uninstall_details",
			Summary: "Get details about which entities will actually be uninstalled.", Permission: "contentpack:read:{contentPackId}",
			PathChecked: true, Handler: api.JSON(h.uninstallDetails)},
		{Method: "DELETE", Path: base + "/{contentPackId}/installations/{installationId}", Summary: "Uninstall a content pack installation",
			Permission: "contentpack:uninstall:{contentPackId}", PathChecked: true, Handler: api.JSON(h.uninstall)},
		{Method: "GET", Path: base + "/{contentPackId}", Summary: "List all revisions of a content pack",
			Permission: "contentpack:read:{contentPackId}", PathChecked: true, Handler: api.JSON(h.revisions)},
		{Method: "DELETE", Path: base + "/{contentPackId}", Summary: "Delete all revisions of a content pack",
			Permission: "contentpack:delete:{contentPackId}", PathChecked: true, Handler: h.delete},
		{Method: "GET", Path: base + "/{contentPackId}/{revision}", Summary: "Get a revision of a content pack",
			Permission: "contentpack:read", Handler: api.JSON(h.get)},
		{Method: "GET", Path: base + "/{contentPackId}/{revision}/download", Summary: "Download a revision of a content pack",
			Permission: "contentpack:read:{contentPackId}", PathChecked: true, Handler: api.JSON(h.download)},
		{Method: "DELETE", Path: base + "/{contentPackId}/{revision}", Summary: "Delete one revision of a content pack",
			Permission: "contentpack:delete:{contentPackId}", PathChecked: true, Handler: h.deleteRevision},
		{Method: "POST", Path: base + "/{contentPackId}/{revision}/installations", Summary: "Install a revision of a content pack",
			Permission: "contentpack:install:{contentPackId}", PathChecked: true, Body: installExample, Handler: api.JSON(h.install)},
		{Method: "GET", Path: "/system/catalog", Summary: "List available entities in this Graylog cluster", Permission: "catalog:list",
			Handler: api.JSON(h.catalog)},
		{Method: "POST", Path: "/system/catalog", Summary: "Resolve requested entities", Permission: "catalog:resolve",
			Body: resolveExample, Handler: api.JSON(h.resolve)},
	}
}

// revision reads {revision} as Jersey reads an int path parameter: a
// value that is no int matches no resource.
func revision(r *http.Request) (int, error) {
	n, err := strconv.ParseInt(api.Var(r, "revision"), 10, 32)
	if err != nil {
		return 0, api.Errorf(api.NotFound, "HTTP 404 Not Found")
	}
	return int(n), nil
}

// listing is Graylog's ContentPackList. Its metadata is read by the
// creator as content_pack_metadata but written, by the getter's name, as
// content_packs_metadata, the name the web interface reads.
func (h *Handler) listing(r *http.Request, packs []Pack) (any, error) {
	meta, err := h.s.Metadata(r.Context())
	if err != nil {
		return nil, err
	}
	if packs == nil {
		packs = []Pack{}
	}
	return map[string]any{"total": len(packs), "content_packs": packs, "content_packs_metadata": meta}, nil
}

func (h *Handler) list(r *http.Request) (any, error) {
	packs, err := h.s.All(r.Context())
	if err != nil {
		return nil, err
	}
	return h.listing(r, packs)
}

func (h *Handler) latest(r *http.Request) (any, error) {
	packs, err := h.s.Latest(r.Context())
	if err != nil {
		return nil, err
	}
	return h.listing(r, packs)
}

func (h *Handler) revisions(r *http.Request) (any, error) {
	packs, err := h.s.Revisions(r.Context(), api.Var(r, "contentPackId"))
	if err != nil {
		return nil, err
	}
	revs := map[string]Pack{}
	results := map[string]any{}
	for _, p := range packs {
		k := strconv.Itoa(p.Rev)
		revs[k] = p
		results[k] = constraintResults(p)
	}
	return map[string]any{"content_pack_revisions": revs, "constraints_result": results}, nil
}

func (h *Handler) pack(r *http.Request) (Pack, error) {
	rev, err := revision(r)
	if err != nil {
		return Pack{}, err
	}
	return h.s.Get(r.Context(), api.Var(r, "contentPackId"), rev)
}

func (h *Handler) get(r *http.Request) (any, error) {
	p, err := h.pack(r)
	if err != nil {
		return nil, err
	}
	return map[string]any{"content_pack": p, "constraints_result": constraintResults(p)}, nil
}

func (h *Handler) download(r *http.Request) (any, error) {
	p, err := h.pack(r)
	if err != nil {
		return nil, err
	}
	return p, nil
}

func (h *Handler) upload(w http.ResponseWriter, r *http.Request) error {
	var p Pack
	if err := api.Decode(r, &p, false); err != nil {
		return err
	}
	saved, err := h.s.Upload(r.Context(), p)
	if err != nil {
		return err
	}
	w.Header().Set("Location", api.Location(r, "/system/content_packs/"+saved.ID))
	w.WriteHeader(http.StatusCreated)
	return nil
}

func (h *Handler) delete(w http.ResponseWriter, r *http.Request) error {
	if err := h.s.Delete(r.Context(), api.Var(r, "contentPackId")); err != nil {
		return err
	}
	api.NoContent(w)
	return nil
}

func (h *Handler) deleteRevision(w http.ResponseWriter, r *http.Request) error {
	rev, err := revision(r)
	if err != nil {
		return err
	}
	if err := h.s.DeleteRevision(r.Context(), api.Var(r, "contentPackId"), rev); err != nil {
		return err
	}
	api.NoContent(w)
	return nil
}

type installBody struct {
	Parameters map[string]ValueRef `json:"parameters"`
	Comment    string              `json:"comment"`
}

func (h *Handler) install(r *http.Request) (any, error) {
	rev, err := revision(r)
	if err != nil {
		return nil, err
	}
	var body installBody
	if err := api.Decode(r, &body, false); err != nil {
		return nil, err
	}
	user := "unknown"
	if p := auth.FromContext(r.Context()); p != nil && p.Username != "" {
		user = p.Username
	}
	return h.s.Install(r.Context(), api.Var(r, "contentPackId"), rev, body.Parameters, body.Comment, user)
}

func (h *Handler) installations(r *http.Request) (any, error) {
	ins, err := h.s.Installations(r.Context(), api.Var(r, "contentPackId"))
	if err != nil {
		return nil, err
	}
	return map[string]any{"total": len(ins), "installations": ins}, nil
}

func (h *Handler) uninstallDetails(r *http.Request) (any, error) {
	return h.s.UninstallDetails(r.Context(), api.Var(r, "contentPackId"), api.Var(r, "installationId"))
}

func (h *Handler) uninstall(r *http.Request) (any, error) {
	p, u, err := h.s.Uninstall(r.Context(), api.Var(r, "contentPackId"), api.Var(r, "installationId"))
	if err != nil {
		return nil, err
	}
	return map[string]any{"content_pack": p, "uninstalled": u}, nil
}

func (h *Handler) catalog(r *http.Request) (any, error) {
	ex, err := h.s.Catalog(r.Context())
	if err != nil {
		return nil, err
	}
	return map[string]any{"entities": ex}, nil
}

type resolveBody struct {
	Entities []Descriptor `json:"entities"`
}

func (h *Handler) resolve(r *http.Request) (any, error) {
	var body resolveBody
	if err := api.Decode(r, &body, false); err != nil {
		return nil, err
	}
	ents, err := h.s.Resolve(r.Context(), body.Entities)
	if err != nil {
		return nil, err
	}
	return map[string]any{"entities": ents}, nil
}
