package query_test

import (
	"testing"

	"github.com/loggate/loggate/backend/analysis/search/query"
)

var benchQueries = []struct{ name, q string }{
	{"term", `ssh`},
	{"field", `source:web-01 AND level:<4`},
	{"phrase_wildcard", `message:"connection refused" -source:db*`},
	{"typical", `(source:web-01 OR source:web-02) AND http_status:[500 TO 599] AND NOT path:\/health* AND _exists_:user_id`},
}

func BenchmarkParse(b *testing.B) {
	for _, bq := range benchQueries {
		b.Run(bq.name, func(b *testing.B) {
			b.ReportAllocs()
			for b.Loop() {
				if _, err := query.Parse(bq.q, query.Options{}); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}

func BenchmarkToString(b *testing.B) {
	for _, bq := range benchQueries {
		n, err := query.Parse(bq.q, query.Options{})
		if err != nil {
			b.Fatal(err)
		}
		b.Run(bq.name, func(b *testing.B) {
			b.ReportAllocs()
			for b.Loop() {
				_ = query.ToString(n)
			}
		})
	}
}
