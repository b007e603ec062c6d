package compat

import (
	"bytes"
	"context"
	"net/http"
	"strconv"
	"strings"

	"github.com/tidwall/gjson"
	"github.com/tidwall/sjson"
)

// pipelinePluginPrefix is where 2.x served the pipeline processor: it was
// a plugin until 3.0 bundled it under /system/pipelines.
const pipelinePluginPrefix = "/plugins/org.graylog.plugins.pipelineprocessor"

// allMessagesID is the "All messages" stream, which 2.x's pipeline
// connections called "default".
const allMessagesID = "000000000000000000000001"

// PipelinesPath is 3.0's move of the pipeline processor resources from
// /plugins/org.graylog.plugins.pipelineprocessor/system/pipelines/… to
// /system/pipelines/… (go-graylog's v2 client still calls the old paths).
// The old paths do not exist in 4.0, so they are recognised on the default
// release too. 2.x connected pipelines to the pseudo stream "default";
// requests on the old paths may still say so, and their answers do.
func PipelinesPath() *Change {
	const old = pipelinePluginPrefix + "/system/pipelines"
	var routes []Route
	for _, spec := range []string{
		"GET /rule", "POST /rule", "GET /rule/{id}", "PUT /rule/{id}", "DELETE /rule/{id}",
		"POST /rule/parse", "POST /rule/multiple", "GET /rule/functions",
		"GET /pipeline", "POST /pipeline", "GET /pipeline/{id}", "PUT /pipeline/{id}", "DELETE /pipeline/{id}", "POST /pipeline/parse",
		"GET /connections", "GET /connections/{streamId}", "POST /connections/to_stream", "POST /connections/to_pipeline",
		"POST /simulate",
	} {
		method, path, _ := strings.Cut(spec, " ")
		routes = append(routes, R(method+" "+old+path))
	}
	return &Change{
		Release:     MustRelease("3.0"),
		Removed:     true,
		Description: "The pipeline processor's resources moved from `/plugins/org.graylog.plugins.pipelineprocessor/system/pipelines/…` to `/system/pipelines/…`; the old paths are still served, with 2.x's `\"default\"` stream id for the \"All messages\" stream in connections.",
		Routes:      routes,
		Recognise:   func(context.Context, *http.Request, Vars) bool { return true },
		Request: func(_ context.Context, x *Exchange) error {
			path := strings.TrimPrefix(x.Req.URL.EscapedPath(), x.prefix+pipelinePluginPrefix)
			if path == "/system/pipelines/connections/default" {
				path = "/system/pipelines/connections/" + allMessagesID
			}
			if err := setPath(x.Req, x.prefix+path); err != nil {
				return err
			}
			if !strings.HasPrefix(path, "/system/pipelines/connections/to_") && path != "/system/pipelines/simulate" {
				return nil
			}
			body, err := x.Body()
			if err != nil || len(body) == 0 {
				return err
			}
			for _, p := range []string{"stream_id", "stream_ids"} {
				body, err = defaultToID(body, p)
				if err != nil {
					return err
				}
			}
			x.SetBody(body)
			return nil
		},
		Response: func(_ context.Context, x *Exchange, body []byte) ([]byte, error) {
			if !strings.Contains(x.Route.Template.String(), "/connections") || !bytes.Contains(body, []byte(allMessagesID)) {
				return body, nil
			}
			return idToDefault(body)
		},
	}
}

// defaultToID replaces "default" by the All messages stream's id in a
// request's stream_id, or in its stream_ids list.
func defaultToID(body []byte, field string) ([]byte, error) {
	v := gjson.GetBytes(body, field)
	switch {
	case v.Type == gjson.String && v.Str == "default":
		return sjson.SetBytes(body, field, allMessagesID)
	case v.IsArray():
		for i, e := range v.Array() {
			if e.Type == gjson.String && e.Str == "default" {
				var err error
				if body, err = sjson.SetBytes(body, field+"."+strconv.Itoa(i), allMessagesID); err != nil {
					return nil, err
				}
			}
		}
	}
	return body, nil
}

// idToDefault names the All messages stream "default" in connections: one
// connection object or a list of them.
func idToDefault(body []byte) ([]byte, error) {
	root := gjson.ParseBytes(body)
	if root.IsArray() {
		for i, c := range root.Array() {
			if c.Get("stream_id").Str == allMessagesID {
				var err error
				if body, err = sjson.SetBytes(body, strconv.Itoa(i)+".stream_id", "default"); err != nil {
					return nil, err
				}
			}
		}
		return body, nil
	}
	if root.Get("stream_id").Str == allMessagesID {
		return sjson.SetBytes(body, "stream_id", "default")
	}
	return body, nil
}
