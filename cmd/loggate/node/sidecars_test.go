package node_test

import (
	"context"
	"net/http"
	"testing"
	"time"

	"github.com/loggate/loggate/backend/system/sidecars"
	"github.com/loggate/loggate/cmd/loggate/node/nodetest"
)

// TestSidecarEndToEnd: a Sidecar with a token of a user holding only the
// built-in "Sidecar System (Internal)" role registers, is assigned a
// configuration by the administrator, gets its assignment and a restart
// action with its next heartbeat, renders its configuration with its own
// and the user's variables; everything survives a restart, and the default
// collectors are not added twice.
func TestSidecarEndToEnd(t *testing.T) {
	h := nodetest.Start(t)
	root := nodetest.AsRoot()
	userID := h.CreateUser("sidecar-agent", "sidecar-password-1", "Sidecar System (Internal)")
	token, _ := h.CreateToken(userID, "sidecar", nodetest.Basic("sidecar-agent", "sidecar-password-1"))
	agent := nodetest.Token(token)
	version := nodetest.Header("X-Graylog-Sidecar-Version", "1.1.0")
	heartbeat := map[string]any{"node_name": "web-1", "node_details": map[string]any{
		"operating_system": "Linux", "ip": "10.0.0.7", "metrics": map[string]any{"disks_75": []string{}, "cpu_idle": 97.5, "load_1": 0.25},
		"log_file_list": nil, "status": map[string]any{"status": 0, "message": "ok", "collectors": []any{}},
	}}

	h.Do("PUT", "/sidecars/d1f3a7c2", heartbeat, agent).WantError(t, http.StatusBadRequest, "X-Graylog-Sidecar-Version")
	first := h.Do("PUT", "/sidecars/d1f3a7c2", heartbeat, agent, version).Want(t, http.StatusAccepted)
	if first.Get("configuration.update_interval").Int() != 30 || !first.Get("configuration.send_status").Bool() || first.Get("assignments").Type.String() != "Null" {
		t.Errorf("first registration: %s", first.Body)
	}
	// The agent may not administrate.
	h.Do("GET", "/sidecars", nil, agent).Want(t, http.StatusForbidden)

	collectors := h.Do("GET", "/sidecar/collectors", nil, agent).Want(t, http.StatusOK)
	if collectors.Get("total").Int() != 5 {
		t.Fatalf("default collectors: %s", collectors.Body)
	}
	var filebeat string
	for _, c := range collectors.Get("collectors").Array() {
		if c.Get("name").String() == "filebeat" && c.Get("node_operating_system").String() == "linux" {
			filebeat = c.Get("id").String()
		}
	}
	h.Do("POST", "/sidecar/configuration_variables", map[string]string{"name": "logstash", "content": "10.0.0.5:5044"}, root).Want(t, http.StatusOK)
	conf := h.Do("POST", "/sidecar/configurations", map[string]string{"collector_id": filebeat, "name": "web logs", "color": "#ffffff",
		"template": "output.logstash:\n  hosts: [\"${user.logstash}\"]\nfields.gl2_source_collector: ${sidecar.nodeId}"}, root).Want(t, http.StatusOK).Get("id").String()
	h.Do("PUT", "/sidecars/configurations", map[string]any{"nodes": []any{map[string]any{"node_id": "d1f3a7c2",
		"assignments": []any{map[string]string{"collector_id": filebeat, "configuration_id": conf}}}}}, root).Want(t, http.StatusAccepted)
	h.Do("PUT", "/sidecar/administration/action", map[string]any{"action": "restart",
		"collectors": []any{map[string]any{"sidecar_id": "d1f3a7c2", "collector_ids": []string{filebeat}}}}, root).Want(t, http.StatusAccepted)

	h.Restart()
	if n := h.Do("GET", "/sidecar/collectors", nil, root).Want(t, http.StatusOK).Get("total").Int(); n != 5 {
		t.Errorf("%d collectors after a restart, want 5", n)
	}
	next := h.Do("PUT", "/sidecars/d1f3a7c2", heartbeat, agent, version).Want(t, http.StatusAccepted)
	if next.Get("assignments.0.configuration_id").String() != conf || next.Get("actions.0.collector_id").String() != filebeat || !next.Get("actions.0.properties.restart").Bool() {
		t.Errorf("heartbeat after assigning: %s", next.Body)
	}
	rendered := h.Do("GET", "/sidecar/configurations/render/d1f3a7c2/"+conf, nil, agent).Want(t, http.StatusOK)
	if want := "output.logstash:\n  hosts: [\"10.0.0.5:5044\"]\nfields.gl2_source_collector: d1f3a7c2\n"; rendered.Get("template").String() != want {
		t.Errorf("rendered %q, want %q", rendered.Get("template").String(), want)
	}
	list := h.Do("GET", "/sidecars?query=web&only_active=true", nil, root).Want(t, http.StatusOK)
	if list.Get("sidecars.#").Int() != 1 || list.Get("sidecars.0.sidecar_version").String() != "1.1.0" || !list.Get("sidecars.0.active").Bool() ||
		list.Get("sidecars.0.node_details.metrics.load_1").Float() != 0.25 {
		t.Errorf("listing: %s", list.Body)
	}
	h.Do("DELETE", "/sidecar/configurations/"+conf, nil, root).WantError(t, http.StatusBadRequest, "Configuration still in use, cannot delete.")
	h.Do("DELETE", "/sidecar/collectors/"+filebeat, nil, root).WantError(t, http.StatusBadRequest, "Collector still in use, cannot delete.")
}

// TestLeaderPurgesSidecars: a Sidecar unseen for longer than the
// expiration threshold (14 days) is deleted by the leader once it leads;
// a Sidecar seen since stays.
func TestLeaderPurgesSidecars(t *testing.T) {
	st := nodetest.SharedStore(t)
	now := time.Now().UTC()
	for id, seen := range map[string]time.Time{"gone": now.Add(-15 * 24 * time.Hour), "kept": now.Add(-13 * 24 * time.Hour)} {
		doc := `{"id":"` + id + `","node_id":"` + id + `","node_name":"` + id + `","node_details":{"operating_system":"Linux","status":null},` +
			`"assignments":[],"sidecar_version":"1.1.0","last_seen":"` + seen.Format("2006-01-02T15:04:05.000Z") + `"}`
		if err := st.Put(context.Background(), sidecars.SidecarsCollection, id, []byte(doc)); err != nil {
			t.Fatal(err)
		}
	}
	h := nodetest.StartOn(t, st)
	root := nodetest.AsRoot()
	h.Do("GET", "/sidecars/kept", nil, root).Want(t, http.StatusOK)
	deadline := time.Now().Add(20 * time.Second)
	for h.Do("GET", "/sidecars/gone", nil, root).Status != http.StatusNotFound {
		if time.Now().After(deadline) {
			t.Fatal("a Sidecar unseen for 15 days was not purged")
		}
		time.Sleep(20 * time.Millisecond)
	}
	h.Do("GET", "/sidecars/kept", nil, root).Want(t, http.StatusOK)
}
