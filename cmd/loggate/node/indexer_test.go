package node_test

import (
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/loggate/loggate/cmd/loggate/node/nodetest"
)

// The indexer pages of the web interface read the embedded store as a
// one-node cluster: its health, each index's range and figures, and
// deletion of an index that is not written to.
func TestIndexerPages(t *testing.T) {
	h := nodetest.Start(t)
	root := nodetest.AsRoot()
	set := defaultIndexSet(t, h)
	if got := h.Do("GET", "/system/indexer/cluster/name", nil, root).Want(t, http.StatusOK).Get("name").String(); got != "loggate-embedded" {
		t.Errorf("cluster name %q", got)
	}
	_, addr := h.CreateInput(httpInput)
	first, last := float64(time.Now().Unix()-120), float64(time.Now().Unix()-60)
	for i, ts := range []float64{first, last, first + 30} {
		postGELF(t, addr, "ix", "message "+string(rune('a'+i)), ts)
	}
	h.WaitProcessed(3)

	health := h.Do("GET", "/system/indexer/cluster/health", nil, root).Want(t, http.StatusOK)
	if health.Get("status").String() != "green" || health.Get("shards.active").Int() < 1 || !health.Get("shards.unassigned").Exists() {
		t.Errorf("health %s", health.Body)
	}
	ranges := h.Do("GET", "/system/indices/ranges", nil, root).Want(t, http.StatusOK)
	r0 := ranges.Get(`ranges.#(index_name=="graylog_0")`)
	if ranges.Get("total").Int() < 1 || !strings.HasPrefix(r0.Get("begin").String(), time.Unix(int64(first), 0).UTC().Format("2006-01-02T15:04:05")) ||
		!strings.HasPrefix(r0.Get("end").String(), time.Unix(int64(last), 0).UTC().Format("2006-01-02T15:04:05")) {
		t.Errorf("ranges %s", ranges.Body)
	}
	if got := h.Do("GET", "/system/indices/ranges/graylog_0", nil, root).Want(t, http.StatusOK).Get("index_name").String(); got != "graylog_0" {
		t.Errorf("single range of %q", got)
	}
	h.Do("POST", "/system/indices/ranges/rebuild", nil, root).Want(t, http.StatusAccepted)
	h.Do("POST", "/system/indices/ranges/index_set/"+set+"/rebuild", nil, root).Want(t, http.StatusAccepted)
	h.Do("POST", "/system/indices/ranges/graylog_9/rebuild", nil, root).WantError(t, http.StatusNotFound, "Index <graylog_9> not found")

	for _, path := range []string{"/system/indexer/overview", "/system/indexer/overview/" + set} {
		ov := h.Do("GET", path, nil, root).Want(t, http.StatusOK)
		if ov.Get("counts.events").Int() != 3 || ov.Get("deflector.current_target").String() != "graylog_0" ||
			ov.Get("indices.graylog_0.size.events").Int() != 3 || !ov.Get("indices.graylog_0.is_deflector").Bool() ||
			ov.Get("indexer_cluster.health.status").String() != "green" {
			t.Errorf("GET %s: %s", path, ov.Body)
		}
	}
	info := h.Do("GET", "/system/indexer/indices/graylog_0", nil, root).Want(t, http.StatusOK)
	if info.Get("primary_shards.documents.count").Int() != 3 || !info.Get("primary_shards.store_size_bytes").Exists() ||
		info.Get("routing.0.node_id").String() != h.Node.Info.ID {
		t.Errorf("index info %s", info.Body)
	}
	if all := h.Do("GET", "/system/indexer/indices/"+set+"/list", nil, root).Want(t, http.StatusOK); !all.Get("all.indices.graylog_0").Exists() || all.Get("closed.total").Int() != 0 {
		t.Errorf("list %s", all.Body)
	}
	h.Do("GET", "/system/indexer/indices/"+set+"/closed", nil, root).Want(t, http.StatusOK)

	// The write index stays; an older one goes, with its messages.
	h.Do("DELETE", "/system/indexer/indices/graylog_0", nil, root).WantError(t, http.StatusForbidden, "current write index")
	h.Do("POST", "/system/deflector/"+set+"/cycle", nil, root).Want(t, http.StatusNoContent)
	h.Do("DELETE", "/system/indexer/indices/graylog_0", nil, root).Want(t, http.StatusNoContent)
	if r := h.Do("GET", "/system/indices/ranges", nil, root); r.Get(`ranges.#(index_name=="graylog_0")`).Exists() {
		t.Errorf("graylog_0 still has a range after deletion: %s", r.Body)
	}
	if n := h.Do("GET", "/search/universal/relative?query=source:ix&range=0", nil, root).Want(t, http.StatusOK).Get("total_results").Int(); n != 0 {
		t.Errorf("%d messages found after their index was deleted", n)
	}

	// No failures yet; count needs a date.
	if f := h.Do("GET", "/system/indexer/failures?limit=10&offset=0", nil, root).Want(t, http.StatusOK); f.Get("total").Int() != 0 || !f.Get("failures").IsArray() {
		t.Errorf("failures %s", f.Body)
	}
	if c := h.Do("GET", "/system/indexer/failures/count?since=2020-01-01T00:00:00.000Z", nil, root).Want(t, http.StatusOK); c.Get("count").Int() != 0 {
		t.Errorf("count %s", c.Body)
	}
	// The web interface sends local time without a zone.
	h.Do("GET", "/system/indexer/failures/count?since=2020-01-01T00:00:00.000", nil, root).Want(t, http.StatusOK)
	h.Do("GET", "/system/indexer/failures/count", nil, root).WantError(t, http.StatusBadRequest, "since")
	h.Do("GET", "/system/indexer/failures?limit=0", nil, root).WantError(t, http.StatusBadRequest, "limit")
	h.CreateUser("viewer", "viewerpass1", "Reader")
	// Readers see the cluster's health, as in Graylog; deleting is not theirs.
	viewer := nodetest.Basic("viewer", "viewerpass1")
	h.Do("GET", "/system/indexer/cluster/health", nil, viewer).Want(t, http.StatusOK)
	h.Do("DELETE", "/system/indexer/indices/graylog_1", nil, viewer).Want(t, http.StatusForbidden)
	h.Do("GET", "/system/indexer/failures", nil, viewer).Want(t, http.StatusForbidden)
}

// TestIndexerUnknownIndexSet: an index set id that names none, malformed
// or not, is a 404 on the indexer's resources, not a 500.
func TestIndexerUnknownIndexSet(t *testing.T) {
	h := nodetest.Start(t)
	root := nodetest.AsRoot()
	for _, id := range []string{"zzz", "000000000000000000000000", strings.Repeat("a", 10000)} {
		for _, c := range []struct{ method, path string }{
			{"GET", "/system/indexer/overview/" + id},
			{"GET", "/system/indexer/indices/" + id + "/list"},
			{"GET", "/system/indexer/indices/" + id + "/open"},
			{"GET", "/system/indexer/indices/" + id + "/closed"},
			{"GET", "/system/indexer/indices/" + id + "/reopened"},
			{"POST", "/system/indices/ranges/index_set/" + id + "/rebuild"},
		} {
			h.Do(c.method, c.path, nil, root).WantError(t, http.StatusNotFound, "Couldn't find index set with ID <"+id+">")
		}
	}
}
