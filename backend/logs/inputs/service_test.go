package inputs_test

import (
	"errors"
	"maps"
	"reflect"
	"strings"
	"testing"

	"github.com/loggate/loggate/backend/logs/inputs"
	"github.com/loggate/loggate/backend/store"
	"github.com/loggate/loggate/router/routertest"
)

func TestPersistence(t *testing.T) {
	e := newEnv(t)
	ctx := t.Context()
	a := e.create(udpBody)
	b := e.create(`{"title":"tcp","type":"` + tcp + `","node":"n1","configuration":{"bind_address":"0.0.0.0","port":"1","tls_key_password":"hunter2","tls_enable":"true"}}`)
	routertest.WantStatus(t, e.Admin("PUT", "/system/inputs/"+a, `{"title":"renamed","type":"`+udp+`","global":true,"configuration":{"bind_address":"::","port":2}}`), 201)
	before, err := e.svc.All(ctx)
	if err != nil {
		t.Fatal(err)
	}
	listBefore := e.Admin("GET", "/system/inputs", "").Body.String()
	e.reopen()
	after, err := e.svc.All(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if !reflect.DeepEqual(before, after) || len(after) != 2 {
		t.Fatalf("before %+v\nafter  %+v", before, after)
	}
	if listAfter := e.Admin("GET", "/system/inputs", "").Body.String(); listAfter != listBefore {
		t.Errorf("list before %s\nafter %s", listBefore, listAfter)
	}
	got, err := e.svc.Get(ctx, b)
	if err != nil {
		t.Fatal(err)
	}
	// The runner reads the secret in clear and every value in its type.
	if got.Configuration["tls_key_password"] != "hunter2" || got.Configuration["port"] != 1 || got.Configuration["tls_enable"] != true ||
		*got.Node != "n1" || after[0].Title != "renamed" || after[0].Configuration["bind_address"] != "::" {
		t.Errorf("read back %+v", got)
	}
}

func TestGetWrapsNotFound(t *testing.T) {
	e := newEnv(t)
	for _, id := range []string{"5f0000000000000000000000", "", "x"} {
		if _, err := e.svc.Get(t.Context(), id); !errors.Is(err, store.ErrNotFound) {
			t.Errorf("Get(%q): %v, want store.ErrNotFound", id, err)
		}
		if err := e.svc.Delete(t.Context(), id); !errors.Is(err, store.ErrNotFound) {
			t.Errorf("Delete(%q): %v, want store.ErrNotFound", id, err)
		}
	}
}

func TestCount(t *testing.T) {
	e := newEnv(t)
	total, global, byType, err := e.svc.Count(t.Context())
	if err != nil || total != 0 || global != 0 || len(byType) != 0 {
		t.Errorf("empty: %d %d %v %v", total, global, byType, err)
	}
	e.create(udpBody)
	e.create(udpBody)
	e.create(`{"title":"tcp","type":"` + tcp + `","node":"n1","configuration":{"bind_address":"0.0.0.0","port":1}}`)
	total, global, byType, err = e.svc.Count(t.Context())
	if err != nil || total != 3 || global != 2 || !maps.Equal(byType, map[string]int{udp: 2, tcp: 1}) {
		t.Errorf("%d %d %v %v", total, global, byType, err)
	}
}

func TestSummaryOfUnknownType(t *testing.T) {
	s := inputs.Input{ID: "i", Type: "org.example.Gone", Configuration: map[string]any{"a": 1}}.Summary()
	if s.Name != "Unknown Input (org.example.Gone)" || s.Attributes["a"] != 1 || s.StaticFields == nil {
		t.Errorf("%+v", s)
	}
}

// TestDecompressLimitAboveRecordLimit: a decompress_size_limit above the
// journal's record limit is refused on create and update, naming both.
func TestDecompressLimitAboveRecordLimit(t *testing.T) {
	e := newEnv(t, inputs.WithMaxDecompressed(32<<20))
	body := func(limit string) string {
		return `{"title":"gelf","type":"` + udp + `","global":true,"configuration":{"bind_address":"0.0.0.0","port":12201,"decompress_size_limit":` + limit + `}}`
	}
	id := e.create(body("33554432"))
	for _, tc := range []struct{ method, path string }{{"POST", "/system/inputs"}, {"PUT", "/system/inputs/" + id}} {
		rec := e.Admin(tc.method, tc.path, body("2147483647"))
		routertest.WantStatus(t, rec, 400)
		if b := rec.Body.String(); !strings.Contains(b, "2147483647") || !strings.Contains(b, "33554432") || !strings.Contains(b, "decompress_size_limit") {
			t.Errorf("%s %s: %s, want both limits named", tc.method, tc.path, b)
		}
	}
	got, err := e.svc.Get(t.Context(), id)
	if err != nil || got.Configuration["decompress_size_limit"] != 33554432 {
		t.Errorf("stored %v %v, want the allowed limit kept", got.Configuration, err)
	}
}
