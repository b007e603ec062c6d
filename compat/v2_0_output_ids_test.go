package compat_test

import (
	"net/http"
	"path/filepath"
	"strings"
	"testing"

	"github.com/loggate/loggate/cmd/loggate/node/nodetest"
)

// Clients older than 2.0 see _id in the output records of stream responses;
// 2.0 and later, and /system/outputs for everyone, see id.
func TestOutputIDsGolden(t *testing.T) {
	h := nodetest.Start(t)
	root := nodetest.AsRoot()
	is := h.Do("GET", "/system/indices/index_sets", nil, root).Get(`index_sets.#(default==true).id`).String()
	sid := h.Do("POST", "/streams", map[string]any{"title": "forwarded", "index_set_id": is}, root).Want(t, http.StatusCreated).Get("stream_id").String()
	oid := h.Do("POST", "/system/outputs", map[string]any{"title": "gelf", "type": "org.graylog2.outputs.GelfOutput",
		"configuration": map[string]any{"hostname": "gelf.example.org", "port": 12201, "protocol": "TCP"}}, root).Want(t, http.StatusCreated).Get("id").String()
	h.Do("POST", "/streams/"+sid+"/outputs", map[string]any{"outputs": []string{oid}}, root).Want(t, http.StatusAccepted)
	names := map[string]string{sid: "<stream id>", oid: "<output id>", is: "<index set id>"}

	for _, rel := range []string{"1.3", "2.0"} {
		for _, c := range []struct{ name, path, old string }{
			{"stream", "/streams/" + sid + "?pretty=true", "outputs.0._id"},
			{"streams", "/streams?pretty=true", `streams.#(id=="` + sid + `").outputs.0._id`},
			{"stream-outputs", "/streams/" + sid + "/outputs?pretty=true", "outputs.0._id"},
			{"stream-output", "/streams/" + sid + "/outputs/" + oid + "?pretty=true", "_id"},
			{"system-outputs", "/system/outputs?pretty=true", ""},
		} {
			t.Run(rel+"/"+c.name, func(t *testing.T) {
				r := h.Do("GET", c.path, nil, root, nodetest.Header("X-API-Version", rel)).Want(t, http.StatusOK)
				old := rel == "1.3" && c.old != ""
				if got := r.Get(c.old).String() == oid; c.old != "" && got != old {
					t.Errorf("%s: %s present = %v, want %v: %s", c.path, c.old, got, old, r.Body)
				}
				if old && strings.Contains(string(r.Body), `"id" : "`+oid+`"`) {
					t.Errorf("the output still has id for a %s client: %s", rel, r.Body)
				}
				ex := exchange{method: "GET", path: strings.NewReplacer(sid, "{stream}", oid, "{output}").Replace(c.path), release: rel}
				compare(t, filepath.Join("..", "fixtures", "compat", rel, "output-ids-"+c.name+".golden"), render(ex, r, names))
			})
		}
	}
}
