package streams

import (
	"bytes"
	"context"
	"encoding/json"
	"net/http"
	"strings"

	"github.com/loggate/loggate/auth"
	"github.com/loggate/loggate/backend/logs/outputs"
	"github.com/loggate/loggate/router/api"
)

// StreamResponse is Graylog's StreamResponse, the shape of a stream outside
// /streams/paginated: the stream with its outputs as OutputSummary objects.
type StreamResponse struct {
	*Stream
	Outputs []outputs.Summary `json:"outputs"`
}

// Response resolves the outputs of a stream.
func (s *Service) Response(ctx context.Context, st *Stream) (StreamResponse, error) {
	sums, err := s.summaries(ctx, st.Outputs)
	if err != nil {
		return StreamResponse{}, err
	}
	return StreamResponse{Stream: st, Outputs: sums}, nil
}

// streamList is Graylog's StreamListResponse.
type streamList struct {
	Total   int              `json:"total"`
	Streams []StreamResponse `json:"streams"`
}

func (h *Handler) list(w http.ResponseWriter, r *http.Request) error {
	return h.writeList(w, r, false)
}

func (h *Handler) enabled(w http.ResponseWriter, r *http.Request) error {
	return h.writeList(w, r, true)
}

// writeList answers the unpaginated listings: the streams the caller may
// read, by title. Graylog answers them in no particular order.
func (h *Handler) writeList(w http.ResponseWriter, r *http.Request, onlyEnabled bool) error {
	ctx := r.Context()
	p := auth.FromContext(ctx)
	out := streamList{Streams: []StreamResponse{}}
	for _, st := range h.svc.snap.Load().byTitle {
		if onlyEnabled && st.Disabled || !p.Permits(st.readPerm) {
			continue
		}
		resp, err := h.svc.Response(ctx, st)
		if err != nil {
			return err
		}
		out.Streams = append(out.Streams, resp)
	}
	out.Total = len(out.Streams)
	api.WriteJSON(w, http.StatusOK, out)
	return nil
}

// pageResponse is Graylog 4.0's StreamPageListResponse, which differs from
// the generic paginated envelope: total counts every stream, readable or
// not, and the page's numbers sit in pagination.
type pageResponse struct {
	Query      string     `json:"query"`
	Pagination pagination `json:"pagination"`
	Total      int        `json:"total"`
	Sort       string     `json:"sort"`
	Order      string     `json:"order"`
	Streams    []*Stream  `json:"streams"`
}

type pagination struct {
	Total   int `json:"total"`
	Count   int `json:"count"`
	Page    int `json:"page"`
	PerPage int `json:"per_page"`
}

func (h *Handler) paginated(w http.ResponseWriter, r *http.Request) error {
	page, err := api.ParsePage(r, "title", "title", "description")
	if err != nil {
		return err
	}
	q, err := api.ParseQuery(page.Query, "title", "title", "description")
	if err != nil {
		return err
	}
	all := h.svc.snap.Load().byTitle
	items, total := api.PageOf(readable(auth.FromContext(r.Context()), all), page, q, field)
	if items == nil {
		items = []*Stream{}
	}
	api.WriteJSON(w, http.StatusOK, pageResponse{
		Query:      page.Query,
		Pagination: pagination{Total: total, Count: len(items), Page: page.Page, PerPage: page.PerPage},
		Total:      len(all), Sort: page.Sort, Order: page.Order, Streams: items,
	})
	return nil
}

// readable returns the streams of all that p may read, in order.
func readable(p *auth.Principal, all []*Stream) []*Stream {
	// streams:read implies streams:read:<id> for every id: no check per
	// stream is needed.
	if p.Permits("streams:read") {
		return all
	}
	// Otherwise p reads only the streams its permissions name one by one,
	// which are few; Permits has the last word on each of them.
	named := namedIDs(p)
	out := make([]*Stream, 0, min(len(named), len(all)))
	for _, st := range all {
		if _, ok := named[st.ID]; ok && p.Permits(st.readPerm) {
			out = append(out, st)
		}
	}
	return out
}

// namedIDs returns every instance named by p's permissions: the sub-parts of
// their third parts, trimmed and lower-cased. A permission that grants
// streams:read:<id> without granting streams:read names <id> there, so the
// set holds every stream p may read, and more.
func namedIDs(p *auth.Principal) map[string]struct{} {
	ids := map[string]struct{}{}
	if p == nil {
		return ids
	}
	for _, perm := range p.Permissions.Strings() {
		parts := strings.SplitN(perm, ":", 4)
		if len(parts) < 3 {
			continue
		}
		for _, id := range strings.Split(parts[2], ",") {
			ids[strings.ToLower(strings.TrimSpace(id))] = struct{}{}
		}
	}
	return ids
}

func (h *Handler) get(w http.ResponseWriter, r *http.Request) error {
	ctx := r.Context()
	st, err := h.stream(ctx, api.Var(r, "streamId"), "read")
	if err != nil {
		return err
	}
	return h.respond(w, r, st)
}

func (h *Handler) create(w http.ResponseWriter, r *http.Request) error {
	ctx := r.Context()
	user, req, err := decodeAs[createRequest](r)
	if err != nil {
		return err
	}
	st, err := req.stream(user)
	if err != nil {
		return err
	}
	if err := h.svc.Create(ctx, st); err != nil {
		return err
	}
	created(w, r, "/streams/"+st.ID, "stream_id", st.ID)
	return nil
}

func (h *Handler) update(w http.ResponseWriter, r *http.Request) error {
	ctx := r.Context()
	id := api.Var(r, "streamId")
	if err := auth.Require(ctx, "streams:edit:"+id); err != nil {
		return err
	}
	if err := notBuiltin(id, "The default stream cannot be edited."); err != nil {
		return err
	}
	var req updateRequest
	if err := api.Decode(r, &req, false); err != nil {
		return err
	}
	if _, err := h.svc.Get(id); err != nil {
		return err
	}
	set, err := req.settings()
	if err != nil {
		return err
	}
	st, err := h.svc.Update(ctx, id, set)
	if err != nil {
		return err
	}
	return h.respond(w, r, st)
}

func (h *Handler) delete(w http.ResponseWriter, r *http.Request) error {
	id := api.Var(r, "streamId")
	if err := auth.Require(r.Context(), "streams:edit:"+id); err != nil {
		return err
	}
	if err := notBuiltin(id, "The default stream cannot be deleted."); err != nil {
		return err
	}
	if err := h.svc.Delete(r.Context(), id); err != nil {
		return err
	}
	api.NoContent(w)
	return nil
}

func (h *Handler) pause(w http.ResponseWriter, r *http.Request) error {
	return h.setDisabled(w, r, true, "The default stream cannot be paused.")
}

func (h *Handler) resume(w http.ResponseWriter, r *http.Request) error {
	return h.setDisabled(w, r, false, "The default stream cannot be resumed.")
}

// setDisabled pauses or resumes. Either streams:changestate or streams:edit
// of the stream will do.
func (h *Handler) setDisabled(w http.ResponseWriter, r *http.Request, disabled bool, builtinMsg string) error {
	ctx := r.Context()
	id := api.Var(r, "streamId")
	if !auth.FromContext(ctx).Permits("streams:changestate:" + id) {
		if err := auth.Require(ctx, "streams:edit:"+id); err != nil {
			return err
		}
	}
	if err := notBuiltin(id, builtinMsg); err != nil {
		return err
	}
	if err := h.svc.SetDisabled(ctx, id, disabled); err != nil {
		return err
	}
	api.NoContent(w)
	return nil
}

func (h *Handler) clone(w http.ResponseWriter, r *http.Request) error {
	ctx := r.Context()
	id := api.Var(r, "streamId")
	if _, err := h.stream(ctx, id, "read"); err != nil {
		return err
	}
	if err := notBuiltin(id, "The default stream cannot be cloned."); err != nil {
		return err
	}
	user, req, err := decodeAs[cloneRequest](r)
	if err != nil {
		return err
	}
	c, err := req.clone(user)
	if err != nil {
		return err
	}
	st, err := h.svc.Clone(ctx, id, c)
	if err != nil {
		return err
	}
	created(w, r, "/streams/"+st.ID, "stream_id", st.ID)
	return nil
}

// testMatchResponse is Graylog's TestMatchResponse.
type testMatchResponse struct {
	Matches bool            `json:"matches"`
	Rules   map[string]bool `json:"rules"`
}

func (h *Handler) testMatch(r *http.Request) (any, error) {
	ctx := r.Context()
	st, err := h.stream(ctx, api.Var(r, "streamId"), "read")
	if err != nil {
		return nil, err
	}
	var body struct {
		Message map[string]json.RawMessage `json:"message"`
	}
	if err := api.Decode(r, &body, false); err != nil {
		return nil, err
	}
	msg, err := testMessage(body.Message)
	if err != nil {
		return nil, err
	}
	if _, present := lookup(msg, "timestamp"); !present {
		msg["timestamp"] = h.svc.now().UTC().Format(api.TimeLayout)
	}
	matched, rules := Match(st, msg)
	return testMatchResponse{Matches: matched, Rules: rules}, nil
}

// testMessage decodes the fields of a testMatch message keeping numbers as
// json.Number, so that the matchers see integers and decimals apart, as
// Graylog's Jackson does.
func testMessage(fields map[string]json.RawMessage) (map[string]any, error) {
	if fields == nil {
		return nil, api.Errorf(api.Invalid, `The request body needs a message object, such as {"message":{"source":"web-1"}}`)
	}
	msg := make(map[string]any, len(fields)+1)
	for k, raw := range fields {
		dec := json.NewDecoder(bytes.NewReader(raw))
		dec.UseNumber()
		var v any
		if err := dec.Decode(&v); err != nil {
			return nil, api.Errorf(api.Invalid, "Unable to parse JSON: message field %s: %v", k, err)
		}
		msg[k] = v
	}
	return msg, nil
}

// respond writes a stream as Graylog's StreamResponse, outputs embedded.
func (h *Handler) respond(w http.ResponseWriter, r *http.Request, st *Stream) error {
	resp, err := h.svc.Response(r.Context(), st)
	if err != nil {
		return err
	}
	api.WriteJSON(w, http.StatusOK, resp)
	return nil
}
