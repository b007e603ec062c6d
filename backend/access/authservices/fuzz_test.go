package authservices

import (
	"bytes"
	"encoding/json"
	"slices"
	"testing"

	"github.com/loggate/loggate/auth"
	"github.com/loggate/loggate/auth/ldap"
	"github.com/loggate/loggate/router/api"
)

var fuzzSealer = auth.DeriveKeys("test secret 0123456789").Sealer("x")

const fuzzBackend = `{"title":"T","description":"d","default_roles":["r1","r1"],"config":{"type":"ldap",` +
	`"servers":[{"host":"h","port":389}],"transport_security":"none","verify_certificates":false,"system_user_dn":"cn=x",` +
	`"system_user_password":{"set_value":"PASSWORD-SEED"},"user_search_base":"dc=x","user_search_pattern":"(uid={0})",` +
	`"user_unique_id_attribute":"entryUUID","user_name_attribute":"uid","user_full_name_attribute":"cn"}}`

// FuzzParseBackend decodes and validates backend writes: nothing panics,
// and a decoded backend, once built, never shows its password.
func FuzzParseBackend(f *testing.F) {
	for _, seed := range []string{
		fuzzBackend,
		`{"title":"AD","config":{"type":"active-directory","servers":[{"host":"dc","port":636}],"transport_security":"tls","user_search_base":"dc=x","system_user_password":"PLAIN-SECRET-1"}}`,
		`{"title":"T","config":{"type":"ldap","system_user_password":{"keep_value":true}}}`,
		`{"title":"T","config":{"type":"ldap","system_user_password":{"delete_value":true}}}`,
		`{"title":"T","config":{"type":"ldap","system_user_password":null}}`,
		`{"title":"T","config":{"type":"ldap","system_user_password":{"set_value":"a","keep_value":true}}}`,
		`{"title":"T","config":{"type":"ldap","system_user_password":{}}}`,
		`{"title":"T","config":{"type":"ldap","user_search_pattern":"(&(uid={0})(|(a=*)(b=\\2a)))"}}`,
		`{"title":"T","config":null}`, `{}`, `[]`, `null`, ``, `{"title":1}`,
	} {
		f.Add([]byte(seed))
	}
	s := &Service{sealer: fuzzSealer}
	f.Fuzz(func(t *testing.T, body []byte) {
		in, err := parseBackend(body)
		if err != nil {
			return
		}
		// Validation must not panic on anything that decodes, and must
		// agree with the directory's own check.
		var v api.ValidationError
		in.Config.ValidateInto(&v)
		if (v.Err() == nil) != (in.Config.Validate() == nil) {
			t.Fatalf("ValidateInto and Validate disagree on %+v", in.Config)
		}
		b, err := s.build("5f1f0f0f0f0f0f0f0f0f0f01", in, "")
		if err != nil {
			t.Fatalf("build: %v", err)
		}
		if b.PasswordSet != (in.Password.Action == SecretSet && in.Password.Value() != "") {
			t.Fatalf("PasswordSet = %v for %v", b.PasswordSet, in.Password)
		}
		out, err := json.Marshal(b)
		if err != nil {
			t.Fatalf("marshal: %v", err)
		}
		var back map[string]any
		if err := json.Unmarshal(out, &back); err != nil {
			t.Fatalf("the answer %s is not JSON: %v", out, err)
		}
		if pw := in.Password.Value(); len(pw) >= 8 && bytes.Contains(out, []byte(pw)) {
			t.Fatalf("the answer %s shows the password %q", out, pw)
		}
		if !slices.Equal(b.DefaultRoles, dedupe(b.DefaultRoles)) {
			t.Fatalf("default roles %v repeat", b.DefaultRoles)
		}
		if b.sealed != "" {
			if plain, err := fuzzSealer.Open(b.sealed); err != nil || plain != in.Password.Value() {
				t.Fatalf("sealed password opens to %q, %v", plain, err)
			}
		}
	})
}

// FuzzEncryptedValue decodes secrets: a malformed one fails with the one
// fixed message, which cannot echo it, and a JSON string is a set_value.
func FuzzEncryptedValue(f *testing.F) {
	for _, seed := range []string{
		`"plain"`, `{"set_value":"x"}`, `{"keep_value":true}`, `{"delete_value":true}`, `null`,
		`{"keep_value":false}`, `{"set_value":"a","delete_value":true}`, `{"is_set":true}`, `{}`, `42`, `"\u00e9\n"`, `{"set_value":null}`,
	} {
		f.Add([]byte(seed))
	}
	f.Fuzz(func(t *testing.T, raw []byte) {
		var e EncryptedValue
		err := e.UnmarshalJSON(raw)
		if err != nil {
			if err != errEncryptedValue {
				t.Fatalf("error %v is not the fixed one", err)
			}
			return
		}
		switch e.String() {
		case "set_value:<redacted>", "keep_value", "delete_value", "absent":
		default:
			t.Fatalf("String() = %q", e.String())
		}
		var s string
		isString := bytes.HasPrefix(bytes.TrimSpace(raw), []byte(`"`))
		if isString && json.Unmarshal(raw, &s) == nil && (e.Action != SecretSet || e.Value() != s) {
			t.Fatalf("%s decoded to %v with value %q", raw, e, e.Value())
		}
		if e.Action != SecretSet && e.Value() != "" {
			t.Fatalf("%v carries a value", e)
		}
	})
}

// FuzzParseTest decodes backend test requests.
func FuzzParseTest(f *testing.F) {
	for _, seed := range []string{
		`{"backend_id":"abc","backend_configuration":` + fuzzBackend + `,"user_login":{"username":"u","password":"p"}}`,
		`{"backend_id":"abc","backend_configuration":{"config":{"type":"ldap","system_user_password":{"keep_value":true}}},"user_login":null}`,
		`{"backend_id":null,"backend_configuration":{"config":{"type":"active-directory"}}}`,
		`{"backend_configuration":{"config":{"type":"x"}}}`, `{"backend_id":""}`, `{}`,
	} {
		f.Add([]byte(seed))
	}
	f.Fuzz(func(t *testing.T, body []byte) {
		req, err := parseTest(body)
		if err != nil {
			return
		}
		if typ := req.Backend.Config.Type; typ != ldap.TypeLDAP && typ != ldap.TypeActiveDirectory {
			t.Fatalf("accepted type %q", typ)
		}
		a := req.Backend.Password.Action
		if req.UsesStoredPassword() != (req.BackendID != "" && (a == SecretKeep || a == SecretAbsent)) {
			t.Fatalf("UsesStoredPassword = %v for id %q and %v", req.UsesStoredPassword(), req.BackendID, req.Backend.Password)
		}
	})
}
