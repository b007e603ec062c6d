package rewrite_test

import (
	"bytes"
	"encoding/json"
	"fmt"
	"strings"
	"testing"

	"github.com/loggate/loggate/rewrite"
)

func BenchmarkTemplateMatch(b *testing.B) {
	tmpl := rewrite.MustTemplate("/users/{username}/tokens/{token}")
	for _, bm := range []struct{ name, path string }{
		{"hit", "/users/GM/tokens/icinga"},
		{"miss", "/streams/000000000000000000000001/outputs"},
		{"miss late", "/users/GM/roles/admin"},
	} {
		b.Run(bm.name, func(b *testing.B) {
			var buf [4]string
			b.ReportAllocs()
			for b.Loop() {
				tmpl.Match(bm.path, buf[:0])
			}
		})
	}
}

// streamsDoc builds a /streams response of n streams, each with one output,
// about 300 bytes a stream.
func streamsDoc(n int) []byte {
	var sb strings.Builder
	sb.WriteString(`{"total":` + fmt.Sprint(n) + `,"streams":[`)
	for i := range n {
		if i > 0 {
			sb.WriteByte(',')
		}
		fmt.Fprintf(&sb, `{"id":"5e1c3a%018d","title":"stream %d","disabled":false,`+
			`"rules":[{"field":"source","type":1,"value":"web-%d","inverted":false}],`+
			`"outputs":[{"id":"5e1c3b%018d","title":"gelf","type":"org.graylog2.outputs.GelfOutput","creator_user_id":"admin"}],`+
			`"matching_type":"AND","is_default":false,"index_set_id":"5e1c39"}`, i, i, i, i)
	}
	sb.WriteString(`]}`)
	return []byte(sb.String())
}

func BenchmarkRenameField(b *testing.B) {
	doc := streamsDoc(20)
	for _, bm := range []struct{ name, path, from string }{
		{"streams", "streams.#", "id"},
		{"outputs", "streams.#.outputs.#", "id"},
		{"no match", "streams.#.outputs.#", "missing"},
	} {
		b.Run(fmt.Sprintf("%s/%dB", bm.name, len(doc)), func(b *testing.B) {
			b.ReportAllocs()
			b.SetBytes(int64(len(doc)))
			for b.Loop() {
				if _, err := rewrite.RenameField(doc, bm.path, bm.from, "_id"); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}

// BenchmarkRenameFieldDecoded is the yardstick for BenchmarkRenameField:
// the same edit as an encoding/json round trip.
func BenchmarkRenameFieldDecoded(b *testing.B) {
	doc := streamsDoc(20)
	b.ReportAllocs()
	b.SetBytes(int64(len(doc)))
	for b.Loop() {
		var v map[string]any
		if err := json.Unmarshal(doc, &v); err != nil {
			b.Fatal(err)
		}
		for _, s := range v["streams"].([]any) {
			m := s.(map[string]any)
			m["_id"] = m["id"]
			delete(m, "id")
		}
		if _, err := json.Marshal(v); err != nil {
			b.Fatal(err)
		}
	}
}

func BenchmarkDeleteField(b *testing.B) {
	doc := streamsDoc(20)
	b.ReportAllocs()
	b.SetBytes(int64(len(doc)))
	for b.Loop() {
		if _, err := rewrite.DeleteField(doc, "streams.#", "rules"); err != nil {
			b.Fatal(err)
		}
	}
}

func BenchmarkPretty(b *testing.B) {
	doc := streamsDoc(1)
	b.Run(fmt.Sprintf("%dB", len(doc)), func(b *testing.B) {
		dst := make([]byte, 0, 4*len(doc))
		b.ReportAllocs()
		b.SetBytes(int64(len(doc)))
		for b.Loop() {
			dst = rewrite.Pretty(dst[:0], doc)
		}
	})
	// json.Indent is the yardstick: same work, different layout.
	b.Run(fmt.Sprintf("%dB/json.Indent", len(doc)), func(b *testing.B) {
		var buf bytes.Buffer
		b.ReportAllocs()
		b.SetBytes(int64(len(doc)))
		for b.Loop() {
			buf.Reset()
			if err := json.Indent(&buf, doc, "", "  "); err != nil {
				b.Fatal(err)
			}
		}
	})
}
