package node_test

import (
	"net/http"
	"testing"
	"time"

	"github.com/tidwall/gjson"

	"github.com/loggate/loggate/cmd/loggate/node/nodetest"
)

// An index closed through the indices page keeps its messages out of
// every search, is listed as closed, stays closed across a restart, and
// comes back, listed as reopened, when a person reopens it. The write
// index cannot be closed.
func TestCloseIndex(t *testing.T) {
	h := nodetest.Start(t)
	root := nodetest.AsRoot()
	set := defaultIndexSet(t, h)
	_, addr := h.CreateInput(httpInput)
	ts := float64(time.Now().Unix() - 60)
	for _, m := range []string{"closing one", "closing two"} {
		postGELF(t, addr, "cl", m, ts)
	}
	h.WaitProcessed(2)
	const search = "/search/universal/relative?query=source:cl&range=0"
	found := h.Do("GET", search, nil, root).Want(t, http.StatusOK)
	id := found.Get("messages.0.message._id").String()
	if found.Get("total_results").Int() != 2 || id == "" {
		t.Fatalf("before closing: %s", found.Body)
	}
	h.Do("POST", "/system/deflector/"+set+"/cycle", nil, root).Want(t, http.StatusNoContent)

	h.Do("POST", "/system/indexer/indices/graylog_1/close", nil, root).WantError(t, http.StatusForbidden, "close the current write index")
	h.Do("POST", "/system/indexer/indices/graylog_9/close", nil, root).WantError(t, http.StatusNotFound, "Index <graylog_9> not found")
	h.Do("POST", "/system/indexer/indices/graylog_9/reopen", nil, root).WantError(t, http.StatusNotFound, "Index <graylog_9> not found")
	h.CreateUser("viewer", "viewerpass1", "Reader")
	viewer := nodetest.Basic("viewer", "viewerpass1")
	h.Do("POST", "/system/indexer/indices/graylog_0/close", nil, viewer).Want(t, http.StatusForbidden)
	h.Do("POST", "/system/indexer/indices/graylog_0/close", nil, root).Want(t, http.StatusNoContent)
	h.Do("POST", "/system/indexer/indices/graylog_0/reopen", nil, viewer).Want(t, http.StatusForbidden)

	wantClosed := func(when string) {
		t.Helper()
		if n := h.Do("GET", search, nil, root).Want(t, http.StatusOK).Get("total_results").Int(); n != 0 {
			t.Errorf("%s: %d messages of the closed index found", when, n)
		}
		h.Do("GET", "/messages/graylog_0/"+id, nil, root).Want(t, http.StatusNotFound)
		h.Do("GET", "/system/indexer/indices/graylog_0", nil, root).Want(t, http.StatusNotFound)
		h.Do("GET", "/system/indices/ranges/graylog_0", nil, root).Want(t, http.StatusNotFound)
		if r := h.Do("GET", "/system/indices/ranges", nil, root); r.Get(`ranges.#(index_name=="graylog_0")`).Exists() {
			t.Errorf("%s: the closed index has a range: %s", when, r.Body)
		}
		closed := h.Do("GET", "/system/indexer/indices/"+set+"/closed", nil, root).Want(t, http.StatusOK)
		if closed.Get("total").Int() != 1 || closed.Get("indices.0").String() != "graylog_0" {
			t.Errorf("%s: closed %s", when, closed.Body)
		}
		all := h.Do("GET", "/system/indexer/indices/"+set+"/list", nil, root).Want(t, http.StatusOK)
		if all.Get("all.indices.graylog_0").Exists() || !all.Get("all.indices.graylog_1").Exists() ||
			all.Get("closed.indices.0").String() != "graylog_0" || all.Get("reopened.total").Int() != 0 {
			t.Errorf("%s: list %s", when, all.Body)
		}
		if open := h.Do("GET", "/system/indexer/indices/"+set+"/open", nil, root).Want(t, http.StatusOK); open.Get("indices.graylog_0").Exists() {
			t.Errorf("%s: open %s", when, open.Body)
		}
		ov := h.Do("GET", "/system/indexer/overview/"+set, nil, root).Want(t, http.StatusOK)
		if s := ov.Get("indices.graylog_0"); !s.Get("is_closed").Bool() || s.Get("is_reopened").Bool() ||
			s.Get("size").Type != gjson.Null || s.Get("range").Type != gjson.Null || !s.Get("size").Exists() {
			t.Errorf("%s: overview of the closed index %s", when, s.Raw)
		}
	}
	wantClosed("closed")
	h.Restart()
	wantClosed("after restart")

	h.Do("POST", "/system/indexer/indices/graylog_0/reopen", nil, root).Want(t, http.StatusNoContent)
	if n := h.Do("GET", search, nil, root).Want(t, http.StatusOK).Get("total_results").Int(); n != 2 {
		t.Errorf("after reopening: %d messages found, want 2", n)
	}
	h.Do("GET", "/messages/graylog_0/"+id, nil, root).Want(t, http.StatusOK)
	if info := h.Do("GET", "/system/indexer/indices/graylog_0", nil, root).Want(t, http.StatusOK); !info.Get("reopened").Bool() ||
		info.Get("primary_shards.documents.count").Int() != 2 {
		t.Errorf("info of the reopened index %s", info.Body)
	}
	reopened := h.Do("GET", "/system/indexer/indices/"+set+"/reopened", nil, root).Want(t, http.StatusOK)
	if reopened.Get("total").Int() != 1 || reopened.Get("indices.0").String() != "graylog_0" {
		t.Errorf("reopened %s", reopened.Body)
	}
	all := h.Do("GET", "/system/indexer/indices/"+set+"/list", nil, root).Want(t, http.StatusOK)
	if !all.Get("all.indices.graylog_0.reopened").Bool() || all.Get("closed.total").Int() != 0 || all.Get("reopened.indices.0").String() != "graylog_0" {
		t.Errorf("list after reopening %s", all.Body)
	}
	ov := h.Do("GET", "/system/indexer/overview/"+set, nil, root).Want(t, http.StatusOK)
	if s := ov.Get("indices.graylog_0"); s.Get("is_closed").Bool() || !s.Get("is_reopened").Bool() || s.Get("size.events").Int() != 2 {
		t.Errorf("overview of the reopened index %s", s.Raw)
	}
	if r := h.Do("GET", "/system/indices/ranges", nil, root); !r.Get(`ranges.#(index_name=="graylog_0")`).Exists() {
		t.Errorf("the reopened index has no range: %s", r.Body)
	}
}
