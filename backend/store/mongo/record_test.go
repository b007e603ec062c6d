package mongo_test

import (
	"bytes"
	"strings"
	"testing"

	"github.com/tidwall/gjson"
	"go.mongodb.org/mongo-driver/bson"

	"github.com/loggate/loggate/backend/store/mongo"
)

// recordDocs are documents whose bytes a record must keep exactly.
var recordDocs = []string{
	`{}`,
	`{ "z":1.50,"a" : "\u00fcü",  "n":null ,"l":[ ] }`,
	`{"big":9007199254740993,"neg":-9223372036854775808,"huge":123456789012345678901234567890}`,
	`{"f":1e400,"g":-0.0,"h":1.0,"i":1E-7}`,
	`{"nested":{"a":{"b":{"c":[1,[2,[3,{}]]]}}},"arr":[true,false,null,"x"]}`,
	`{"unicode":"日本語 😀 \ud83d\ude00","nul":"a\u0000b"}`,
	`{"$oid":"5f1d7f3e8c2b4a0012345678","$date":{"$numberLong":"1"}}`,
	`{"dup":1,"dup":2}`,
	"{\"tab\":\"\t\"}\n",
	`not json at all`,
	"\xff\xfe{\"invalid\":\"utf-8 \xc3\x28\"}",
	strings.Repeat(`{"deep":`, 100) + `1` + strings.Repeat(`}`, 100),
}

func TestRecordRoundTrip(t *testing.T) {
	for _, doc := range recordDocs {
		raw := mongo.Encode("id-1", 7, []byte(doc), "username", "email")
		if err := raw.Validate(); err != nil {
			t.Errorf("Encode(%q) is not valid BSON: %v", doc, err)
			continue
		}
		id, rev, got, err := mongo.Decode(raw)
		if err != nil {
			t.Errorf("Decode(Encode(%q)): %v", doc, err)
			continue
		}
		if id != "id-1" || rev != 7 || !bytes.Equal(got, []byte(doc)) {
			t.Errorf("Decode(Encode(%q)) = %q, %d, %q; want id-1, 7, the document", doc, id, rev, got)
		}
	}
}

func TestRecordUnique(t *testing.T) {
	tests := []struct {
		doc  string
		want map[string]string // field → indexed value; absent: not indexed
	}{
		{`{"username":"alice","email":"a@example.org"}`, map[string]string{"username": "alice", "email": "a@example.org"}},
		{`{"username":"","email":null}`, map[string]string{}},
		{`{"username":1,"email":["a"]}`, map[string]string{}},
		{`{"email":{"nested":"x"}}`, map[string]string{}},
		{`{"other":"x","username":"b\u00fc"}`, map[string]string{"username": "bü"}},
		{`{"a":{"username":"inner"}}`, map[string]string{}},
		{`{}`, map[string]string{}},
	}
	for _, tt := range tests {
		raw := mongo.Encode("x", 1, []byte(tt.doc), "username", "email")
		u, ok := raw.Lookup("unique").DocumentOK()
		if !ok {
			t.Errorf("record of %s has no unique subdocument: %s", tt.doc, raw)
			continue
		}
		elems, err := u.Elements()
		if err != nil {
			t.Fatal(err)
		}
		if len(elems) != len(tt.want) {
			t.Errorf("unique values of %s = %s, want %v", tt.doc, u, tt.want)
		}
		for field, want := range tt.want {
			if got, ok := u.Lookup(field).StringValueOK(); !ok || got != want {
				t.Errorf("unique %s of %s = %q (%v), want %q", field, tt.doc, got, ok, want)
			}
		}
	}
}

func TestDecodeMalformed(t *testing.T) {
	good := mongo.Encode("x", 1, []byte(`{}`))
	marshal := func(d bson.D) []byte {
		t.Helper()
		b, err := bson.Marshal(d)
		if err != nil {
			t.Fatal(err)
		}
		return b
	}
	tests := []struct {
		name string
		raw  []byte
	}{
		{"truncated", good[:len(good)-3]},
		{"no json field", marshal(bson.D{{Key: "_id", Value: "x"}, {Key: "rev", Value: int64(1)}})},
		{"numeric id", marshal(bson.D{{Key: "_id", Value: 1}, {Key: "json", Value: "{}"}})},
		{"json of another type", marshal(bson.D{{Key: "_id", Value: "x"}, {Key: "json", Value: bson.D{}}})},
		{"revision of another type", marshal(bson.D{{Key: "_id", Value: "x"}, {Key: "rev", Value: "1"}, {Key: "json", Value: "{}"}})},
	}
	for _, tt := range tests {
		if _, _, _, err := mongo.Decode(tt.raw); err == nil {
			t.Errorf("%s: Decode succeeded", tt.name)
		}
	}
}

func FuzzRecord(f *testing.F) {
	for _, doc := range recordDocs {
		f.Add([]byte(doc), "username")
	}
	f.Add([]byte(`{"a.b":"x"}`), "a.b")
	f.Add([]byte(`{"k":"v"}`), "k")
	f.Fuzz(func(t *testing.T, doc []byte, field string) {
		if field == "" || strings.ContainsAny(field, ".\x00") || strings.HasPrefix(field, "$") {
			return // refused by Open
		}
		raw := mongo.Encode("id", 3, doc, field)
		if err := raw.Validate(); err != nil {
			t.Fatalf("Encode(%q) is not valid BSON: %v", doc, err)
		}
		id, rev, got, err := mongo.Decode(raw)
		if err != nil || id != "id" || rev != 3 || !bytes.Equal(got, doc) {
			t.Fatalf("Decode(Encode(%q)) = %q, %d, %q, %v", doc, id, rev, got, err)
		}
		want := ""
		if r := gjson.GetBytes(doc, gjson.Escape(field)); r.Type == gjson.String {
			want = r.Str
		}
		rv := raw.Lookup("unique", field)
		v, ok := rv.StringValueOK()
		if _, data, isBin := rv.BinaryOK(); isBin {
			v, ok = string(data), true
		}
		if want == "" && ok {
			t.Fatalf("%q indexed under %q as %q, want not indexed", doc, field, v)
		}
		if want != "" && v != want {
			t.Fatalf("%q indexed under %q as %q, want %q", doc, field, v, want)
		}
	})
}
