package inputs_test

import (
	"net/http"
	"testing"

	"github.com/tidwall/gjson"
)

// FuzzCreateUpdate sends arbitrary bodies to POST and PUT: every answer is a
// success or a client error, and a stored input reads back with its
// password masked.
func FuzzCreateUpdate(f *testing.F) {
	f.Add([]byte(udpBody), []byte(`{"title":"x","type":"`+tcp+`","node":"n","configuration":{"bind_address":"::","port":"2","tls_key_password":"<password set>"}}`))
	f.Add([]byte(`{"title":"h","type":"`+gelfHTTP+`","global":true,"configuration":{"bind_address":1,"port":"0x10","enable_cors":"FALSE","tls_client_auth":"Optional"}}`), []byte(`{"type":1}`))
	f.Add([]byte(`{"title":"t","type":"`+tcp+`","node":"n","configuration":{"bind_address":"a","port":1,"tls_key_password":"pw","max_message_size":-1}}`), []byte(`{}`))
	f.Add([]byte(`{`), []byte(`null`))
	e := newEnv(f)
	id := e.create(`{"title":"t","type":"` + tcp + `","global":true,"configuration":{"bind_address":"a","port":1,"tls_key_password":"secret"}}`)
	f.Fuzz(func(t *testing.T, create, update []byte) {
		e := e.with(t)
		rec := e.Admin("POST", "/system/inputs", string(create))
		switch rec.Code {
		case http.StatusCreated:
			got := e.Admin("GET", rec.Header().Get("Location"), "")
			if got.Code != http.StatusOK {
				t.Fatalf("created input: %d %s", got.Code, got.Body)
			}
			pw := gjson.Get(got.Body.String(), "attributes.tls_key_password")
			if pw.Exists() && pw.String() != "" && pw.String() != "<password set>" {
				t.Fatalf("password shown: %s", got.Body)
			}
		case http.StatusBadRequest, http.StatusNotFound:
		default:
			t.Fatalf("POST %q: %d %s", create, rec.Code, rec.Body)
		}
		switch rec = e.Admin("PUT", "/system/inputs/"+id, string(update)); rec.Code {
		case http.StatusCreated, http.StatusBadRequest, http.StatusNotFound:
		default:
			t.Fatalf("PUT %q: %d %s", update, rec.Code, rec.Body)
		}
	})
}
