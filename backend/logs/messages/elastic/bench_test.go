package elastic

import (
	"testing"

	"github.com/loggate/loggate/backend/logs/messages"
	"github.com/loggate/loggate/backend/logs/messages/messagestest"
)

// BenchmarkAppendBulk times the _bulk body of a batch of 500 realistic
// messages, what every Write builds.
func BenchmarkAppendBulk(b *testing.B) {
	msgs := messagestest.Generate(1, 500, messagestest.BenchStart)
	var buf []byte
	b.ReportAllocs()
	for b.Loop() {
		var err error
		if buf, err = appendBulk(buf[:0], es7, "graylog_deflector", msgs); err != nil {
			b.Fatal(err)
		}
	}
	b.SetBytes(int64(len(buf)))
	b.ReportMetric(float64(len(msgs)*b.N)/b.Elapsed().Seconds(), "msgs/s")
}

// BenchmarkParseSearch times reading a search page of 150 hits, the
// default page of Graylog's search.
func BenchmarkParseSearch(b *testing.B) {
	msgs := messagestest.Generate(2, 150, messagestest.BenchStart)
	body := []byte(`{"took":5,"hits":{"total":{"value":100000,"relation":"eq"},"hits":[`)
	for i := range msgs {
		if i > 0 {
			body = append(body, ',')
		}
		body = append(body, `{"_index":"graylog_0","_type":"_doc","_id":`...)
		body = appendString(body, msgs[i].ID)
		body = append(body, `,"_score":null,"_source":`...)
		body = appendDocument(body, &msgs[i])
		body = append(body, `,"sort":[1709251200000,"x"]}`...)
	}
	body = append(body, "]}}"...)
	b.SetBytes(int64(len(body)))
	b.ReportAllocs()
	var res messages.Result
	for b.Loop() {
		var err error
		if res, err = parseSearch(body); err != nil {
			b.Fatal(err)
		}
	}
	if len(res.Hits) != len(msgs) {
		b.Fatalf("%d hits, want %d", len(res.Hits), len(msgs))
	}
}
