package lookup_test

import (
	"fmt"
	"net/http"
	"net/http/httptest"
	"path/filepath"
	"reflect"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/loggate/loggate/backend/logs/lookup"
	"github.com/loggate/loggate/internal/poll"
	"github.com/loggate/loggate/internal/testclock"
)

// adapterOf creates a data adapter and returns a function asking it.
func adapterOf(t *testing.T, svc *lookup.Service, config string) func(key string) lookup.Result {
	t.Helper()
	a, err := svc.CreateComponent(t.Context(), lookup.Adapters, component("A", "a", config))
	if err != nil {
		t.Fatal(err)
	}
	return func(key string) lookup.Result {
		t.Helper()
		r, ok := svc.AdapterLookup(t.Context(), a.Name, key)
		if !ok {
			t.Fatal("the adapter does not run")
		}
		return r
	}
}

// TestCSVFileAdapter reads a real file with another separator and quote
// character, case-insensitively, and reads it again once it changed and
// check_interval passed.
func TestCSVFileAdapter(t *testing.T) {
	clock := testclock.New(epoch)
	svc := newService(t, embedded(t), clock)
	path := filepath.Join(t.TempDir(), "users.csv")
	writeFile(t, path, "'uid';'name';'team'\n'ALICE';'Alice; A.';'ops'\n'bob';'Bob ''B''';'dev'\nshort\n", epoch)
	get := adapterOf(t, svc, `{"type":"csvfile","path":"`+path+`","separator":";","quotechar":"'","key_column":"uid","value_column":"name","check_interval":30,"case_insensitive_lookup":true}`)
	for key, want := range map[string]any{"alice": "Alice; A.", "Bob": "Bob 'B'", "short": nil} {
		if got := get(key).Single; got != want {
			t.Errorf("%s = %v, want %v", key, got, want)
		}
	}
	writeFile(t, path, "'uid';'name'\n'alice';'Alice Again'\n", epoch.Add(time.Minute))
	clock.Advance(29 * time.Second)
	if got := get("alice").Single; got != "Alice; A." {
		t.Errorf("read again before check_interval: %v", got)
	}
	clock.Advance(time.Second)
	if got := get("alice").Single; got != "Alice Again" {
		t.Errorf("after the change: %v", got)
	}
	if r := get("bob"); !r.Empty() || r.HasError {
		t.Errorf("bob is gone from the file: %+v", r)
	}

	// A header without the key column is the adapter's error state.
	writeFile(t, path, "'id';'name'\n", epoch.Add(2*time.Minute))
	clock.Advance(30 * time.Second)
	get("alice")
	if msg := svc.ErrorStates(nil, nil, []string{"a"})["data_adapters"]["a"]; msg == nil || !strings.Contains(*msg, `couldn't find key column "uid"`) {
		t.Errorf("error state %v", msg)
	}
}

// TestDSVHTTPAdapter fetches a DSV file from a real HTTP server, skipping
// comments, and fetches it again in the background once refresh_interval
// passed.
func TestDSVHTTPAdapter(t *testing.T) {
	var body atomic.Value
	body.Store("# blocked hosts\n1.2.3.4|\"spam|mail\"\n5.6.7.8|scan\n\n")
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		fmt.Fprint(w, body.Load())
	}))
	defer srv.Close()
	clock := testclock.New(epoch)
	svc := newService(t, embedded(t), clock)
	get := adapterOf(t, svc, `{"type":"dsvhttp","url":"`+srv.URL+`/list","separator":"|","refresh_interval":60}`)
	if got := get("1.2.3.4").Single; got != "spam|mail" {
		t.Errorf("quoted value: %v", got)
	}
	if r := get("# blocked hosts"); !r.Empty() {
		t.Errorf("a comment line is a key: %+v", r)
	}
	body.Store("9.9.9.9|new\n")
	clock.Advance(time.Minute)
	poll.Until(t, "the list fetched again", func() bool { return get("9.9.9.9").Single == "new" })

	presence := adapterOf(t, newService(t, embedded(t), clock), `{"type":"dsvhttp","url":"`+srv.URL+`","separator":"|","check_presence_only":true}`)
	if got := presence("9.9.9.9").Single; got != true {
		t.Errorf("presence: %v", got)
	}

	srv.Close()
	failing := adapterOf(t, newService(t, embedded(t), clock), `{"type":"dsvhttp","url":"`+srv.URL+`"}`)
	if r := failing("9.9.9.9"); !r.HasError {
		t.Errorf("a server that is gone: %+v", r)
	}
}

// TestHTTPJSONPathAdapter asks a real HTTP server for each key, with the
// configured headers, and picks the values with JSONPath.
func TestHTTPJSONPathAdapter(t *testing.T) {
	var mu sync.Mutex
	var asked []string
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		mu.Lock()
		asked = append(asked, r.URL.RawQuery+" "+r.Header.Get("X-Api-Key")+" "+r.Header.Get("User-Agent"))
		mu.Unlock()
		switch r.URL.Query().Get("ip") {
		case "10.0.0.1":
			fmt.Fprint(w, `{"data":{"owner":"ops","tags":["a","b"],"score":7}}`)
		case "10.0.0.2":
			fmt.Fprint(w, `{"data":{"owner":{"nested":true}}}`)
		default:
			http.Error(w, "no", http.StatusNotFound)
		}
	}))
	defer srv.Close()
	svc := newService(t, embedded(t), testclock.New(epoch))
	get := adapterOf(t, svc, `{"type":"httpjsonpath","url":"`+srv.URL+`/q?ip=${key}","single_value_jsonpath":"$.data.owner","multi_value_jsonpath":"$.data.tags","user_agent":"ua","headers":{"X-Api-Key":"secret"}}`)
	r := get("10.0.0.1")
	if r.Single != "ops" || !reflect.DeepEqual(r.StringList, []string{"a", "b"}) || !reflect.DeepEqual(r.Multi, map[string]any{"value": []any{"a", "b"}}) {
		t.Errorf("found: %+v", r)
	}
	if r := get("10.0.0.2"); !r.Empty() {
		t.Errorf("an object as the single value: %+v", r)
	}
	if r := get("a b&c"); !r.HasError {
		t.Errorf("a 404: %+v", r)
	}
	mu.Lock()
	defer mu.Unlock()
	if asked[0] != "ip=10.0.0.1 secret ua" || asked[2] != "ip=a+b%26c secret ua" {
		t.Errorf("requests: %q", asked)
	}
}

// TestDNSAdapter resolves through the machine's resolver, which answers
// localhost from the hosts file without a DNS server.
func TestDNSAdapter(t *testing.T) {
	svc := newService(t, embedded(t), testclock.New(epoch))
	a := adapterOf(t, svc, `{"type":"dnslookup","lookup_type":"A"}`)
	r := a("localhost")
	if r.Single != "127.0.0.1" || r.Multi["results"] == nil || !strings.Contains(fmt.Sprint(r.Multi["results"]), "IPv4") {
		t.Errorf("A localhost: %+v", r)
	}
	svc2 := newService(t, embedded(t), testclock.New(epoch))
	ptr := adapterOf(t, svc2, `{"type":"dnslookup","lookup_type":"PTR"}`)
	if r := ptr("127.0.0.1"); r.Single != "localhost" {
		t.Errorf("PTR 127.0.0.1: %+v", r)
	}
	if r := ptr("not an address"); !r.Empty() {
		t.Errorf("PTR of a name: %+v", r)
	}
	_, err := svc.CreateComponent(t.Context(), lookup.Adapters, component("D", "d", `{"type":"dnslookup","lookup_type":"MX","server_ips":"nope"}`))
	if err == nil || !strings.Contains(err.Error(), "lookup_type") || !strings.Contains(err.Error(), "server_ips") {
		t.Errorf("bad DNS config: %v", err)
	}
}
