package loggers_test

import (
	"log/slog"
	"net/http"
	"net/http/httptest"
	"reflect"
	"testing"

	"github.com/loggate/loggate/auth"
	"github.com/loggate/loggate/backend/system/loggers"
	"github.com/loggate/loggate/router/api"
	"github.com/loggate/loggate/router/routertest"
)

func newRouter(levels *loggers.Levels) http.Handler { return routertest.Handler(levels.Routes()) }

func principal(t testing.TB, perms ...string) *auth.Principal {
	t.Helper()
	return routertest.Principal(t, perms...)
}

func serve(t testing.TB, h http.Handler, p *auth.Principal, method, path string) *httptest.ResponseRecorder {
	t.Helper()
	return routertest.Serve(h, p, method, path, "")
}

func checkError(t testing.TB, rec *httptest.ResponseRecorder, status int, msg string) {
	t.Helper()
	if rec.Code != status {
		t.Fatalf("status = %d, want %d; body %s", rec.Code, status, rec.Body)
	}
	if msg == "" {
		return
	}
	body := routertest.Decode[api.ErrorBody](t, rec)
	if body.Type != "ApiError" || body.Message != msg {
		t.Errorf("body = %+v, want ApiError %q", body, msg)
	}
}

type loggerJSON struct {
	Level       string `json:"level"`
	LevelSyslog int    `json:"level_syslog"`
}

type loggersJSON struct {
	Total   int                   `json:"total"`
	Loggers map[string]loggerJSON `json:"loggers"`
}

// handlerLevels has loggers obtained from code and one configured through
// the API only.
func handlerLevels(t *testing.T) *loggers.Levels {
	t.Helper()
	levels := loggers.New(newCapture(slog.Level(-100)))
	levels.Logger("loggate.auth")
	levels.Logger("loggate.auth.ldap")
	if err := levels.SetLevel("loggate.auth", loggers.LevelDebug); err != nil {
		t.Fatal(err)
	}
	if err := levels.SetLevel("org.example", loggers.LevelWarn); err != nil {
		t.Fatal(err)
	}
	return levels
}

func TestListLoggers(t *testing.T) {
	all := map[string]loggerJSON{
		"loggate":           {"info", 400},
		"loggate.auth":      {"debug", 500},
		"loggate.auth.ldap": {"debug", 500},
		"org.example":       {"warn", 300},
	}
	tests := []struct {
		name  string
		perms []string
		want  map[string]loggerJSON
	}{
		{"wildcard", []string{"*"}, all},
		{"all loggers", []string{"loggers:read"}, all},
		{"one logger", []string{"loggers:read:loggate.auth"}, map[string]loggerJSON{"loggate.auth": {"debug", 500}}},
		{"two loggers", []string{"loggers:read:loggate,org.example"}, map[string]loggerJSON{"loggate": {"info", 400}, "org.example": {"warn", 300}}},
		{"other permission", []string{"loggers:edit:loggate.auth"}, map[string]loggerJSON{}},
		{"nothing", nil, map[string]loggerJSON{}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			rec := serve(t, newRouter(handlerLevels(t)), principal(t, tt.perms...), http.MethodGet, "/system/loggers")
			if rec.Code != http.StatusOK {
				t.Fatalf("status = %d; body %s", rec.Code, rec.Body)
			}
			got := routertest.Decode[loggersJSON](t, rec)
			if got.Total != len(tt.want) || !reflect.DeepEqual(got.Loggers, tt.want) {
				t.Errorf("got total %d %v, want total %d %v", got.Total, got.Loggers, len(tt.want), tt.want)
			}
		})
	}
}

func TestListLoggersAnonymous(t *testing.T) {
	rec := serve(t, newRouter(handlerLevels(t)), nil, http.MethodGet, "/system/loggers")
	checkError(t, rec, http.StatusUnauthorized, "")
}

type subsystemJSON struct {
	Title       string   `json:"title"`
	Categories  []string `json:"categories"`
	Description string   `json:"description"`
	Level       string   `json:"level"`
	LevelSyslog int      `json:"level_syslog"`
}

func TestListSubsystems(t *testing.T) {
	levels := loggers.New(newCapture(slog.Level(-100)))
	// The indexer inherits from loggate; authentication has its own level.
	if err := levels.SetLevel("loggate", loggers.LevelWarn); err != nil {
		t.Fatal(err)
	}
	if err := levels.SetLevel("loggate.auth", loggers.LevelTrace); err != nil {
		t.Fatal(err)
	}
	all := map[string]subsystemJSON{
		"graylog":        {"Graylog", []string{"loggate"}, "All messages from Graylog-owned systems.", "warn", 300},
		"indexer":        {"Indexer", []string{"loggate.indexer"}, "All messages related to indexing and searching.", "warn", 300},
		"authentication": {"Authentication", []string{"loggate.auth"}, "All user authentication messages.", "trace", 600},
		"sockets":        {"Sockets", []string{"loggate.inputs"}, "All messages related to socket communication.", "warn", 300},
	}
	tests := []struct {
		name  string
		perms []string
		want  []string
	}{
		{"wildcard", []string{"*"}, []string{"graylog", "indexer", "authentication", "sockets"}},
		{"one", []string{"loggers:readsubsystem:indexer"}, []string{"indexer"}},
		{"read loggers is not enough", []string{"loggers:read"}, nil},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			rec := serve(t, newRouter(levels), principal(t, tt.perms...), http.MethodGet, "/system/loggers/subsystems")
			if rec.Code != http.StatusOK {
				t.Fatalf("status = %d; body %s", rec.Code, rec.Body)
			}
			got := routertest.Decode[struct {
				Subsystems map[string]subsystemJSON `json:"subsystems"`
			}](t, rec)
			want := map[string]subsystemJSON{}
			for _, name := range tt.want {
				want[name] = all[name]
			}
			if !reflect.DeepEqual(got.Subsystems, want) {
				t.Errorf("got %+v, want %+v", got.Subsystems, want)
			}
		})
	}
}

func TestSetSubsystemLevel(t *testing.T) {
	tests := []struct {
		name   string
		perms  []string
		path   string
		status int
		msg    string
		// want is the level of loggate.inputs afterwards.
		want loggers.Level
	}{
		{"sets", []string{"*"}, "sockets/level/DEBUG", http.StatusNoContent, "", loggers.LevelDebug},
		{"own permission", []string{"loggers:editsubsystem:sockets"}, "sockets/level/trace", http.StatusNoContent, "", loggers.LevelTrace},
		{"unknown subsystem", []string{"*"}, "nope/level/debug", http.StatusNotFound, "No such logging subsystem: [nope]", loggers.LevelInfo},
		{"unknown subsystem before permission", nil, "nope/level/debug", http.StatusNotFound, "No such logging subsystem: [nope]", loggers.LevelInfo},
		{"unknown level", []string{"*"}, "sockets/level/loud", http.StatusBadRequest, `Unknown log level "loud"; use one of trace, debug, info, warn, error, fatal, off, all`, loggers.LevelInfo},
		{"no permission", []string{"loggers:editsubsystem:indexer"}, "sockets/level/debug", http.StatusForbidden, "Not authorized", loggers.LevelInfo},
		{"permission before level", nil, "sockets/level/loud", http.StatusForbidden, "Not authorized", loggers.LevelInfo},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			levels := loggers.New(newCapture(slog.Level(-100)))
			gelf := levels.Logger("loggate.inputs.gelf")
			rec := serve(t, newRouter(levels), principal(t, tt.perms...), http.MethodPut, "/system/loggers/subsystems/"+tt.path)
			checkError(t, rec, tt.status, tt.msg)
			if rec.Code == http.StatusNoContent && rec.Body.Len() != 0 {
				t.Errorf("204 with body %q", rec.Body)
			}
			if got := levels.Effective("loggate.inputs"); got != tt.want {
				t.Errorf("loggate.inputs is %v, want %v", got, tt.want)
			}
			checkEnabled(t, "loggate.inputs.gelf", gelf, tt.want)
			if got := levels.Effective("loggate"); got != loggers.LevelInfo {
				t.Errorf("loggate changed to %v", got)
			}
		})
	}
}

func TestSetLoggerLevel(t *testing.T) {
	tests := []struct {
		name   string
		perms  []string
		path   string
		status int
		msg    string
		// logger's level afterwards.
		logger string
		want   loggers.Level
	}{
		{"sets", []string{"*"}, "loggate.auth/level/Trace", http.StatusNoContent, "", "loggate.auth", loggers.LevelTrace},
		{"creates a config", []string{"*"}, "org.graylog2/level/error", http.StatusNoContent, "", "org.graylog2", loggers.LevelError},
		{"own permission", []string{"loggers:edit:loggate.auth"}, "loggate.auth/level/warn", http.StatusNoContent, "", "loggate.auth", loggers.LevelWarn},
		{"other logger's permission", []string{"loggers:edit:loggate.auth"}, "loggate.indexer/level/warn", http.StatusForbidden, "Not authorized", "loggate.indexer", loggers.LevelInfo},
		{"read is not edit", []string{"loggers:read"}, "loggate.auth/level/warn", http.StatusForbidden, "Not authorized", "loggate.auth", loggers.LevelInfo},
		{"unknown level", []string{"*"}, "loggate.auth/level/verbose", http.StatusBadRequest, `Unknown log level "verbose"; use one of trace, debug, info, warn, error, fatal, off, all`, "loggate.auth", loggers.LevelInfo},
		{"space in name", []string{"*"}, "bad%20name/level/debug", http.StatusBadRequest, `Invalid logger name "bad name": use letters, digits, '_', '-' and dots`, "bad name", loggers.LevelInfo},
		{"empty segment", []string{"*"}, "a..b/level/debug", http.StatusBadRequest, "", "a..b", loggers.LevelInfo},
		{"wildcard name", []string{"*"}, "*/level/debug", http.StatusBadRequest, "", "*", loggers.LevelInfo},
		{"colon in name", []string{"*"}, "loggate:x/level/debug", http.StatusBadRequest, "", "loggate:x", loggers.LevelInfo},
		{"name checked before permission", nil, "a,b/level/debug", http.StatusBadRequest, "", "a,b", loggers.LevelInfo},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			levels := loggers.New(newCapture(slog.Level(-100)))
			lg := levels.Logger(tt.logger)
			rec := serve(t, newRouter(levels), principal(t, tt.perms...), http.MethodPut, "/system/loggers/"+tt.path)
			checkError(t, rec, tt.status, tt.msg)
			if got := levels.Effective(tt.logger); got != tt.want {
				t.Errorf("%s is %v, want %v", tt.logger, got, tt.want)
			}
			checkEnabled(t, tt.logger, lg, tt.want)
		})
	}
}

// TestSetThenList goes through the API only: a level set with PUT shows in
// the listing, on the logger and below it.
func TestSetThenList(t *testing.T) {
	levels := loggers.New(newCapture(slog.Level(-100)))
	levels.Logger("loggate.indexer.bulk")
	h := newRouter(levels)
	admin := principal(t, "*")
	checkError(t, serve(t, h, admin, http.MethodPut, "/system/loggers/loggate.indexer/level/debug"), http.StatusNoContent, "")
	got := routertest.Decode[loggersJSON](t, serve(t, h, admin, http.MethodGet, "/system/loggers"))
	want := map[string]loggerJSON{
		"loggate":              {"info", 400},
		"loggate.indexer":      {"debug", 500},
		"loggate.indexer.bulk": {"debug", 500},
	}
	if got.Total != 3 || !reflect.DeepEqual(got.Loggers, want) {
		t.Errorf("got total %d %v, want %v", got.Total, got.Loggers, want)
	}
}

func TestRoutesDocumentPermissions(t *testing.T) {
	want := map[string]string{
		"GET /system/loggers":                                      "loggers:read:{loggerName}",
		"GET /system/loggers/subsystems":                           "loggers:readsubsystem:{subsystem}",
		"PUT /system/loggers/subsystems/{subsystem}/level/{level}": "loggers:editsubsystem:{subsystem}",
		"PUT /system/loggers/{loggerName}/level/{level}":           "loggers:edit:{loggerName}",
		"GET /system/loggers/messages/recent":                      "loggersmessages:read",
	}
	routes := loggers.New(newCapture(0)).Routes()
	if len(routes) != len(want) {
		t.Fatalf("got %d routes, want %d", len(routes), len(want))
	}
	for _, rt := range routes {
		key := rt.Method + " " + rt.Path
		if p, ok := want[key]; !ok || p != rt.Permission {
			t.Errorf("route %s has permission %q, want %q", key, rt.Permission, p)
		}
		// Graylog's @RequiresPermissions, checked by the router.
		static := rt.Path == "/system/loggers/messages/recent"
		if rt.Public || rt.StaticPermission() != static || rt.Summary == "" {
			t.Errorf("route %s: public=%v static=%v summary=%q", key, rt.Public, rt.StaticPermission(), rt.Summary)
		}
	}
}
