package streams

import (
	"net/http"
	"net/url"

	"github.com/loggate/loggate/auth"
	"github.com/loggate/loggate/router/api"
)

// ruleList is Graylog's StreamRuleListResponse.
type ruleList struct {
	Total int    `json:"total"`
	Rules []Rule `json:"stream_rules"`
}

func (h *Handler) ruleTypes(_ *http.Request) (any, error) {
	return RuleTypes(), nil
}

func (h *Handler) listRules(r *http.Request) (any, error) {
	st, err := h.stream(r.Context(), api.Var(r, "streamid"), "read")
	if err != nil {
		return nil, err
	}
	return ruleList{Total: len(st.Rules), Rules: st.Rules}, nil
}

func (h *Handler) getRule(r *http.Request) (any, error) {
	sid := api.Var(r, "streamid")
	if err := auth.Require(r.Context(), "streams:read:"+sid); err != nil {
		return nil, err
	}
	rule, err := h.svc.Rule(sid, api.Var(r, "streamRuleId"))
	if err != nil {
		return nil, err
	}
	return rule, nil
}

func (h *Handler) createRule(w http.ResponseWriter, r *http.Request) error {
	ctx := r.Context()
	sid := api.Var(r, "streamid")
	if _, err := h.stream(ctx, sid, "edit"); err != nil {
		return err
	}
	if err := notBuiltin(sid, "Cannot add stream rules to the default stream."); err != nil {
		return err
	}
	var req ruleRequest
	if err := api.Decode(r, &req, true); err != nil {
		return err
	}
	rule, err := req.rule()
	if err != nil {
		return err
	}
	if rule, err = h.svc.AddRule(ctx, sid, rule); err != nil {
		return err
	}
	created(w, r, "/streams/"+rule.StreamID+"/rules/"+rule.ID, "streamrule_id", rule.ID)
	return nil
}

// ruleUpdated is Graylog's SingleStreamRuleSummaryResponse.
type ruleUpdated struct {
	ID string `json:"streamrule_id"`
}

func (h *Handler) updateRule(r *http.Request) (any, error) {
	ctx := r.Context()
	sid, rid := api.Var(r, "streamid"), api.Var(r, "streamRuleId")
	if err := auth.Require(ctx, "streams:edit:"+sid); err != nil {
		return nil, err
	}
	if err := notBuiltin(sid, "Cannot update stream rules on default stream."); err != nil {
		return nil, err
	}
	var req ruleRequest
	if err := api.Decode(r, &req, true); err != nil {
		return nil, err
	}
	if _, err := h.svc.Rule(sid, rid); err != nil {
		return nil, err
	}
	rule, err := req.rule()
	if err != nil {
		return nil, err
	}
	if err := h.svc.UpdateRule(ctx, sid, rid, rule); err != nil {
		return nil, err
	}
	return ruleUpdated{ID: rid}, nil
}

// updateRuleDeprecated is the POST alias of PUT. Graylog refuses the default
// stream before it checks the permission, with a message of its own.
func (h *Handler) updateRuleDeprecated(w http.ResponseWriter, r *http.Request) error {
	sid, rid := api.Var(r, "streamid"), api.Var(r, "streamRuleId")
	// The router's Link names the path template; this one names the rule.
	w.Header().Set("Link", "<"+api.Location(r, "/streams/"+url.PathEscape(sid)+"/rules/"+url.PathEscape(rid))+`>; rel="successor-version"`)
	if err := notBuiltin(sid, "Cannot remove stream rule from default stream."); err != nil {
		return err
	}
	return api.JSON(h.updateRule)(w, r)
}

func (h *Handler) deleteRule(w http.ResponseWriter, r *http.Request) error {
	ctx := r.Context()
	sid := api.Var(r, "streamid")
	if err := auth.Require(ctx, "streams:edit:"+sid); err != nil {
		return err
	}
	if err := notBuiltin(sid, "Cannot delete stream rule from default stream."); err != nil {
		return err
	}
	if err := h.svc.DeleteRule(ctx, sid, api.Var(r, "streamRuleId")); err != nil {
		return err
	}
	api.NoContent(w)
	return nil
}
