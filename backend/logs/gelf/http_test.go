package gelf_test

import (
	"bytes"
	"compress/flate"
	"errors"
	"strings"
	"testing"

	"github.com/loggate/loggate/backend/logs/gelf"
)

func rawDeflate(tb testing.TB, p []byte) []byte {
	tb.Helper()
	var b bytes.Buffer
	w, err := flate.NewWriter(&b, flate.DefaultCompression)
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

func TestDecodeHTTP(t *testing.T) {
	body := []byte(`{"host":"h","short_message":"over http"}`)
	tests := []struct {
		name     string
		encoding string
		payload  []byte
		limit    int64
		err      error
	}{
		{name: "plain without header", payload: body},
		{name: "gzip body without header", payload: gzipped(t, body)},
		{name: "zlib body without header", payload: zlibbed(t, body)},
		{name: "gzip with header", encoding: "gzip", payload: gzipped(t, body)},
		{name: "x-gzip, case and spaces", encoding: " X-GZIP ", payload: gzipped(t, body)},
		{name: "gzip header over a gzip body", encoding: "gzip", payload: gzipped(t, gzipped(t, body))},
		{name: "gzip header over a zlib body", encoding: "gzip", payload: gzipped(t, zlibbed(t, body))},
		{name: "deflate header, zlib", encoding: "deflate", payload: zlibbed(t, body)},
		{name: "deflate header, raw deflate", encoding: "deflate", payload: rawDeflate(t, body)},
		{name: "deflate header over a gzip body", encoding: "deflate", payload: rawDeflate(t, gzipped(t, body))},
		{name: "gzip header, plain body", encoding: "gzip", payload: body},
		{name: "deflate header, plain body", encoding: "deflate", payload: append([]byte(" \n"), body...)},
		{name: "identity", encoding: "identity", payload: body},
		{name: "unknown encoding passes through", encoding: "br", payload: body},
		{name: "deflate header, garbage", encoding: "deflate", payload: []byte("\xff\xff\xff garbage"), err: gelf.ErrInvalid},
		{name: "outer layer over the limit", encoding: "gzip", payload: gzipped(t, append(body, strings.Repeat(" ", 200)...)), limit: 100, err: gelf.ErrTooLarge},
		{name: "inner layer over the limit", encoding: "gzip", payload: gzipped(t, gzipped(t, append(body, strings.Repeat(" ", 200)...))), limit: 150, err: gelf.ErrTooLarge},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			m, err := gelf.DecodeHTTP(tc.payload, tc.encoding, gelf.Options{Now: fixedNow, MaxDecompressed: tc.limit})
			if tc.err != nil {
				if !errors.Is(err, tc.err) || !errors.Is(err, gelf.ErrInvalid) {
					t.Fatalf("err = %v, want %v", err, tc.err)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if m.Message != "over http" || m.Source != "h" {
				t.Errorf("decoded %+v", m)
			}
		})
	}
}
