package inputs_test

import (
	"net/http"
	"testing"

	"github.com/loggate/loggate/router/routertest"
)

func benchEnv(b *testing.B) *env {
	b.Helper()
	e := newEnv(b)
	for range 100 {
		e.create(udpBody)
		e.create(`{"title":"tcp","type":"` + tcp + `","node":"n1","configuration":{"bind_address":"0.0.0.0","port":1,"tls_key_password":"pw"}}`)
	}
	return e
}

// BenchmarkList lists 200 inputs for a caller whose permissions are checked
// per input.
func BenchmarkList(b *testing.B) {
	e := benchEnv(b)
	p := routertest.Principal(b, "inputs:read")
	b.ReportAllocs()
	for b.Loop() {
		if rec := e.Do(p, "GET", "/system/inputs", ""); rec.Code != http.StatusOK {
			b.Fatal(rec.Code)
		}
	}
}

func BenchmarkStates(b *testing.B) {
	e := benchEnv(b)
	p := routertest.Principal(b, "inputs:read")
	b.ReportAllocs()
	for b.Loop() {
		if rec := e.Do(p, "GET", "/system/inputstates", ""); rec.Code != http.StatusOK {
			b.Fatal(rec.Code)
		}
	}
}
