package outputs_test

import (
	"net/http"
	"testing"
)

// FuzzCreateUpdate sends arbitrary bodies to POST and PUT: every answer is a
// success or a client error, and what was stored reads back as answered.
func FuzzCreateUpdate(f *testing.F) {
	f.Add([]byte(minimal), []byte(`{"title":"x","configuration":{"hostname":"h","port":"2","protocol":"udp"}}`))
	f.Add([]byte(`{"title":"a","type":"`+gelf+`","configuration":{"hostname":1,"port":"0x10","protocol":null},"streams":["s1","zz"]}`), []byte(`{"type":1}`))
	f.Add([]byte(`{"title":"a","type":"`+gelf+`","configuration":{"hostname":"h","port":1,"protocol":"TCP","tcp_no_delay":"TRUE"},"streams":["s2"]}`), []byte(`{"configuration":{}}`))
	f.Add([]byte(`{`), []byte(`[]`))
	e := newEnv(f)
	id := e.create(minimal).ID
	f.Fuzz(func(t *testing.T, create, update []byte) {
		e := e.with(t)
		rec := e.Admin("POST", "/system/outputs", string(create))
		switch rec.Code {
		case http.StatusCreated:
			loc := rec.Header().Get("Location")
			if got := e.Admin("GET", loc, ""); got.Body.String() != rec.Body.String() {
				t.Fatalf("stored %s, answered %s", got.Body, rec.Body)
			}
		case http.StatusBadRequest, http.StatusNotFound:
		default:
			t.Fatalf("POST %q: %d %s", create, rec.Code, rec.Body)
		}
		rec = e.Admin("PUT", "/system/outputs/"+id, string(update))
		switch rec.Code {
		case http.StatusOK:
			if got := e.Admin("GET", "/system/outputs/"+id, ""); got.Body.String() != rec.Body.String() {
				t.Fatalf("stored %s, answered %s", got.Body, rec.Body)
			}
		case http.StatusBadRequest:
		default:
			t.Fatalf("PUT %q: %d %s", update, rec.Code, rec.Body)
		}
	})
}
