package gelf_test

import (
	"bytes"
	"compress/gzip"
	"compress/zlib"
	"testing"
	"time"
)

// receiveTime is the fixed clock of the tests.
var receiveTime = time.Date(2026, 11, 22, 6, 0, 0, 0, time.UTC)

func fixedNow() time.Time { return receiveTime }

func zlibLevel(tb testing.TB, level int, p []byte) []byte {
	tb.Helper()
	var b bytes.Buffer
	w, err := zlib.NewWriterLevel(&b, level)
	if err != nil {
		tb.Fatal(err)
	}
	if _, err := w.Write(p); err != nil {
		tb.Fatal(err)
	}
	if err := w.Close(); err != nil {
		tb.Fatal(err)
	}
	return b.Bytes()
}

func zlibbed(tb testing.TB, p []byte) []byte {
	tb.Helper()
	return zlibLevel(tb, zlib.DefaultCompression, p)
}

func gzipped(tb testing.TB, p []byte) []byte {
	tb.Helper()
	var b bytes.Buffer
	w := gzip.NewWriter(&b)
	if _, err := w.Write(p); err != nil {
		tb.Fatal(err)
	}
	if err := w.Close(); err != nil {
		tb.Fatal(err)
	}
	return b.Bytes()
}

// sample400 is a realistic GELF message of about 400 bytes.
var sample400 = []byte(`{"version":"1.1","host":"web-07.prod.example.com","short_message":"GET /api/orders/98123 returned 200 in 12ms","full_message":"GET /api/orders/98123 HTTP/1.1 200 OK","timestamp":1763791200.123,"level":6,"facility":"nginx","_user_id":"9001","_request_id":"3f2b9c1e-2a44-4c1e-9d55-0b7e1f6a2c11","_http_status":200,"_duration_ms":12.5,"_env":"production","_region":"eu-west-1","_tags":["api","orders"]}`)
