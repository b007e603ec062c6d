package gelf_test

import (
	"bytes"
	"compress/zlib"
	"errors"
	"math"
	"reflect"
	"strings"
	"testing"
	"time"

	"github.com/loggate/loggate/backend/logs/gelf"
)

func decode(t *testing.T, payload string) (gelf.Message, error) {
	t.Helper()
	return gelf.Decode([]byte(payload), gelf.Options{Now: fixedNow})
}

func TestDecodeValidation(t *testing.T) {
	tests := []struct {
		name    string
		payload string
		source  string
		message string
		invalid string // substring of the error; empty means valid
	}{
		{name: "minimal", payload: `{"version":"1.1","host":"h","short_message":"m"}`, source: "h", message: "m"},
		{name: "version optional", payload: `{"host":"h","short_message":"m"}`, source: "h", message: "m"},
		{name: "values trimmed", payload: `{"host":" h\t","short_message":"  hi \n"}`, source: "h", message: "hi"},
		{name: "message fallback", payload: `{"host":"h","message":"from message"}`, source: "h", message: "from message"},
		{name: "blank short_message falls back", payload: `{"host":"h","short_message":" ","message":"y"}`, source: "h", message: "y"},
		{name: "short_message wins over message", payload: `{"host":"h","message":"y","short_message":"x"}`, source: "h", message: "x"},
		{name: "duplicate key last wins", payload: `{"host":"a","short_message":"m","host":"b"}`, source: "b", message: "m"},
		{name: "missing host", payload: `{"short_message":"m"}`, invalid: `missing mandatory "host"`},
		{name: "blank host", payload: `{"host":"  ","short_message":"m"}`, invalid: `empty mandatory "host"`},
		{name: "numeric host", payload: `{"host":1,"short_message":"m"}`, invalid: `"host" is not a string`},
		{name: "null host", payload: `{"host":null,"short_message":"m"}`, invalid: `"host" is not a string`},
		{name: "missing both", payload: `{"host":"h"}`, invalid: `missing mandatory "short_message" or "message"`},
		{name: "blank short_message alone", payload: `{"host":"h","short_message":"\n"}`, invalid: `empty mandatory "short_message"`},
		{name: "blank both", payload: `{"host":"h","short_message":"","message":" "}`, invalid: `empty mandatory "short_message"`},
		{name: "numeric short_message", payload: `{"host":"h","short_message":5,"message":"m"}`, invalid: `"short_message" is not a string`},
		{name: "object message", payload: `{"host":"h","message":{}}`, invalid: `"message" is not a string`},
		{name: "empty payload", payload: ``, invalid: "empty payload"},
		{name: "array", payload: `[{"host":"h","short_message":"m"}]`, invalid: "not a JSON object"},
		{name: "string", payload: `"x"`, invalid: "not a JSON object"},
		{name: "truncated", payload: `{"host":"h","short_message":"m"`, invalid: "unexpected end"},
		{name: "unterminated string", payload: `{"host":"h","short_message":"m`, invalid: "unterminated string"},
		{name: "missing colon", payload: `{"host" "h"}`, invalid: "expected ':'"},
		{name: "bare word", payload: `{"host":h}`, invalid: "invalid value"},
		{name: "leading zero", payload: `{"host":"h","short_message":"m","_n":01}`, invalid: "expected ','"},
		{name: "bad escape", payload: `{"host":"h","short_message":"a\x"}`, invalid: "invalid escape"},
		{name: "bad unicode escape", payload: `{"host":"h","short_message":"\u12"}`, invalid: `invalid \u escape`},
		{name: "trailing data", payload: `{"host":"h","short_message":"m"} x`, invalid: "data after the JSON object"},
		{name: "two objects", payload: `{"host":"h","short_message":"m"}{}`, invalid: "data after the JSON object"},
		{name: "trailing whitespace and NUL", payload: "{\"host\":\"h\",\"short_message\":\"m\"}\r\n\x00", source: "h", message: "m"},
		{name: "leading whitespace and BOM", payload: "\uFEFF \n{\"host\":\"h\",\"short_message\":\"m\"}", source: "h", message: "m"},
		{name: "trailing comma", payload: `{"host":"h","short_message":"m",}`, source: "h", message: "m"},
		{name: "double trailing comma", payload: `{"host":"h","short_message":"m",,}`, invalid: "expected a member name"},
		{name: "raw control characters", payload: "{\"host\":\"h\",\"short_message\":\"a\tb\x01c\nd\"}", source: "h", message: "a\tb\x01c\nd"},
		{name: "unclosed nested", payload: `{"host":"h","short_message":"m","_a":[1,{"b":2}}`, invalid: "expected ',' or a closing bracket"},
		{name: "comma in empty array", payload: `{"host":"h","short_message":"m","_a":[,]}`, invalid: "invalid value"},
		{name: "deep nesting", payload: `{"host":"h","short_message":"m","_a":` + strings.Repeat("[", 1001) + strings.Repeat("]", 1001) + `}`, invalid: "nesting too deep"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			m, err := decode(t, tc.payload)
			if tc.invalid != "" {
				if !errors.Is(err, gelf.ErrInvalid) || !strings.Contains(err.Error(), tc.invalid) {
					t.Fatalf("err = %v, want ErrInvalid containing %q", err, tc.invalid)
				}
				return
			}
			if err != nil {
				t.Fatalf("Decode: %v", err)
			}
			if m.Source != tc.source || m.Message != tc.message {
				t.Errorf("source, message = %q, %q; want %q, %q", m.Source, m.Message, tc.source, tc.message)
			}
		})
	}
}

func TestDecodeFields(t *testing.T) {
	const base = `"host":"h","short_message":"m"`
	tests := []struct {
		name   string
		extra  string
		fields []gelf.Field
	}{
		{name: "none", extra: `"version":"1.1"`, fields: nil},
		{name: "underscore stripped, int", extra: `"_user_id":42`, fields: []gelf.Field{{Key: "user_id", Value: int64(42)}}},
		{name: "float", extra: `"_took":1.5`, fields: []gelf.Field{{Key: "took", Value: 1.5}}},
		{name: "exponent is float", extra: `"_n":1e3`, fields: []gelf.Field{{Key: "n", Value: 1000.0}}},
		{name: "negative int", extra: `"_n":-7`, fields: []gelf.Field{{Key: "n", Value: int64(-7)}}},
		{name: "int beyond int64 is float", extra: `"_n":12345678901234567890`, fields: []gelf.Field{{Key: "n", Value: 12345678901234567890.0}}},
		{name: "infinite float skipped", extra: `"_n":1e400`, fields: nil},
		{name: "string trimmed", extra: `"_s":" x "`, fields: []gelf.Field{{Key: "s", Value: "x"}}},
		{name: "empty string skipped", extra: `"_s":"  "`, fields: nil},
		{name: "null skipped", extra: `"_s":null`, fields: nil},
		{name: "boolean skipped", extra: `"_b":true,"_c":false`, fields: nil},
		{name: "object as compact JSON", extra: `"_o":{ "a" : 1, "b":[true, null ,], }`, fields: []gelf.Field{{Key: "o", Value: `{"a":1,"b":[true,null]}`}}},
		{name: "array kept verbatim", extra: `"_a":["x\"y",{"k":"\u00e9"}]`, fields: []gelf.Field{{Key: "a", Value: `["x\"y",{"k":"\u00e9"}]`}}},
		{name: "control character in container escaped", extra: "\"_a\":[\"x\ty\x01\"]", fields: []gelf.Field{{Key: "a", Value: `["x\ty\u0001"]`}}},
		{name: "_id stored as id, as Graylog 4.0 does", extra: `"_id":"abc"`, fields: []gelf.Field{{Key: "id", Value: "abc"}}},
		{name: "__id is the reserved _id", extra: `"__id":"abc"`, fields: nil},
		{name: "plain id kept", extra: `"id":"abc"`, fields: []gelf.Field{{Key: "id", Value: "abc"}}},
		{name: "reserved names dropped", extra: `"__id":1,"__ttl":1,"__source":1,"__all":1,"__index":1,"__type":1,"__score":1,"_streams":"x"`, fields: nil},
		{name: "core names not overwritten", extra: `"_source":"s","_message":"x","_timestamp":5,"_host":"x","_short_message":"x","source":"s"`, fields: nil},
		{name: "version skipped, _version kept", extra: `"version":"1.1","_version":"2"`, fields: []gelf.Field{{Key: "version", Value: "2"}}},
		{name: "lone underscore kept", extra: `"_":"u"`, fields: []gelf.Field{{Key: "_", Value: "u"}}},
		{name: "double underscore strips one", extra: `"__x":"u"`, fields: []gelf.Field{{Key: "_x", Value: "u"}}},
		{name: "key characters", extra: `"_a.b":1,"_c-d@e":2,"_sp ace":3,"_ä":4,"_sl/ash":5,"":6`, fields: []gelf.Field{{Key: "a.b", Value: int64(1)}, {Key: "c-d@e", Value: int64(2)}}},
		{name: "key trimmed", extra: `"_ k ":1`, fields: []gelf.Field{{Key: "k", Value: int64(1)}}},
		{name: "escaped key", extra: `"_a\u0062":1`, fields: []gelf.Field{{Key: "ab", Value: int64(1)}}},
		{name: "first of two names wins", extra: `"_x":1,"x":2`, fields: []gelf.Field{{Key: "x", Value: int64(1)}}},
		{name: "duplicate key last value first position", extra: `"_x":1,"_y":2,"_x":3`, fields: []gelf.Field{{Key: "x", Value: int64(3)}, {Key: "y", Value: int64(2)}}},
		{name: "payload order", extra: `"_b":1,"_a":2,"_c":3`, fields: []gelf.Field{{Key: "b", Value: int64(1)}, {Key: "a", Value: int64(2)}, {Key: "c", Value: int64(3)}}},
		{name: "gl2 fields kept as Graylog does", extra: `"_gl2_remote_ip":"1.2.3.4"`, fields: []gelf.Field{{Key: "gl2_remote_ip", Value: "1.2.3.4"}}},

		{name: "level int", extra: `"level":3`, fields: []gelf.Field{{Key: "level", Value: int64(3)}}},
		{name: "level float truncated", extra: `"level":3.9`, fields: []gelf.Field{{Key: "level", Value: int64(3)}}},
		{name: "level numeric string", extra: `"level":" 5 "`, fields: []gelf.Field{{Key: "level", Value: int64(5)}}},
		// Jackson's asInt of a boolean, as Graylog's intValue reads it
		{name: "level true", extra: `"level":true`, fields: []gelf.Field{{Key: "level", Value: int64(1)}}},
		{name: "level false", extra: `"level":false`, fields: []gelf.Field{{Key: "level", Value: int64(0)}}},
		{name: "line true", extra: `"line":true`, fields: []gelf.Field{{Key: "line", Value: int64(1)}}},
		{name: "level word kept as string", extra: `"level":"debug"`, fields: []gelf.Field{{Key: "level", Value: "debug"}}},
		{name: "level negative kept as field", extra: `"level":-1`, fields: []gelf.Field{{Key: "level", Value: int64(-1)}}},
		{name: "level absent stays absent", extra: `"facility":"f"`, fields: []gelf.Field{{Key: "facility", Value: "f"}}},
		{name: "level before _level", extra: `"_level":7,"level":2`, fields: []gelf.Field{{Key: "level", Value: int64(2)}}},
		{name: "_level fills an unusable level", extra: `"_level":7,"level":"x"`, fields: []gelf.Field{{Key: "level", Value: int64(7)}}},
		{name: "line", extra: `"line":42`, fields: []gelf.Field{{Key: "line", Value: int64(42)}}},
		{name: "line numeric string", extra: `"line":"42"`, fields: []gelf.Field{{Key: "line", Value: int64(42)}}},
		{name: "file and facility", extra: `"file":" main.go ","facility":"app"`, fields: []gelf.Field{{Key: "file", Value: "main.go"}, {Key: "facility", Value: "app"}}},
		{name: "full_message", extra: `"full_message":"trace\nline 2"`, fields: []gelf.Field{{Key: "full_message", Value: "trace\nline 2"}}},
		{name: "full_message number as text", extra: `"full_message":12`, fields: []gelf.Field{{Key: "full_message", Value: "12"}}},
		{name: "facility boolean as text", extra: `"facility":true`, fields: []gelf.Field{{Key: "facility", Value: "true"}}},
		{name: "file object as JSON", extra: `"file":{"a":1}`, fields: []gelf.Field{{Key: "file", Value: `{"a":1}`}}},
		{name: "full_message null skipped", extra: `"full_message":null`, fields: nil},
		{name: "special fields first", extra: `"_z":1,"level":1,"full_message":"f"`, fields: []gelf.Field{{Key: "full_message", Value: "f"}, {Key: "level", Value: int64(1)}, {Key: "z", Value: int64(1)}}},

		{name: "unicode escapes", extra: `"_e":"\u00e9\ud83d\ude00","_l":"a\ud83db"`, fields: []gelf.Field{{Key: "e", Value: "é😀"}, {Key: "l", Value: "a\uFFFDb"}}},
		{name: "simple escapes", extra: `"_e":"a\"\\\/\b\f\n\r\tz"`, fields: []gelf.Field{{Key: "e", Value: "a\"\\/\b\f\n\r\tz"}}},
		{name: "invalid UTF-8 replaced", extra: "\"_u\":\"a\xffb\"", fields: []gelf.Field{{Key: "u", Value: "a\uFFFDb"}}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			m, err := decode(t, `{`+base+`,`+tc.extra+`}`)
			if err != nil {
				t.Fatalf("Decode: %v", err)
			}
			if len(m.Fields) == 0 && len(tc.fields) == 0 {
				return
			}
			if !reflect.DeepEqual(m.Fields, tc.fields) {
				t.Errorf("fields = %#v\nwant %#v", m.Fields, tc.fields)
			}
		})
	}
}

func TestDecodeManyFields(t *testing.T) {
	// Past the linear-scan threshold, duplicate detection switches to maps.
	var b strings.Builder
	b.WriteString(`{"host":"h","short_message":"m"`)
	for i := range 100 {
		b.WriteString(`,"_f` + string(rune('a'+i%26)) + string(rune('a'+i/26)) + `":1`)
	}
	b.WriteString(`,"_fa":2,"fa":3,"_fza":4}`) // _fa repeated: value replaced; fa: same name, dropped
	m, err := decode(t, b.String())
	if err != nil {
		t.Fatal(err)
	}
	if len(m.Fields) != 101 {
		t.Fatalf("got %d fields, want 101", len(m.Fields))
	}
	if v, _ := m.Field("fa"); v != int64(2) {
		t.Errorf("fa = %v, want 2", v)
	}
	if v, _ := m.Field("fza"); v != int64(4) {
		t.Errorf("fza = %v, want 4", v)
	}
}

func TestDecodeTimestamp(t *testing.T) {
	tests := []struct {
		name string
		ts   string
		want time.Time
	}{
		{name: "integer seconds", ts: `1700000000`, want: time.Unix(1700000000, 0)},
		{name: "fractional seconds", ts: `1700000000.25`, want: time.UnixMilli(1700000000250)},
		{name: "rounded half up to milliseconds", ts: `1.0625`, want: time.UnixMilli(1063)},
		{name: "numeric string", ts: `"1700000000.5"`, want: time.UnixMilli(1700000000500)},
		{name: "numeric string trimmed", ts: `" 1700000000 "`, want: time.Unix(1700000000, 0)},
		{name: "exponent", ts: `1.7e9`, want: time.Unix(1700000000, 0)},
		{name: "word string", ts: `"yesterday"`, want: receiveTime},
		{name: "zero", ts: `0`, want: receiveTime},
		{name: "negative", ts: `-5`, want: receiveTime},
		{name: "null", ts: `null`, want: receiveTime},
		{name: "boolean", ts: `true`, want: receiveTime},
		{name: "object", ts: `{}`, want: receiveTime},
		{name: "milliseconds by mistake, past year 9999", ts: `1700000000000`, want: receiveTime},
		{name: "NaN string", ts: `"NaN"`, want: receiveTime},
		{name: "huge", ts: `1e400`, want: receiveTime},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			m, err := decode(t, `{"host":"h","short_message":"m","timestamp":`+tc.ts+`}`)
			if err != nil {
				t.Fatal(err)
			}
			if !m.Timestamp.Equal(tc.want) || m.Timestamp.Location() != time.UTC {
				t.Errorf("timestamp = %v, want %v in UTC", m.Timestamp, tc.want.UTC())
			}
			if _, ok := m.Field("timestamp"); ok {
				t.Error("timestamp also stored as a field")
			}
		})
	}
	t.Run("absent", func(t *testing.T) {
		m, err := decode(t, `{"host":"h","short_message":"m"}`)
		if err != nil || !m.Timestamp.Equal(receiveTime) {
			t.Errorf("timestamp = %v, %v; want receive time", m.Timestamp, err)
		}
	})
}

func TestDecodeCompression(t *testing.T) {
	body := []byte(`{"host":"h","short_message":"compressed","_k":"v"}`)
	tests := []struct {
		name    string
		payload []byte
	}{
		{name: "plain", payload: body},
		{name: "zlib default", payload: zlibbed(t, body)},
		{name: "zlib no compression", payload: zlibLevel(t, zlib.NoCompression, body)},
		{name: "zlib best speed", payload: zlibLevel(t, zlib.BestSpeed, body)},
		{name: "zlib best compression", payload: zlibLevel(t, zlib.BestCompression, body)},
		{name: "gzip", payload: gzipped(t, body)},
		{name: "gzip with trailing bytes", payload: append(gzipped(t, body), "junk"...)},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			m, err := gelf.Decode(tc.payload, gelf.Options{Now: fixedNow})
			if err != nil {
				t.Fatal(err)
			}
			if v, _ := m.Field("k"); m.Message != "compressed" || v != "v" {
				t.Errorf("message, k = %q, %v", m.Message, v)
			}
		})
	}
}

func TestDecodeCompressionErrors(t *testing.T) {
	body := []byte(`{"host":"h","short_message":"m"}`)
	corrupt := zlibbed(t, body)
	corrupt[len(corrupt)-1] ^= 0xff // Adler-32 checksum
	badGzip := gzipped(t, body)
	badGzip[len(badGzip)-5] ^= 0xff // CRC-32
	tests := []struct {
		name    string
		payload []byte
	}{
		{name: "zlib bad checksum", payload: corrupt},
		{name: "zlib truncated", payload: zlibbed(t, body)[:10]},
		{name: "zlib header only", payload: []byte{0x78, 0x9c}},
		{name: "gzip bad crc", payload: badGzip},
		{name: "gzip truncated", payload: gzipped(t, body)[:15]},
		{name: "gzip magic only", payload: []byte{0x1f, 0x8b}},
		{name: "chunk", payload: []byte{0x1e, 0x0f, 1, 2, 3, 4, 5, 6, 7, 8, 0, 1, '{', '}'}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			if _, err := gelf.Decode(tc.payload, gelf.Options{Now: fixedNow}); !errors.Is(err, gelf.ErrInvalid) {
				t.Fatalf("err = %v, want ErrInvalid", err)
			}
		})
	}
}

func TestDecodeSizeLimit(t *testing.T) {
	body := []byte(`{"host":"h","short_message":"` + strings.Repeat("x", 69) + `"}`) // 100 bytes
	if len(body) != 100 {
		t.Fatalf("body is %d bytes", len(body))
	}
	for _, tc := range []struct {
		name  string
		limit int64
		err   error
	}{
		{name: "at the limit", limit: 100},
		{name: "one over", limit: 99, err: gelf.ErrTooLarge},
	} {
		for enc, payload := range map[string][]byte{"zlib": zlibbed(t, body), "gzip": gzipped(t, body)} {
			t.Run(tc.name+"/"+enc, func(t *testing.T) {
				_, err := gelf.Decode(payload, gelf.Options{MaxDecompressed: tc.limit, Now: fixedNow})
				if !errors.Is(err, tc.err) {
					t.Fatalf("err = %v, want %v", err, tc.err)
				}
				if tc.err != nil && !errors.Is(err, gelf.ErrInvalid) {
					t.Fatalf("ErrTooLarge does not wrap ErrInvalid")
				}
			})
		}
	}
	t.Run("bomb under the default limit", func(t *testing.T) {
		// 9 MiB of spaces compress to a few KiB.
		bomb := zlibLevel(t, zlib.BestCompression, bytes.Repeat([]byte(" "), 9<<20))
		if _, err := gelf.Decode(bomb, gelf.Options{}); !errors.Is(err, gelf.ErrTooLarge) {
			t.Fatalf("err = %v, want ErrTooLarge", err)
		}
	})
}

func TestDecodeDoesNotAliasPayload(t *testing.T) {
	payload := []byte(`{"host":"h","short_message":"hello","_k":"value","_o":[1]}`)
	m, err := gelf.Decode(payload, gelf.Options{Now: fixedNow})
	if err != nil {
		t.Fatal(err)
	}
	for i := range payload {
		payload[i] = 'z'
	}
	k, _ := m.Field("k")
	o, _ := m.Field("o")
	if m.Source != "h" || m.Message != "hello" || k != "value" || o != "[1]" {
		t.Errorf("message changed with its payload: %+v", m)
	}
}

func TestDecodeDefaultClock(t *testing.T) {
	before := time.Now()
	m, err := gelf.Decode([]byte(`{"host":"h","short_message":"m"}`), gelf.Options{})
	if err != nil {
		t.Fatal(err)
	}
	if m.Timestamp.Before(before.Add(-time.Second)) || m.Timestamp.After(time.Now().Add(time.Second)) {
		t.Errorf("timestamp %v is not the wall clock", m.Timestamp)
	}
	if math.Abs(float64(m.Timestamp.Sub(before))) > float64(time.Minute) {
		t.Errorf("timestamp %v too far from now", m.Timestamp)
	}
}

// budget records what decoding asks for, refusing past its limit.
type budget struct {
	limit, granted, largest int
}

var errNoRoom = errors.New("no room")

func (b *budget) Grow(n int) error {
	if b.granted+n > b.limit {
		return errNoRoom
	}
	b.granted += n
	b.largest = max(b.largest, n)
	return nil
}

// TestDecodeBudgetIgnoresPool: a small payload asks the budget for its own
// buffer and text, not for the capacity a large payload left in the pooled
// decompression buffer; otherwise small messages would crowd the node-wide
// budget after one large one.
func TestDecodeBudgetIgnoresPool(t *testing.T) {
	large := gzipped(t, []byte(`{"host":"h","short_message":"`+strings.Repeat("x", 200<<10)+`"}`))
	small := gzipped(t, sample400)
	for range 3 {
		if _, err := gelf.Decode(large, gelf.Options{Now: fixedNow}); err != nil {
			t.Fatal(err)
		}
		b := &budget{limit: 1 << 30}
		if _, err := gelf.Decode(small, gelf.Options{Now: fixedNow, Budget: b}); err != nil {
			t.Fatal(err)
		}
		// A fresh 4 KiB buffer, then the text: nothing of the 256 KiB one.
		if want := 4<<10 + len(sample400); b.granted != want {
			t.Fatalf("a %d-byte text after a large one asked for %d bytes, want %d", len(sample400), b.granted, want)
		}
	}
}

func TestDecodeBudget(t *testing.T) {
	const limit = 1 << 20
	msg := []byte(`{"host":"h","short_message":"` + strings.Repeat("x", 200<<10) + `"}`)
	bomb := gzipped(t, bytes.Repeat([]byte(" "), 64<<20))
	for _, tc := range []struct {
		name    string
		payload []byte
		budget  int
		err     error
		// most is the most the decoding may ask for in all.
		most int
	}{
		{name: "plain: its text", payload: msg, budget: 1 << 30, most: len(msg)},
		// The buffer doubles as output arrives: less than twice the text.
		{name: "gzip: the buffer and the text", payload: gzipped(t, msg), budget: 1 << 30, most: 3 * len(msg)},
		// Output grows as it arrives, never to the claimed 64 MiB, and
		// stops one byte past the limit.
		{name: "bomb: up to the limit", payload: bomb, budget: 1 << 30, err: gelf.ErrTooLarge, most: 2 * (limit + 1)},
		{name: "refused: the budget's error", payload: gzipped(t, msg), budget: 64 << 10, err: errNoRoom, most: 64 << 10},
	} {
		t.Run(tc.name, func(t *testing.T) {
			b := &budget{limit: tc.budget}
			_, err := gelf.Decode(tc.payload, gelf.Options{Now: fixedNow, MaxDecompressed: limit, Budget: b})
			if !errors.Is(err, tc.err) {
				t.Fatalf("err = %v, want %v", err, tc.err)
			}
			if tc.err == errNoRoom && errors.Is(err, gelf.ErrInvalid) {
				t.Errorf("a refusal of the budget wraps ErrInvalid: %v", err)
			}
			if b.granted > tc.most {
				t.Errorf("asked for %d bytes in all, want at most %d", b.granted, tc.most)
			}
		})
	}
}

// TestDecodeBudgetCountsEscapedContainers: a container field is stored as
// its JSON with control characters escaped, up to six times its text;
// that text is asked of the budget, and a budget without room for it fails
// the decoding rather than taking the memory.
func TestDecodeBudgetCountsEscapedContainers(t *testing.T) {
	const controls = 100000
	payload := []byte(`{"host":"h","short_message":"m","_list":["` + strings.Repeat("\x01", controls) + `"]}`)
	b := &budget{limit: 1 << 30}
	m, err := gelf.Decode(payload, gelf.Options{Now: fixedNow, Budget: b})
	if err != nil {
		t.Fatal(err)
	}
	stored, _ := m.Field("list")
	if s, _ := stored.(string); len(s) != 6*controls+4 || !strings.HasPrefix(s, `["\u0001`) {
		t.Fatalf("list stored as %d bytes", len(s))
	}
	if b.granted < len(payload)+6*controls {
		t.Errorf("the budget granted %d bytes for a payload of %d whose field takes %d", b.granted, len(payload), 6*controls)
	}
	short := &budget{limit: b.granted - 1}
	if _, err := gelf.Decode(payload, gelf.Options{Now: fixedNow, Budget: short}); !errors.Is(err, errNoRoom) {
		t.Errorf("decoding with no room for the escaped field: %v, want the budget's error", err)
	}
	var dec gelf.Decoder
	if _, err := dec.Decode(payload, gelf.Options{Now: fixedNow, Budget: &budget{limit: b.granted - 1}}); !errors.Is(err, errNoRoom) {
		t.Errorf("Decoder with no room for the escaped field: %v, want the budget's error", err)
	}
}
