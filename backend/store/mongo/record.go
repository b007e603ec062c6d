package mongo

import (
	"errors"
	"fmt"
	"unicode/utf8"

	"github.com/tidwall/gjson"
	"go.mongodb.org/mongo-driver/bson"
	"go.mongodb.org/mongo-driver/bson/primitive"
	"go.mongodb.org/mongo-driver/x/bsonx/bsoncore"
)

// Field names of a stored record.
const (
	fieldID     = "_id"
	fieldRev    = "rev"
	fieldJSON   = "json"
	fieldUnique = "unique"
)

// errEmptyDoc rejects empty documents: they are not JSON objects.
var errEmptyDoc = errors.New("empty document")

// encode returns the record of document doc with id at revision rev.
func encode(id string, rev int64, doc []byte, idxs []index) bson.Raw {
	n := 64 + len(id) + len(doc)
	idx, b := bsoncore.ReserveLength(make([]byte, 0, n))
	b = bsoncore.AppendStringElement(b, fieldID, id)
	b = bsoncore.AppendInt64Element(b, fieldRev, rev)
	b = appendText(b, fieldJSON, doc)
	b = appendUnique(b, doc, idxs)
	b = append(b, 0)
	return bson.Raw(bsoncore.UpdateLength(b, idx, int32(len(b)-int(idx))))
}

// appendText appends text as a string element if it is UTF-8, which
// MongoDB requires of strings and some servers enforce, and as binary data
// otherwise, so that any bytes round-trip.
func appendText[T string | []byte](b []byte, key string, text T) []byte {
	if utf8.Valid([]byte(text)) {
		return bsoncore.AppendStringElement(b, key, string(text))
	}
	return bsoncore.AppendBinaryElement(b, key, bson.TypeBinaryGeneric, []byte(text))
}

// textValue is the value appendText stores for text, for queries.
func textValue[T string | []byte](text T) any {
	if utf8.Valid([]byte(text)) {
		return string(text)
	}
	return primitive.Binary{Subtype: bson.TypeBinaryGeneric, Data: []byte(text)}
}

// uniqueDoc returns the unique subdocument of doc alone, for updates that
// set it.
func uniqueDoc(doc []byte, idxs []index) bson.Raw {
	b := appendUnique(nil, doc, idxs)
	// appendUnique wrote one element; its value starts after the type byte
	// and the NUL-terminated name.
	return bson.Raw(b[1+len(fieldUnique)+1:])
}

// appendUnique appends the unique element of doc: the values of the
// declared fields that are non-empty strings. The other fields are left out,
// so that their sparse index skips the record.
func appendUnique(b, doc []byte, idxs []index) []byte {
	var idx int32
	idx, b = bsoncore.AppendDocumentElementStart(b, fieldUnique)
	for i := range idxs {
		if v := idxs[i].value(doc); v != "" {
			b = appendText(b, idxs[i].field, v)
		}
	}
	b, _ = bsoncore.AppendDocumentEnd(b, idx)
	return b
}

// decode returns the id, revision and document of a record; the document is
// a fresh copy. Fields not projected are zero.
func decode(raw bson.Raw) (id string, rev int64, doc []byte, err error) {
	elems, err := raw.Elements()
	if err != nil {
		return "", 0, nil, fmt.Errorf("malformed record: %w", err)
	}
	seen := false
	for _, e := range elems {
		v := e.Value()
		switch e.Key() {
		case fieldID:
			s, ok := v.StringValueOK()
			if !ok {
				return "", 0, nil, fmt.Errorf("record id of type %s, want string", v.Type)
			}
			id = s
		case fieldRev:
			r, ok := v.AsInt64OK()
			if !ok {
				return "", 0, nil, fmt.Errorf("record %q: revision of type %s, want a number", id, v.Type)
			}
			rev = r
		case fieldJSON:
			seen = true
			switch v.Type {
			case bson.TypeString:
				doc = []byte(v.StringValue())
			case bson.TypeBinary:
				_, data := v.Binary()
				doc = append([]byte(nil), data...)
			default:
				return "", 0, nil, fmt.Errorf("record %q: document of type %s, want string or binary", id, v.Type)
			}
		}
	}
	if !seen {
		return "", 0, nil, fmt.Errorf("record %q has no %s field, it was not written by loggate", id, fieldJSON)
	}
	return id, rev, doc, nil
}

// index is a declared unique index of one collection.
type index struct {
	field string
	path  string // gjson path that matches field literally
	name  string // MongoDB index name
}

// indexPrefix starts the names of loggate's indexes, so that Open can tell
// them from indexes an operator added.
const indexPrefix = "loggate_unique_"

// value returns the indexed value of doc: the field's string value, or ""
// when the field is missing, empty or not a string (sparse index). It is
// the embedded store's rule.
func (ix *index) value(doc []byte) string {
	if len(doc) == 0 {
		return ""
	}
	r := gjson.GetBytes(doc, ix.path)
	if r.Type != gjson.String {
		return ""
	}
	return r.Str
}

// key is the record field that the index covers.
func (ix *index) key() string { return fieldUnique + "." + ix.field }
