package search

import (
	"testing"
	"time"

	"github.com/tidwall/gjson"

	"github.com/loggate/loggate/backend/logs/messages"
	"github.com/loggate/loggate/router/api"
	"github.com/loggate/loggate/router/routertest"
)

func TestAnalyze(t *testing.T) {
	svc := NewService(nil, fakeStreams{}, fakeSets{{ID: "is1", IndexPrefix: "graylog"}, {ID: "is2", IndexPrefix: "app_logs"}}, Options{})
	h := routertest.Handler(NewHandler(svc).Routes())
	tests := []struct {
		name, path string
		perms      []string
		status     int
		want       string // the tokens as JSON
	}{
		{"standard analyzer", "/messages/graylog_0/analyze?string=GET%20%2Findex.html%20200%20took%2012ms%20user_id%3DAdmin", []string{"messages:analyze"}, 200,
			`["get","index.html","200","took","12ms","user_id","admin"]`},
		{"prefix with an underscore", "/messages/app_logs_12/analyze?string=Hello+World", []string{"messages:analyze"}, 200, `["hello","world"]`},
		{"nothing to cut", "/messages/graylog_0/analyze?string=---", []string{"messages:analyze"}, 200, `[]`},
		{"standard named", "/messages/graylog_0/analyze?string=a&analyzer=standard", []string{"messages:analyze"}, 200, `["a"]`},
		{"other analyzer", "/messages/graylog_0/analyze?string=a&analyzer=whitespace", []string{"messages:analyze"}, 400, ""},
		{"no string", "/messages/graylog_0/analyze", []string{"messages:analyze"}, 400, ""},
		{"unknown index", "/messages/other_0/analyze?string=a", []string{"messages:analyze"}, 404, ""},
		{"not an index", "/messages/graylog/analyze?string=a", []string{"messages:analyze"}, 404, ""},
		{"no permission", "/messages/graylog_0/analyze?string=a", []string{"messages:read"}, 403, ""},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			rec := routertest.Serve(h, routertest.Principal(t, tc.perms...), "GET", tc.path, "")
			routertest.WantStatus(t, rec, tc.status)
			if tc.status != 200 {
				if gjson.GetBytes(rec.Body.Bytes(), "type").String() != "ApiError" {
					t.Errorf("error body %s", rec.Body)
				}
				return
			}
			if got := gjson.GetBytes(rec.Body.Bytes(), "tokens").Raw; got != tc.want {
				t.Errorf("tokens %s, want %s", got, tc.want)
			}
		})
	}
}

func TestParse(t *testing.T) {
	ts := time.Date(2024, 5, 6, 7, 8, 9, 0, time.UTC)
	parser := func(codec string, config map[string]any, raw []byte, remote string) (messages.Message, error) {
		if codec != "gelf" {
			return messages.Message{}, api.Errorf(api.NotFound, "Codec type %s does not exist.", codec)
		}
		if string(raw) == "bad" {
			return messages.Message{}, api.Errorf(api.Invalid, "Could not decode message")
		}
		return messages.Message{ID: "id-1", Timestamp: ts, Fields: []messages.Field{{Key: "message", Value: string(raw)}, {Key: "source", Value: remote}}}, nil
	}
	h := routertest.Handler(NewHandler(NewService(nil, fakeStreams{}, fakeSets{}, Options{})).SetParser(parser).Routes())
	tests := []struct {
		name, body string
		status     int
		msg        string
	}{
		{"parsed", `{"message":"hello","codec":"gelf","remote_address":"10.0.0.1","configuration":{}}`, 200, ""},
		{"unknown codec", `{"message":"hello","codec":"syslog","remote_address":"10.0.0.1"}`, 404, "Codec type syslog does not exist."},
		{"undecodable", `{"message":"bad","codec":"gelf","remote_address":"10.0.0.1"}`, 400, "Could not decode message"},
		{"no codec", `{"message":"hello"}`, 400, "message and codec are required"},
		{"no body", ``, 400, "Request body is mandatory"},
		{"not json", `{`, 400, ""},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			rec := routertest.Serve(h, routertest.Principal(t), "POST", "/messages/parse", tc.body)
			if tc.status != 200 {
				routertest.WantStatus(t, rec, tc.status)
				if tc.msg != "" {
					routertest.WantError(t, rec, tc.status, tc.msg)
				}
				return
			}
			routertest.WantStatus(t, rec, 200)
			b := gjson.ParseBytes(rec.Body.Bytes())
			if !b.Get("index").Exists() || b.Get("index").Type != gjson.Null || b.Get("highlight_ranges").Exists() {
				t.Errorf("index and highlight ranges: %s", rec.Body)
			}
			m := b.Get("message")
			if m.Get("id").String() != "id-1" || m.Get("message").String() != "hello" || m.Get("source").String() != "10.0.0.1" ||
				m.Get("fields._id").String() != "id-1" || m.Get("timestamp").String() != "2024-05-06T07:08:09.000Z" ||
				m.Get("field_count").Int() != 5 || !m.Get("streams").IsArray() {
				t.Errorf("message %s", m.Raw)
			}
		})
	}
}
