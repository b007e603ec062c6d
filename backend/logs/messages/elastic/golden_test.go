package elastic

import (
	"bytes"
	"encoding/json"
	"math"
	"path/filepath"
	"testing"
	"time"

	"github.com/loggate/loggate/backend/analysis/search/query"
	"github.com/loggate/loggate/backend/logs/messages"
	goldenfile "github.com/loggate/loggate/internal/golden"
)

var (
	es68 = server{Number: "6.8.23", Major: 6, Minor: 8}
	es7  = server{Number: "7.10.2", Major: 7, Minor: 10}
	os1  = server{Number: "1.3.19", Major: 1, Minor: 3, OpenSearch: true}
)

// golden compares got with testdata/name, which -update rewrites. JSON is
// indented so that a difference shows as a readable diff.
func golden(t *testing.T, name string, got []byte) {
	t.Helper()
	if json.Valid(got) {
		var b bytes.Buffer
		if err := json.Indent(&b, got, "", "  "); err != nil {
			t.Fatal(err)
		}
		b.WriteByte('\n')
		got = b.Bytes()
	}
	goldenfile.Check(t, filepath.Join("testdata", name), got)
}

func TestTemplateGolden(t *testing.T) {
	for _, tc := range []struct {
		name     string
		srv      server
		analyzer string
	}{
		{"template_es6.json", es68, ""},
		{"template_es7.json", es7, "standard"},
		{"template_opensearch1.json", os1, "german"},
	} {
		body, err := templateBody(tc.srv, "graylog", tc.analyzer)
		if err != nil {
			t.Fatal(err)
		}
		golden(t, tc.name, body)
	}
	golden(t, "create_index_first.json", createIndexBody(IndexSettings{Shards: 4, MaxResultWindow: 50000}, "graylog_deflector"))
	golden(t, "create_index_next.json", createIndexBody(IndexSettings{Replicas: 1}, ""))
}

// sampleMessages covers every value type and every key the store must
// rewrite or drop.
func sampleMessages() []messages.Message {
	ts := time.Date(2020, 12, 1, 10, 0, 0, 123_000_000, time.UTC)
	return []messages.Message{
		{
			ID:        "4d1a0a40-33c4-11eb-8d5c-0242ac120002",
			Timestamp: ts,
			Streams:   []string{"000000000000000000000001", "5fc6107c2ab54a3c5f1e1a2b"},
			Fields: []messages.Field{
				{Key: "source", Value: "Web-01"},
				{Key: "message", Value: "GET /index.html \"quoted\" \\ back\tslash\n"},
				{Key: "level", Value: int64(6)},
				{Key: "big", Value: int64(math.MaxInt64)},
				{Key: "took", Value: 3.0},
				{Key: "ratio", Value: 1e-7},
				{Key: "ok", Value: true},
				{Key: "failed", Value: false},
				{Key: "http.status", Value: int64(200)},
				{Key: "ctrl", Value: "\x00\x1f\u2028"},
				{Key: "bad_utf8", Value: "a\xffb"},
				{Key: "nan", Value: math.NaN()},
				{Key: "inf", Value: math.Inf(-1)},
				{Key: "_id", Value: "dropped"},
				{Key: "_source", Value: "dropped"},
				{Key: "", Value: "dropped"},
				{Key: "timestamp", Value: "dropped"},
				{Key: "gl2_loggate_id", Value: "dropped"},
			},
		},
		{
			ID:        "second",
			Timestamp: ts.Add(time.Hour).In(time.FixedZone("CET", 3600)),
			Fields: []messages.Field{
				{Key: "a.b", Value: "first, shadowed"},
				{Key: "a_b", Value: "second, kept"},
				{Key: "c_d", Value: "shadowed by c.d"},
				{Key: "c.d", Value: "kept"},
			},
		},
	}
}

func TestBulkGolden(t *testing.T) {
	for _, tc := range []struct {
		name string
		srv  server
	}{
		{"bulk_es6.ndjson", es68},
		{"bulk_es7.ndjson", es7},
	} {
		body, err := appendBulk(nil, tc.srv, "graylog_deflector", sampleMessages())
		if err != nil {
			t.Fatal(err)
		}
		// Each line must be JSON on its own, as _bulk reads it.
		for i, line := range bytes.Split(bytes.TrimSuffix(body, []byte("\n")), []byte("\n")) {
			if !json.Valid(line) {
				t.Errorf("%s line %d is not JSON: %s", tc.name, i+1, line)
			}
		}
		golden(t, tc.name, body)
	}
	if _, err := appendBulk(nil, es7, "x_deflector", []messages.Message{{Timestamp: time.Now()}}); err == nil {
		t.Error("appendBulk of a message without id succeeded; want errNoID")
	}
}

func mustParse(t *testing.T, q string) query.Node {
	t.Helper()
	n, err := query.Parse(q, query.Options{AllowLeadingWildcard: true})
	if err != nil {
		t.Fatal(err)
	}
	return n
}

func TestSearchBodyGolden(t *testing.T) {
	from := time.Date(2020, 12, 1, 10, 0, 0, 0, time.UTC)
	to := time.Date(2020, 12, 1, 11, 30, 0, 999_000_000, time.FixedZone("CET", 3600))
	for _, tc := range []struct {
		name string
		srv  server
		q    messages.Query
	}{
		{"match_all_es7", es7, messages.Query{Limit: 150}},
		{"match_all_es6", es68, messages.Query{Query: &query.MatchAll{}, Limit: 10, Offset: 20}},
		{"total_only", es7, messages.Query{Query: mustParse(t, "ssh")}},
		{"typical", es7, messages.Query{
			Query: mustParse(t, `(source:web-01 OR source:web-02) AND http_status:[500 TO 599] AND NOT path:\/health* AND _exists_:user_id`),
			From:  from, To: to, Streams: []string{"000000000000000000000001", "s2"}, Limit: 50,
		}},
		{"from_only_asc_field", os1, messages.Query{
			Query: mustParse(t, `message:"connection refused"~2 -source:db*`),
			From:  from, Sort: messages.Sort{Field: "level", Asc: true}, Limit: 5,
		}},
		{"to_only_sort_id", es68, messages.Query{
			Query: mustParse(t, `*ildcard /reg.*exp/ name:\"AND\"`),
			To:    to, Sort: messages.Sort{Field: "_id"}, Limit: 1,
		}},
		{"sort_timestamp_asc", es7, messages.Query{Sort: messages.Sort{Field: "timestamp", Asc: true}, Limit: 3}},
		{"match_nothing", es7, messages.Query{Query: &query.Bool{}, Limit: 1}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			body, err := searchBody(tc.srv, tc.q)
			if err != nil {
				t.Fatal(err)
			}
			golden(t, "search_"+tc.name+".json", body)
		})
	}
}
