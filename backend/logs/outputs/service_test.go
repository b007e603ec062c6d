package outputs_test

import (
	"context"
	"encoding/json"
	"errors"
	"maps"
	"net/http"
	"reflect"
	"testing"

	"github.com/loggate/loggate/backend/logs/outputs"
	"github.com/loggate/loggate/backend/store"
	"github.com/loggate/loggate/router/routertest"
)

func TestPersistence(t *testing.T) {
	e := newEnv(t)
	ctx := context.Background()
	a := e.create(`{"title":"a","type":"` + gelf + `","configuration":{"hostname":"h","port":"1","protocol":"TCP+TLS","tls_trust_cert_chain":"/ca.pem"},"content_pack":"cp"}`)
	b := e.create(minimal)
	if _, err := e.svc.Update(ctx, b.ID, map[string]json.RawMessage{"title": json.RawMessage(`"b2"`)}); err != nil {
		t.Fatal(err)
	}
	before, err := e.svc.List(ctx)
	if err != nil {
		t.Fatal(err)
	}
	e.reopen()
	after, err := e.svc.List(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if !reflect.DeepEqual(before, after) || len(after) != 2 {
		t.Fatalf("before %+v\nafter  %+v", before, after)
	}
	got, err := e.svc.Get(ctx, a.ID)
	if err != nil {
		t.Fatal(err)
	}
	// Values keep their declared Go types through the store.
	if got.Configuration["port"] != 1 || got.Configuration["protocol"] != "TCP+TLS" || got.Configuration["tcp_no_delay"] != false ||
		got.CreatedAt.UnixMilli() != now.UnixMilli() || *got.ContentPack != "cp" || after[1].Title != "b2" {
		t.Errorf("read back %+v", got)
	}
}

func TestGetWrapsNotFound(t *testing.T) {
	e := newEnv(t)
	for _, id := range []string{"5f0000000000000000000000", "", "x"} {
		if _, err := e.svc.Get(context.Background(), id); !errors.Is(err, store.ErrNotFound) {
			t.Errorf("Get(%q): %v, want store.ErrNotFound", id, err)
		}
	}
}

func TestCountByType(t *testing.T) {
	e := newEnv(t)
	total, byType, err := e.svc.CountByType(context.Background())
	if err != nil || total != 0 || len(byType) != 0 {
		t.Errorf("empty: %d %v %v", total, byType, err)
	}
	e.create(minimal)
	e.create(minimal)
	total, byType, err = e.svc.CountByType(context.Background())
	if err != nil || total != 2 || !maps.Equal(byType, map[string]int{gelf: 2}) {
		t.Errorf("%d %v %v", total, byType, err)
	}
}

// failingStreams fails to attach, for a reason other than a missing stream.
type failingStreams struct{ *fakeStreams }

func (failingStreams) AddOutput(context.Context, string, string) error { return errBroken }

func TestCreateUndoesOnStreamFailure(t *testing.T) {
	e := newEnv(t)
	e.svc = outputs.NewService(e.st, failingStreams{e.streams}, clock)
	_, err := e.svc.Create(context.Background(), outputs.CreateRequest{
		Title: "a", Type: gelf, Streams: []string{"s1"},
		Configuration: map[string]json.RawMessage{"hostname": json.RawMessage(`"h"`), "port": json.RawMessage(`1`), "protocol": json.RawMessage(`"UDP"`)},
	}, "ann")
	if !errors.Is(err, errBroken) {
		t.Fatalf("got %v, want the streams' error", err)
	}
	if n := e.count(); n != 0 {
		t.Errorf("%d outputs stored", n)
	}
}

func TestCreateReportsFailedUndo(t *testing.T) {
	e := newEnv(t)
	e.streams.removeErr = errors.New("detach failed")
	rec := e.Admin("POST", "/system/outputs", `{"title":"a","type":"`+gelf+`","configuration":{"hostname":"h","port":1,"protocol":"TCP"},"streams":["nope"]}`)
	// The client sees the cause; the undo's failure is only logged.
	routertest.WantError(t, rec, http.StatusNotFound, "Stream <nope> not found!")
	if n := e.count(); n != 0 {
		t.Errorf("%d outputs stored", n)
	}
}
