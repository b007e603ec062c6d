package extractors_test

import (
	"context"
	"net/http"
	"testing"

	"github.com/loggate/loggate/backend/logs/messages"
	"github.com/loggate/loggate/router/routertest"
)

// benchExtractors are an input's extractors of the kind installations
// have: a regex with a numeric converter, a grok pattern, key=value pairs
// by a copy_input with the tokenizer, and a JSON payload.
var benchExtractors = []string{
	`{"title":"took","cut_or_copy":"copy","source_field":"message","target_field":"took_ms","extractor_type":"regex",
	"extractor_config":{"regex_value":"took (\\d+) ms"},"converters":{"numeric":{}},"condition_type":"string","condition_value":"took","order":0}`,
	`{"title":"access","cut_or_copy":"copy","source_field":"message","target_field":"","extractor_type":"grok",
	"extractor_config":{"grok_pattern":"%{WORD:method} %{URIPATHPARAM:path} %{INT:status:int}","named_captures_only":true},"converters":{},"condition_type":"none","condition_value":"","order":1}`,
	`{"title":"kv","cut_or_copy":"copy","source_field":"message","target_field":"kv","extractor_type":"copy_input",
	"extractor_config":{},"converters":{"tokenizer":{}},"condition_type":"regex","condition_value":"user=","order":2}`,
	`{"title":"json","cut_or_copy":"copy","source_field":"payload","target_field":"","extractor_type":"json",
	"extractor_config":{},"converters":{},"condition_type":"none","condition_value":"","order":3}`,
}

// BenchmarkFilter is the per-message cost (ns/op) of each of those
// extractors alone, and of all four with a static field.
func BenchmarkFilter(b *testing.B) {
	for _, c := range []struct {
		name   string
		bodies []string
		static bool
	}{
		{"regex+numeric", benchExtractors[:1], false},
		{"grok", benchExtractors[1:2], false},
		{"copy_input+tokenizer", benchExtractors[2:3], false},
		{"json", benchExtractors[3:4], false},
		{"static field", nil, true},
		{"all", benchExtractors, true},
	} {
		b.Run(c.name, func(b *testing.B) { benchFilter(b, c.bodies, c.static) })
	}
}

func benchFilter(b *testing.B, bodies []string, static bool) {
	e := newEnv(b)
	for _, body := range bodies {
		e.create(body)
	}
	if static {
		routertest.WantStatus(b, e.Admin("POST", e.path("/staticfields"), `{"key":"env","value":"prod"}`), http.StatusCreated)
	}
	f := e.svc.Filter()
	const batch = 256
	msgs := make([]*messages.Message, batch)
	fresh := func() {
		for i := range msgs {
			msgs[i] = &messages.Message{ID: "id", Fields: []messages.Field{
				{Key: messages.FieldMessage, Value: "GET /api/orders?id=7 200 took 12 ms user=alice session=abc123"},
				{Key: "payload", Value: `{"order":{"id":7,"total":12.5},"items":["a","b"],"ok":true}`},
				{Key: messages.FieldSourceInput, Value: e.input},
			}}
		}
	}
	ctx := context.Background()
	b.ReportAllocs()
	b.ResetTimer()
	for i := 0; i < b.N; i += batch {
		b.StopTimer()
		fresh()
		b.StartTimer()
		f.Process(ctx, msgs[:min(batch, b.N-i)])
	}
	b.StopTimer()
	if len(bodies) == len(benchExtractors) {
		if v, _ := msgs[0].Get("status"); v != int64(200) {
			b.Fatalf("grok did not run: %v", msgs[0].Fields)
		}
	}
}
