package node_test

import (
	"bytes"
	"compress/gzip"
	"compress/zlib"
	"context"
	"encoding/json"
	"fmt"
	"net"
	"net/http"
	"regexp"
	"strings"
	"testing"
	"time"

	gogelf "github.com/Graylog2/go-gelf/gelf"

	"github.com/loggate/loggate/backend/logs/streams"
	"github.com/loggate/loggate/cmd/loggate/node/nodetest"
)

const (
	httpInput = nodetest.GELFHTTP
	tcpInput  = nodetest.GELFTCP
	udpInput  = nodetest.GELFUDP
)

func gz(t *testing.T, s string) []byte {
	var b bytes.Buffer
	w := gzip.NewWriter(&b)
	_, _ = w.Write([]byte(s))
	_ = w.Close()
	return b.Bytes()
}

func zl(t *testing.T, s string) []byte {
	var b bytes.Buffer
	w := zlib.NewWriter(&b)
	_, _ = w.Write([]byte(s))
	_ = w.Close()
	return b.Bytes()
}

func gelfJSON(host, msg string, ts float64, extra string) string {
	return fmt.Sprintf(`{"version":"1.1","host":%q,"short_message":%q,"timestamp":%.3f,"level":3%s}`, host, msg, ts, extra)
}

// postGELF sends one GELF message to a GELF HTTP input at addr.
func postGELF(t *testing.T, addr net.Addr, host, msg string, ts float64) {
	t.Helper()
	resp, err := http.Post("http://"+addr.String()+"/gelf", "application/json", strings.NewReader(gelfJSON(host, msg, ts, "")))
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
}

// TestMessagesEndToEnd sends messages over every GELF transport and finds
// them by search with their fields, streams and order.
func TestMessagesEndToEnd(t *testing.T) {
	h := nodetest.Start(t)
	root := nodetest.AsRoot()

	// A stream for web-1's messages, resumed (streams start paused).
	stream := h.Do("POST", "/streams", map[string]any{
		"title": "web-1", "index_set_id": defaultIndexSet(t, h), "matching_type": "AND",
		"rules": []map[string]any{{"field": "source", "type": 1, "value": "web-1", "inverted": false}},
	}, root).Want(t, http.StatusCreated).Get("stream_id").String()
	h.Do("POST", "/streams/"+stream+"/resume", nil, root).Want(t, http.StatusNoContent)

	httpID, httpAddr := h.CreateInput(httpInput)
	tcpID, tcpAddr := h.CreateInput(tcpInput)
	udpID, udpAddr := h.CreateInput(udpInput)

	base := float64(time.Now().Add(-time.Minute).Unix())
	post := func(body []byte, encoding string) {
		t.Helper()
		req, _ := http.NewRequest("POST", "http://"+httpAddr.String()+"/gelf", bytes.NewReader(body))
		if encoding != "" {
			req.Header.Set("Content-Encoding", encoding)
		}
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		resp.Body.Close()
		if resp.StatusCode != http.StatusAccepted {
			t.Fatalf("POST /gelf: %d", resp.StatusCode)
		}
	}
	// HTTP: plain, gzip with Content-Encoding, zlib without.
	post([]byte(gelfJSON("web-1", "http plain", base+1, `,"_tag":"http-plain","_user_id":42,"_took":0.25`)), "")
	post(gz(t, gelfJSON("web-1", "http gzip", base+2, `,"_tag":"http-gzip"`)), "gzip")
	post(zl(t, gelfJSON("web-2", "http zlib", base+3, `,"_tag":"http-zlib"`)), "")

	// TCP: two null-framed messages on one connection, then the Go client.
	conn, err := net.Dial("tcp", tcpAddr.String())
	if err != nil {
		t.Fatal(err)
	}
	fmt.Fprintf(conn, "%s\x00%s\x00", gelfJSON("web-2", "tcp one", base+4, `,"_tag":"tcp-1"`), gelfJSON("web-2", "tcp two", base+5, `,"_tag":"tcp-2"`))
	conn.Close()
	tw, err := gogelf.NewTCPWriter(tcpAddr.String())
	if err != nil {
		t.Fatal(err)
	}
	if err := tw.WriteMessage(&gogelf.Message{Version: "1.1", Host: "web-1", Short: "tcp go-gelf", TimeUnix: base + 6, Level: 6,
		Extra: map[string]any{"_tag": "tcp-gogelf"}}); err != nil {
		t.Fatal(err)
	}
	tw.Close()

	// UDP: a plain datagram, then the Go client with zlib and, for a big
	// message, chunks.
	uc, err := net.Dial("udp", udpAddr.String())
	if err != nil {
		t.Fatal(err)
	}
	fmt.Fprint(uc, gelfJSON("web-2", "udp plain", base+7, `,"_tag":"udp-plain"`))
	uc.Close()
	uw, err := gogelf.NewUDPWriter(udpAddr.String())
	if err != nil {
		t.Fatal(err)
	}
	big := strings.Repeat("x", 20000) + " " + strings.Repeat("y", 20000)
	for i, m := range []*gogelf.Message{
		{Version: "1.1", Host: "web-1", Short: "udp go-gelf", TimeUnix: base + 8, Level: 6, Extra: map[string]any{"_tag": "udp-gogelf"}},
		{Version: "1.1", Host: "web-2", Short: "udp chunked", Full: big, TimeUnix: base + 9, Level: 6, Extra: map[string]any{"_tag": "udp-chunked"}},
	} {
		uw.CompressionType = []gogelf.CompressType{gogelf.CompressZlib, gogelf.CompressNone}[i]
		if err := uw.WriteMessage(m); err != nil {
			t.Fatal(err)
		}
	}
	uw.Close()

	const total = 9
	h.WaitProcessed(total)

	res := h.Do("GET", "/search/universal/relative?query=*&range=0", nil, root).Want(t, http.StatusOK)
	if got := res.Get("total_results").Int(); got != total {
		t.Fatalf("total_results = %d, want %d: %s", got, total, res.Body)
	}
	wantOrder := []string{"udp-chunked", "udp-gogelf", "udp-plain", "tcp-gogelf", "tcp-2", "tcp-1", "http-zlib", "http-gzip", "http-plain"}
	inputOf := map[string]string{"udp": udpID, "tcp": tcpID, "http": httpID}
	for i, m := range res.Get("messages").Array() {
		msg := m.Get("message")
		tag := msg.Get("tag").String()
		if tag != wantOrder[i] {
			t.Errorf("message %d is %q, want %q (newest first)", i, tag, wantOrder[i])
		}
		if want := inputOf[strings.Split(tag, "-")[0]]; msg.Get("gl2_source_input").String() != want {
			t.Errorf("%s: gl2_source_input = %s, want %s", tag, msg.Get("gl2_source_input"), want)
		}
		if msg.Get("gl2_source_node").String() != h.Node.Info.ID {
			t.Errorf("%s: gl2_source_node = %s", tag, msg.Get("gl2_source_node"))
		}
		wantStreams := `["` + streams.DefaultStreamID + `"]`
		if msg.Get("source").String() == "web-1" {
			wantStreams = `["` + stream + `","` + streams.DefaultStreamID + `"]`
		}
		if got := msg.Get("streams").Raw; got != wantStreams {
			t.Errorf("%s: streams = %s, want %s", tag, got, wantStreams)
		}
		if m.Get("index").String() != "graylog_0" {
			t.Errorf("%s: index = %s", tag, m.Get("index"))
		}
		for _, f := range []string{"_id", "timestamp", "message", "gl2_message_id", "gl2_remote_ip"} {
			if !msg.Get(f).Exists() {
				t.Errorf("%s: no %s in %s", tag, f, msg.Raw)
			}
		}
	}
	plain := res.Get(`messages.#(message.tag=="http-plain").message`)
	if plain.Get("user_id").Raw != "42" || plain.Get("took").Raw != "0.25" || plain.Get("level").Raw != "3" {
		t.Errorf("typed fields lost: %s", plain.Raw)
	}
	if got := res.Get(`messages.#(message.tag=="udp-chunked").message.full_message`).String(); got != big {
		t.Errorf("chunked full_message has %d bytes, want %d", len(got), len(big))
	}

	// The stream filter, a field query, a single message.
	res = h.Do("GET", "/search/universal/relative?query=*&range=0&filter=streams:"+stream, nil, root).Want(t, http.StatusOK)
	if got := res.Get("total_results").Int(); got != 4 {
		t.Errorf("stream search found %d, want web-1's 4", got)
	}
	res = h.Do("GET", "/search/universal/relative?query=message:tcp%20AND%20source:web-2&range=0&sort=timestamp:asc", nil, root).Want(t, http.StatusOK)
	if got := res.Get("messages.#.message.tag").Raw; got != `["tcp-1","tcp-2"]` {
		t.Errorf("field query found %s", got)
	}
	id := res.Get("messages.0.message._id").String()
	h.Do("GET", "/messages/graylog_0/"+id, nil, root).Want(t, http.StatusOK)
	h.Do("GET", "/messages/graylog_0/nope", nil, root).WantError(t, http.StatusNotFound, "Message nope does not exist in index graylog_0")

	// A query that does not parse names the position.
	res = h.Do("GET", "/search/universal/relative?query=source:(web-1&range=0", nil, root).Want(t, http.StatusBadRequest)
	if res.Get("column").Int() == 0 || res.Get("type").String() != "AutoValue_QueryParseError" {
		t.Errorf("syntax error body: %s", res.Body)
	}

	// CSV: the export, and the JSON path asked for CSV without fields.
	csv := h.Do("GET", "/search/universal/relative/export?query=source:web-2&range=0&fields=tag,source&sort=timestamp:asc", nil, root).Want(t, http.StatusOK)
	wantCSV := "\"timestamp\",\"tag\",\"source\"\n"
	if !strings.HasPrefix(string(csv.Body), wantCSV) || strings.Count(string(csv.Body), "\n") != 6 ||
		!strings.Contains(string(csv.Body), `,"tcp-1","web-2"`) || !strings.HasPrefix(csv.Header.Get("Content-Disposition"), "attachment") {
		t.Errorf("CSV export:\n%s", csv.Body)
	}
	h.Do("GET", "/search/universal/relative?query=*&range=0", nil, root, nodetest.Header("Accept", "text/csv")).
		WantError(t, http.StatusBadRequest, "Missing required parameter `fields`")
	// The 4.0 search page exports its stored search, and a message list
	// of it.
	const searchID = "5f1a2b3c4d5e6f7a8b9c0d99"
	h.Do("POST", "/views/search", map[string]any{"id": searchID, "queries": []any{map[string]any{
		"id": "q1", "query": map[string]any{"type": "elasticsearch", "query_string": "source:web-2"},
		"timerange":    map[string]any{"type": "relative", "range": 0},
		"search_types": []any{map[string]any{"id": "ml", "type": "messages", "limit": 150}},
	}}}, root).Want(t, http.StatusCreated)
	for _, path := range []string{"/views/search/messages/" + searchID, "/views/search/messages/" + searchID + "/ml"} {
		csv = h.Do("POST", path, map[string]any{"fields_in_order": []string{"source", "tag"}}, root).Want(t, http.StatusOK)
		if !strings.HasPrefix(string(csv.Body), "\"source\",\"tag\"\n") || strings.Count(string(csv.Body), "\n") != 6 {
			t.Errorf("%s:\n%s", path, csv.Body)
		}
	}

	// The views API's messages search type.
	sync := h.Do("POST", "/views/search/sync", map[string]any{"queries": []any{map[string]any{
		"id": "q1", "query": map[string]any{"type": "elasticsearch", "query_string": "source:web-1"},
		"timerange":    map[string]any{"type": "relative", "range": 0},
		"search_types": []any{map[string]any{"id": "m1", "type": "messages", "limit": 2, "offset": 0}},
	}}}, root).Want(t, http.StatusOK)
	if got := sync.Get("results.q1.search_types.m1.total_results").Int(); got != 4 || len(sync.Get("results.q1.search_types.m1.messages").Array()) != 2 {
		t.Errorf("views search: %s", sync.Body)
	}

	// The result window: the web view pages by 150, so page 66 is the last
	// full page; deeper is a 400 until the index set allows more.
	h.Do("GET", "/search/universal/relative?query=*&range=0&limit=150&offset=9750", nil, root).Want(t, http.StatusOK)
	h.Do("GET", "/search/universal/relative?query=*&range=0&limit=150&offset=9900", nil, root).Want(t, http.StatusBadRequest)
	setID := defaultIndexSet(t, h)
	is := h.Do("GET", "/system/indices/index_sets/"+setID, nil, root).Want(t, http.StatusOK)
	var set map[string]any
	if err := json.Unmarshal(is.Body, &set); err != nil {
		t.Fatal(err)
	}
	set["max_result_window"] = 20000
	h.Do("PUT", "/system/indices/index_sets/"+setID, set, root).Want(t, http.StatusOK)
	h.Do("GET", "/search/universal/relative?query=*&range=0&limit=150&offset=9900", nil, root).Want(t, http.StatusOK)

	// A 2.4 client's dashboard widgets computed from these messages.
	v24 := nodetest.Header("X-API-Version", "2.4")
	dash := h.Do("POST", "/dashboards", map[string]any{"title": "web"}, root, v24).Want(t, http.StatusCreated).Get("dashboard_id").String()
	widget := func(typ string, cfg map[string]any) string {
		cfg["timerange"] = map[string]any{"type": "relative", "range": 0}
		return h.Do("POST", "/dashboards/"+dash+"/widgets", map[string]any{"description": typ, "type": typ, "cache_time": 10, "config": cfg}, root, v24).
			Want(t, http.StatusCreated).Get("widget_id").String()
	}
	quick := widget("QUICKVALUES", map[string]any{"field": "source", "query": "", "limit": 1})
	res = h.Do("GET", "/dashboards/"+dash+"/widgets/"+quick+"/value", nil, root, v24).Want(t, http.StatusOK)
	// web-2 sent 5 of the 9 messages: the top value; web-1's 4 are "other".
	if res.Get("result.terms.web-2").Int() != 5 || res.Get("result.other").Int() != 4 || res.Get("result.total").Int() != total {
		t.Errorf("QUICKVALUES value: %s", res.Body)
	}
	stats := widget("STATS_COUNT", map[string]any{"field": "user_id", "stats_function": "max", "query": ""})
	if res = h.Do("GET", "/dashboards/"+dash+"/widgets/"+stats+"/value", nil, root, v24).Want(t, http.StatusOK); res.Get("result").Float() != 42 {
		t.Errorf("STATS_COUNT value: %s", res.Body)
	}
	chart := widget("SEARCH_RESULT_CHART", map[string]any{"interval": "hour", "query": "source:web-1"})
	res = h.Do("GET", "/dashboards/"+dash+"/widgets/"+chart+"/value", nil, root, v24).Want(t, http.StatusOK)
	sum := int64(0)
	for _, n := range res.Get("result").Map() {
		sum += n.Int()
	}
	if sum != 4 {
		t.Errorf("SEARCH_RESULT_CHART value counts %d messages, want 4: %s", sum, res.Body)
	}

	// A pre-4.0 client's message count.
	res = h.Do("GET", "/count/total", nil, root, nodetest.Header("X-API-Version", "3.3")).Want(t, http.StatusOK)
	if got := res.Get("events").Int(); got != total {
		t.Errorf("/count/total = %s, want %d events", res.Body, total)
	}

	// The default index set's stats count what it holds.
	st := h.Do("GET", "/system/indices/index_sets/"+setID+"/stats", nil, root).Want(t, http.StatusOK)
	if st.Get("documents").Int() != total || st.Get("indices").Int() != 1 {
		t.Errorf("index set stats: %s", st.Body)
	}

	// Everything is still there after a restart.
	h.Restart()
	res = h.Do("GET", "/search/universal/relative?query=*&range=0", nil, root).Want(t, http.StatusOK)
	if got := res.Get("total_results").Int(); got != total {
		t.Fatalf("after restart total_results = %d, want %d", got, total)
	}
}

func defaultIndexSet(t *testing.T, h *nodetest.Harness) string {
	t.Helper()
	return h.Do("GET", "/system/indices/index_sets", nil, nodetest.AsRoot()).Want(t, http.StatusOK).
		Get(`index_sets.#(default==true).id`).String()
}

// TestMessageStoreOutage makes the message store fail while messages keep
// arriving: inputs keep accepting (the journal holds them), nothing is
// lost, and everything is searchable once the store works again.
func TestMessageStoreOutage(t *testing.T) {
	h := nodetest.Start(t)
	root := nodetest.AsRoot()
	outage(t, h, func() { h.BreakMessageStore(fmt.Errorf("disk on fire")) }, func() {
		res := h.Do("GET", "/search/universal/relative?query=source:outage&range=0&limit=1", nil, root).Want(t, http.StatusOK)
		if got := res.Get("total_results").Int(); got != 50 {
			t.Fatalf("during the outage %d messages are searchable, want the 50 stored before", got)
		}
		if j := h.Do("GET", "/system/journal", nil, root).Want(t, http.StatusOK); j.Get("uncommitted_journal_entries").Int() < 100 {
			t.Errorf("journal during the outage: %s", j.Body)
		}
	}, h.RepairMessageStore)
}

// outage is the outage scenario every message store goes through: 50
// messages stored; the store cut off; 100 more accepted while processing
// reports the failure and holds its place (during looks at the node then);
// the store restored: every message found exactly once, the journal
// committed.
func outage(t *testing.T, h *nodetest.Harness, cut, during, restore func()) {
	t.Helper()
	root := nodetest.AsRoot()
	_, addr := h.CreateInput(httpInput)
	send := func(from, to int) {
		t.Helper()
		for i := from; i < to; i++ {
			// In the past: the test clock stands at the node's start, and
			// a search ends at its now.
			body := gelfJSON("outage", fmt.Sprintf("message %d", i), float64(time.Now().Add(-time.Minute).Unix()), fmt.Sprintf(`,"_n":%d`, i))
			resp, err := http.Post("http://"+addr.String()+"/gelf", "application/json", strings.NewReader(body))
			if err != nil {
				t.Fatal(err)
			}
			resp.Body.Close()
			if resp.StatusCode != http.StatusAccepted {
				t.Fatalf("message %d: %d", i, resp.StatusCode)
			}
		}
	}
	send(0, 50)
	h.WaitProcessed(50)

	cut()
	send(50, 150)
	deadline := time.Now().Add(60 * time.Second)
	for h.Node.Messages.Processor.State().Failing == "" {
		if time.Now().After(deadline) {
			t.Fatal("the processor never reported the store failure")
		}
		time.Sleep(5 * time.Millisecond) // polling an observable condition
	}
	if next := h.Node.Messages.Processor.State().Next; next != 50 {
		t.Fatalf("processing moved to %d while the store failed", next)
	}
	during()

	restore()
	h.WaitProcessed(150)
	res := h.Do("GET", "/search/universal/relative?query=source:outage&range=0&limit=200&fields=n", nil, root).Want(t, http.StatusOK)
	seen := map[int64]int{}
	for _, n := range res.Get("messages.#.message.n").Array() {
		seen[n.Int()]++
	}
	for i := int64(0); i < 150; i++ {
		if seen[i] != 1 {
			t.Errorf("message %d found %d times", i, seen[i])
		}
	}
	if err := h.Node.Messages.Processor.WaitFlushed(context.Background(), 150); err != nil {
		t.Fatal(err)
	}
	if j := h.Do("GET", "/system/journal", nil, root).Want(t, http.StatusOK); j.Get("uncommitted_journal_entries").Int() != 0 {
		t.Errorf("journal after recovery: %s", j.Body)
	}
}

// TestInputStartStop stops and starts a running input through
// /system/inputstates, as the web interface's buttons do.
func TestInputStartStop(t *testing.T) {
	h := nodetest.Start(t)
	root := nodetest.AsRoot()
	id, addr := h.CreateInput(tcpInput)
	state := func() string {
		return h.Do("GET", "/system/inputstates/"+id, nil, root).Want(t, http.StatusOK).Get("state").String()
	}
	if got := h.Do("DELETE", "/system/inputstates/"+id, nil, root).Want(t, http.StatusOK).Get("id").String(); got != id {
		t.Fatalf("stop answered id %q", got)
	}
	if st := state(); st != "STOPPED" {
		t.Fatalf("after stop: %s", st)
	}
	if c, err := net.Dial("tcp", addr.String()); err == nil {
		c.Close()
		t.Fatal("a stopped input accepts connections")
	}
	h.Do("PUT", "/system/inputstates/"+id, nil, root).Want(t, http.StatusOK)
	if st := state(); st != "RUNNING" {
		t.Fatalf("after start: %s", st)
	}
	h.Do("PUT", "/system/inputstates/5f0000000000000000000000", nil, root).Want(t, http.StatusNotFound)
	h.CreateUser("viewer", "viewerpass1", "Reader")
	h.Do("DELETE", "/system/inputstates/"+id, nil, nodetest.Basic("viewer", "viewerpass1")).Want(t, http.StatusForbidden)
}

// TestDeflector reads and cycles the write index of the default index set,
// in the 4.0 form and the deprecated one, and on the cluster path.
func TestDeflector(t *testing.T) {
	h := nodetest.Start(t)
	root := nodetest.AsRoot()
	set := defaultIndexSet(t, h)
	if res := h.Do("GET", "/system/deflector/"+set, nil, root).Want(t, http.StatusOK); res.Get("is_up").Bool() {
		t.Errorf("deflector before any message: %s", res.Body)
	}
	_, addr := h.CreateInput(httpInput)
	resp, err := http.Post("http://"+addr.String()+"/gelf", "application/json", strings.NewReader(gelfJSON("d", "first", float64(time.Now().Unix()-60), "")))
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	h.WaitProcessed(1)
	want := func(path, target string) {
		t.Helper()
		res := h.Do("GET", path, nil, root).Want(t, http.StatusOK)
		if !res.Get("is_up").Bool() || res.Get("current_target").String() != target {
			t.Errorf("GET %s: %s, want target %s", path, res.Body, target)
		}
	}
	want("/system/deflector/"+set, "graylog_0")
	h.Do("POST", "/system/deflector/"+set+"/cycle", nil, root).Want(t, http.StatusNoContent)
	want("/system/deflector/"+set, "graylog_1")
	// A cycle is the indexer's news, under its logger (and subsystem).
	if !regexp.MustCompile(`msg="deflector cycled" logger=loggate\.indexer\.deflector `).MatchString(h.Logs()) {
		t.Errorf("the cycle is not logged under loggate.indexer.deflector:\n%s", h.Logs())
	}
	res := h.Do("POST", "/system/deflector/cycle", nil, root).Want(t, http.StatusNoContent)
	if res.Header.Get("Deprecation") == "" {
		t.Error("the deprecated form carries no Deprecation header")
	}
	h.Do("POST", "/cluster/deflector/"+set+"/cycle", nil, root).Want(t, http.StatusNoContent)
	want("/system/deflector", "graylog_3")
	h.Do("GET", "/system/deflector/5f0000000000000000000000", nil, root).Want(t, http.StatusNotFound)
	h.CreateUser("viewer", "viewerpass1", "Reader")
	h.Do("POST", "/system/deflector/"+set+"/cycle", nil, nodetest.Basic("viewer", "viewerpass1")).Want(t, http.StatusForbidden)
	// The first message is still found, in the first index.
	if res := h.Do("GET", "/search/universal/relative?query=source:d&range=0", nil, root).Want(t, http.StatusOK); res.Get("messages.0.index").String() != "graylog_0" {
		t.Errorf("after cycling: %s", res.Body)
	}
}
