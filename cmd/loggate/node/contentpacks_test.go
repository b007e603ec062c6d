package node_test

import (
	"fmt"
	"net/http"
	"testing"

	"github.com/loggate/loggate/cmd/loggate/node/nodetest"
	"github.com/loggate/loggate/internal/servicetest"
)

func TestContentPackEndToEnd(t *testing.T) {
	h := nodetest.Start(t)
	root := nodetest.AsRoot()
	port, err := servicetest.FreePort()
	if err != nil {
		t.Fatal(err)
	}
	s := func(v string) string { return fmt.Sprintf(`{"@type":"string","@value":%q}`, v) }
	b := func(v bool) string { return fmt.Sprintf(`{"@type":"boolean","@value":%t}`, v) }
	param := func(name string) string { return fmt.Sprintf(`{"@type":"parameter","@value":%q}`, name) }
	pack := `{"v":"1","id":"e2e-pack","rev":1,"name":"e2e","summary":"","description":"","vendor":"","url":"",
	"parameters":[{"name":"TITLE","title":"t","description":"","type":"string","default_value":"web"},
	              {"name":"PORT","title":"p","description":"","type":"integer","default_value":12201}],
	"entities":[
	 {"v":"1","type":{"name":"grok_pattern","version":"1"},"id":"g","data":{"name":"E2E_TOOK","pattern":"took %{NUMBER:took:int} ms"},"constraints":[]},
	 {"v":"1","type":{"name":"stream","version":"1"},"id":"s","data":{"title":` + param("TITLE") + `,"description":` + s("from a pack") + `,
	   "disabled":` + b(false) + `,"matching_type":` + s("AND") + `,"stream_rules":[{"type":` + s("EXACT") + `,"field":` + s("source") + `,
	   "value":` + s("web-1") + `,"inverted":` + b(false) + `,"description":` + s("") + `}],"alert_conditions":[],"alarm_callbacks":[],"outputs":[],
	   "default_stream":` + b(false) + `,"remove_matches":` + b(false) + `},"constraints":[]},
	 {"v":"1","type":{"name":"input","version":"1"},"id":"i","data":{"title":` + param("TITLE") + `,"type":` + s("org.graylog2.inputs.gelf.http.GELFHttpInput") + `,
	   "global":` + b(true) + `,"configuration":{"bind_address":` + s("127.0.0.1") + `,"port":` + param("PORT") + `},
	   "static_fields":{"team":` + s("ops") + `},
	   "extractors":[{"title":` + s("took") + `,"type":` + s("REGEX") + `,"cursor_strategy":` + s("COPY") + `,"target_field":` + s("took") + `,
	     "source_field":` + s("message") + `,"configuration":{"regex_value":` + s(`took (\d+) ms`) + `},"converters":[],
	     "condition_type":` + s("NONE") + `,"condition_value":` + s("") + `,"order":{"@type":"integer","@value":0}}]},"constraints":[]}]}`
	h.Do("POST", "/system/content_packs", pack, root).Want(t, http.StatusCreated)
	h.Do("POST", "/system/content_packs", pack, root).Want(t, http.StatusBadRequest)
	h.Do("POST", "/system/content_packs/e2e-pack/1/installations", `{"parameters":{"TITLE":{"@type":"string","@value":"web"}}}`, root).
		WantError(t, http.StatusBadRequest, "Missing parameters: [PORT]")

	install := fmt.Sprintf(`{"parameters":{"TITLE":{"@type":"string","@value":"pack web"},"PORT":{"@type":"integer","@value":%d}},"comment":"e2e"}`, port)
	in := h.Do("POST", "/system/content_packs/e2e-pack/1/installations", install, root).Want(t, http.StatusOK)
	ids := map[string]string{}
	for _, e := range in.Get("entities").Array() {
		ids[e.Get("type.name").String()] = e.Get("id").String()
	}
	if len(ids) != 3 {
		t.Fatalf("installation %s", in.Body)
	}
	if g := h.Do("GET", "/system/grok/"+ids["grok_pattern"], nil, root).Want(t, http.StatusOK); g.Get("name").String() != "E2E_TOOK" {
		t.Errorf("grok pattern %s", g.Body)
	}
	st := h.Do("GET", "/streams/"+ids["stream"], nil, root).Want(t, http.StatusOK)
	if st.Get("title").String() != "pack web" || st.Get("rules.#").Int() != 1 || st.Get("rules.0.value").String() != "web-1" {
		t.Errorf("stream %s", st.Body)
	}
	inp := h.Do("GET", "/system/inputs/"+ids["input"], nil, root).Want(t, http.StatusOK)
	if inp.Get("title").String() != "pack web" || inp.Get("attributes.port").Int() != int64(port) || inp.Get("static_fields.team").String() != "ops" {
		t.Errorf("input %s", inp.Body)
	}
	ex := h.Do("GET", "/system/inputs/"+ids["input"]+"/extractors", nil, root).Want(t, http.StatusOK)
	if ex.Get("total").Int() != 1 || ex.Get("extractors.0.extractor_config.regex_value").String() != `took (\d+) ms` {
		t.Errorf("extractors %s", ex.Body)
	}
	list := h.Do("GET", "/system/content_packs", nil, root).Want(t, http.StatusOK)
	if list.Get("content_pack_metadata.e2e-pack.1.installation_count").Int() != 1 {
		t.Errorf("list %s", list.Body)
	}
	h.Do("DELETE", "/system/content_packs/e2e-pack/1", nil, root).Want(t, http.StatusBadRequest)

	// Export through the catalog, then uninstall and install the export.
	cat := h.Do("GET", "/system/catalog", nil, root).Want(t, http.StatusOK)
	var want []map[string]any
	for _, e := range cat.Get("entities").Array() {
		if id := e.Get("id").String(); id == ids["grok_pattern"] || id == ids["stream"] || id == ids["input"] {
			want = append(want, map[string]any{"id": id, "type": e.Get("type").Value()})
		}
	}
	if len(want) != 3 {
		t.Fatalf("catalog lacks the installed entities: %s", cat.Body)
	}
	resolved := h.Do("POST", "/system/catalog", map[string]any{"entities": want}, root).Want(t, http.StatusOK)

	in2 := h.Do("GET", "/system/content_packs/e2e-pack/installations", nil, root).Want(t, http.StatusOK)
	instID := in2.Get("installations.0._id").String()
	det := h.Do("GET", "/system/content_packs/e2e-pack/installations/"+instID+"/uninstall_details", nil, root).Want(t, http.StatusOK)
	if det.Get("entities.#").Int() != 3 {
		t.Errorf("uninstall details %s", det.Body)
	}
	un := h.Do("DELETE", "/system/content_packs/e2e-pack/installations/"+instID, nil, root).Want(t, http.StatusOK)
	if un.Get("uninstalled.entities.#").Int() != 3 {
		t.Errorf("uninstalled %s", un.Body)
	}
	h.Do("GET", "/system/grok/"+ids["grok_pattern"], nil, root).Want(t, http.StatusNotFound)
	h.Do("GET", "/streams/"+ids["stream"], nil, root).Want(t, http.StatusNotFound)
	h.Do("GET", "/system/inputs/"+ids["input"], nil, root).Want(t, http.StatusNotFound)
	h.Do("DELETE", "/system/content_packs/e2e-pack", nil, root).Want(t, http.StatusNoContent)

	export := map[string]any{"v": "1", "id": "exported", "rev": 1, "name": "exported", "summary": "", "description": "",
		"vendor": "", "url": "", "parameters": []any{}, "entities": resolved.Get("entities").Value()}
	h.Do("POST", "/system/content_packs", export, root).Want(t, http.StatusCreated)
	re := h.Do("POST", "/system/content_packs/exported/1/installations", `{"parameters":{}}`, root).Want(t, http.StatusOK)
	for _, e := range re.Get("entities").Array() {
		switch e.Get("type.name").String() {
		case "grok_pattern":
			h.Do("GET", "/system/grok/"+e.Get("id").String(), nil, root).Want(t, http.StatusOK)
		case "stream":
			if r := h.Do("GET", "/streams/"+e.Get("id").String(), nil, root).Want(t, http.StatusOK); r.Get("rules.#").Int() != 1 {
				t.Errorf("re-installed stream %s", r.Body)
			}
		case "input":
			if r := h.Do("GET", "/system/inputs/"+e.Get("id").String()+"/extractors", nil, root).Want(t, http.StatusOK); r.Get("total").Int() != 1 {
				t.Errorf("re-installed extractors %s", r.Body)
			}
		}
	}
	if re.Get("entities.#").Int() != 3 {
		t.Errorf("re-installation %s", re.Body)
	}
}
