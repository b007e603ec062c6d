package jvm_test

import (
	"net/http"
	"strings"
	"testing"

	"github.com/loggate/loggate/backend/system/jvm"
	"github.com/loggate/loggate/router/routertest"
)

func TestGoroutineDump(t *testing.T) {
	full := jvm.GoroutineDump(1 << 24)
	if !strings.HasPrefix(full, "goroutine ") || !strings.Contains(full, "TestGoroutineDump") {
		t.Fatalf("dump does not hold this goroutine:\n%.500s", full)
	}
	cut := jvm.GoroutineDump(100)
	if !strings.HasPrefix(cut, full[:50]) || !strings.Contains(cut, "the dump is cut at 100 bytes") || len(cut) > 200 {
		t.Errorf("cut dump:\n%s", cut)
	}
}

func TestDumpRoutes(t *testing.T) {
	h := routertest.Handler(jvm.NewHandler("node-1").SetProcessBuffer(func() map[string]string {
		return map[string]string{"ProcessBufferProcessor #0": "idle"}
	}).Routes())
	bare := routertest.Handler(jvm.NewHandler("node-1").Routes())
	tests := []struct {
		name    string
		h       http.Handler
		path    string
		perms   []string
		status  int
		wantKey string
		want    string
	}{
		{"thread dump", h, "/system/threaddump", []string{"threads:dump:node-1"}, 200, "threaddump", "goroutine "},
		{"thread dump, every node", h, "/system/threaddump", []string{"threads:dump"}, 200, "threaddump", "goroutine "},
		{"thread dump, other node's permission", h, "/system/threaddump", []string{"threads:dump:node-2"}, 403, "", ""},
		{"thread dump, no permission", h, "/system/threaddump", []string{"jvmstats:read"}, 403, "", ""},
		{"process buffer", h, "/system/processbufferdump", []string{"processbuffer:dump:node-1"}, 200, "processbuffer_dump", "idle"},
		{"process buffer, no permission", h, "/system/processbufferdump", []string{"threads:dump"}, 403, "", ""},
		{"process buffer, no processor", bare, "/system/processbufferdump", []string{"*"}, 200, "processbuffer_dump", ""},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			rec := routertest.Serve(tc.h, routertest.Principal(t, tc.perms...), "GET", tc.path, "")
			routertest.WantStatus(t, rec, tc.status)
			if tc.status != 200 {
				return
			}
			got := routertest.Decode[map[string]any](t, rec)
			if len(got) != 1 {
				t.Fatalf("answer %v", got)
			}
			switch v := got[tc.wantKey].(type) {
			case string:
				if !strings.HasPrefix(v, tc.want) {
					t.Errorf("%s = %.100q", tc.wantKey, v)
				}
			case map[string]any:
				if tc.want == "" && len(v) != 0 || tc.want != "" && v["ProcessBufferProcessor #0"] != tc.want {
					t.Errorf("%s = %v", tc.wantKey, v)
				}
			default:
				t.Errorf("%s = %v", tc.wantKey, got)
			}
		})
	}
}
