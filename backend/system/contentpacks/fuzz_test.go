package contentpacks_test

import (
	"context"
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"net/url"
	"strings"
	"testing"

	"github.com/tidwall/gjson"

	"github.com/loggate/loggate/auth"
	"github.com/loggate/loggate/router/api"
	"github.com/loggate/loggate/router/routertest"
)

// FuzzContentPack uploads a pack and installs it with parameter values,
// both outside input: an upload is a 201 or a 400, an install a 200 or a
// 400 (or a 404 for a pack that names no revision), in Graylog's error
// shape, never a 500 or a panic; an installation uninstalls and its pack
// deletes, leaving nothing installed.
func FuzzContentPack(f *testing.F) {
	view := viewEntity("v", "dashboard", "2", viewSpec{filterStream: "e2", widget: "e2"})
	for _, seed := range [][2]string{
		{pack("g", 1, "", grokEntity), `{}`},
		{pack("s", 1, params3, streamEntity(sref("web"))), `{"parameters":{"OFF":{"@type":"boolean","@value":false},"SRC":{"@type":"string","@value":"web"}}}`},
		{pack("o", 1, outputParams, outputEntity("o1")+","+streamWithOutputs("o1")), outputValues},
		{pack("w", 1, "", whitelistEntity("w1", "e-1", "literal", "http://example.org/")), `{}`},
		{pack("d", 1, params3, view+","+streamEntity(sref("web"))), `{"parameters":{"OFF":{"@type":"boolean","@value":true},"SRC":{"@type":"string","@value":"x"}}}`},
		{pack("d1", 1, params3, dashboardV1("d1")+","+streamEntity(sref("web"))), `{"parameters":{"TITLE":{"@type":"string","@value":"t"},"OFF":{"@type":"boolean","@value":true},"SRC":{"@type":"string","@value":"x"}}}`},
		{`{"v":"1","id":"x","rev":1,"entities":[{"v":"1","type":{"name":"lookup_table","version":"1"},"id":"t","data":{}}]}`, `{"parameters":[]}`},
	} {
		f.Add(seed[0], seed[1])
	}
	e := newEnvWith(f, true)
	ctx := auth.WithPrincipal(context.Background(), routertest.Principal(f, "*"))
	do := func(method, path, body string) *httptest.ResponseRecorder {
		r := httptest.NewRequestWithContext(ctx, method, path, strings.NewReader(body))
		r.Header.Set("Content-Type", "application/json")
		w := httptest.NewRecorder()
		e.h.ServeHTTP(w, r)
		return w
	}
	f.Fuzz(func(t *testing.T, body, params string) {
		want := func(w *httptest.ResponseRecorder, what string, codes ...int) bool {
			t.Helper()
			for _, c := range codes {
				if w.Code == c {
					if c >= 400 {
						var eb api.ErrorBody
						if err := json.Unmarshal(w.Body.Bytes(), &eb); err != nil || eb.Message == "" {
							t.Errorf("%s: %d without Graylog's error shape: %s", what, w.Code, w.Body)
						}
					}
					return c < 300
				}
			}
			t.Fatalf("%s: %d %s", what, w.Code, w.Body)
			return false
		}
		up := do("POST", "/system/content_packs", body)
		if !want(up, "upload", http.StatusCreated, http.StatusBadRequest) {
			return
		}
		id, rev := gjson.Get(body, "id").String(), gjson.Get(body, "rev").String()
		base := "/system/content_packs/" + url.PathEscape(id)
		in := do("POST", base+"/"+url.PathEscape(rev)+"/installations", params)
		if want(in, "install", http.StatusOK, http.StatusBadRequest, http.StatusNotFound) {
			want(do("DELETE", base+"/installations/"+gjson.Get(in.Body.String(), "_id").String(), ""), "uninstall", http.StatusOK)
		}
		want(do("DELETE", base, ""), "delete", http.StatusNoContent, http.StatusNotFound)
	})
}
