package lookup

import (
	"encoding/json"
	"reflect"
	"strings"
	"testing"
	"time"

	"github.com/loggate/loggate/internal/testclock"
)

// TestLRUCache: at most max_size entries, dropped after expire_after_write
// whatever the reads, or after expire_after_access without one; failures
// are not kept.
func TestLRUCache(t *testing.T) {
	clock := testclock.New(time.Date(2021, 1, 1, 0, 0, 0, 0, time.UTC))
	_, cfg, err := decodeConfig(json.RawMessage(`{"type":"guava_cache","max_size":2,"expire_after_access":10,"expire_after_access_unit":"SECONDS","expire_after_write":1,"expire_after_write_unit":"MINUTES"}`), cacheKinds, "cache")
	if err != nil {
		t.Fatal(err)
	}
	c := newLRUCache(cfg, env{now: clock.Now})
	loads := map[string]int{}
	get := func(key string) {
		t.Helper()
		before := loads[key]
		r, hit, err := c.get(key, func() (Result, error) {
			loads[key]++
			if key == "bad" {
				return failed(), nil
			}
			return single(key), nil
		})
		if err != nil || (key != "bad" && r.Single != key) {
			t.Fatalf("get %s: %+v, %v", key, r, err)
		}
		if hit != (loads[key] == before) {
			t.Fatalf("get %s: hit %v, but loaded %d times", key, hit, loads[key]-before)
		}
	}
	get("a")
	get("b")
	get("a") // cached
	get("c") // evicts b, the least recently used
	get("b")
	if loads["a"] != 1 || loads["b"] != 2 {
		t.Errorf("loads after eviction: %v", loads)
	}
	for range 7 { // read every 9 s: never idle 10 s, but written 63 s ago
		clock.Advance(9 * time.Second)
		get("b")
	}
	if loads["b"] != 3 {
		t.Errorf("b loaded %d times, want 3 (expired after write)", loads["b"])
	}
	clock.Advance(10 * time.Second)
	get("b")
	if loads["b"] != 4 {
		t.Errorf("b loaded %d times, want 4 (expired after access)", loads["b"])
	}
	get("bad")
	get("bad")
	if loads["bad"] != 2 {
		t.Errorf("a failure was kept: %v", loads)
	}
	c.purgeAll()
	get("b")
	if loads["b"] != 5 {
		t.Errorf("after purge: %v", loads)
	}
}

func TestParseRecords(t *testing.T) {
	for _, c := range []struct {
		in   string
		want [][]string
	}{
		{"a,b\n\nc,\"d,\ne\"\r\n", [][]string{{"a", "b"}, {"c", "d,\ne"}}},
		{`"x""y",`, [][]string{{`x"y`, ""}}},
		{",", [][]string{{"", ""}}},
		{"", nil},
	} {
		if got := parseRecords(c.in, ',', '"'); !reflect.DeepEqual(got, c.want) {
			t.Errorf("parseRecords(%q) = %q, want %q", c.in, got, c.want)
		}
	}
}

func TestDefaults(t *testing.T) {
	for _, c := range []struct {
		v, typ string
		want   any
		err    string
	}{
		{"42", "NUMBER", int64(42), ""},
		{"1.5", "number", 1.5, ""},
		{"x", "NUMBER", nil, "Couldn't parse number"},
		{"True", "BOOLEAN", true, ""},
		{"s", "STRING", "s", ""},
		{"", "NULL", nil, ""},
		{"{}", "OBJECT", nil, "cannot be of type OBJECT"},
	} {
		got, err := parseSingleDefault(c.v, c.typ)
		if got != c.want || (err == nil) != (c.err == "") || (err != nil && !strings.Contains(err.Error(), c.err)) {
			t.Errorf("single %q %s = %v, %v", c.v, c.typ, got, err)
		}
	}
	if m, err := parseMultiDefault(`{"a":1}`, "OBJECT"); err != nil || m["a"] != 1.0 {
		t.Errorf("multi object: %v, %v", m, err)
	}
	if _, err := parseMultiDefault(`[1]`, "OBJECT"); err == nil {
		t.Error("a list as a multi value")
	}
	d, _ := Table{DefaultSingleValue: "x", DefaultSingleValueType: "STRING"}.parseDefaults()
	if r := d.apply(empty()); r.Single != "x" || r.Multi["value"] != "x" {
		t.Errorf("defaults applied: %+v", r)
	}
}
