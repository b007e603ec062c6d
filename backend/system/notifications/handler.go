package notifications

import (
	"net/http"
	"slices"
	"strings"

	"github.com/loggate/loggate/auth"
	"github.com/loggate/loggate/router/api"
)

// types are Graylog 4.0's notification types (Notification.Type): a
// DELETE names one of them.
var types = []string{
	"deflector_exists_as_index", "multi_master", "no_master", "es_open_files", "es_cluster_red",
	TypeStoreUnavailable, TypeNoInputRunning, TypeInputFailedToStart, "check_server_clocks",
	"outdated_version", "email_transport_configuration_invalid", "email_transport_failed",
	"stream_processing_disabled", "gc_too_long", TypeJournalUtilization,
	"journal_uncommitted_messages_deleted", "output_disabled", "output_failing",
	TypeIndexRangesRecompute, TypeGeneric, "es_node_disk_watermark_low",
	"es_node_disk_watermark_high", "es_node_disk_watermark_flood_stage", "es_version_mismatch",
	TypeLegacyLDAPMigration,
}

// Handler serves /system/notifications.
type Handler struct{ s *Service }

// NewHandler returns the /system/notifications resource.
func NewHandler(s *Service) *Handler { return &Handler{s: s} }

// Routes returns the notification routes.
func (h *Handler) Routes() []api.Route {
	return []api.Route{
		// Every page polls the list: each caller sees the types they may
		// read (notifications:read:<type>), as in Graylog.
		{Method: "GET", Path: "/system/notifications", Summary: "Get all active notifications",
			Permission: "notifications:read:{notificationType}", Handler: h.list},
		{Method: "DELETE", Path: "/system/notifications/{notificationType}", Summary: "Delete a notification",
			Permission: "notifications:delete:{notificationType}", Handler: h.dismiss},
	}
}

func (h *Handler) list(w http.ResponseWriter, r *http.Request) error {
	all, err := h.s.List(r.Context())
	if err != nil {
		return err
	}
	ns := []Notification{}
	for _, n := range all {
		if auth.Require(r.Context(), "notifications:read:"+n.Type) == nil {
			ns = append(ns, n)
		}
	}
	api.WriteJSON(w, http.StatusOK, struct {
		Total         int            `json:"total"`
		Notifications []Notification `json:"notifications"`
	}{len(ns), ns})
	return nil
}

func (h *Handler) dismiss(w http.ResponseWriter, r *http.Request) error {
	typ := strings.ToLower(api.Var(r, "notificationType"))
	if !slices.Contains(types, typ) {
		// Graylog's Type.valueOf fails: a 400.
		return api.Errorf(api.Invalid, "No such notification type <%s>", api.Var(r, "notificationType"))
	}
	if err := auth.Require(r.Context(), "notifications:delete:"+typ); err != nil {
		return err
	}
	if err := h.s.Dismiss(r.Context(), typ, ""); err != nil {
		return err
	}
	api.NoContent(w)
	return nil
}
