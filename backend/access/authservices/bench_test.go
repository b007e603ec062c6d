package authservices_test

import (
	"fmt"
	"net/http"
	"testing"
)

// BenchmarkActive is the authenticator's question on every password login
// when a backend is active: two store reads and a cached directory.
func BenchmarkActive(b *testing.B) {
	e := newEnv(b)
	id := e.create(b, backendJSON("A", `"secret"`)).ID
	e.activate(b, id)
	ctx := b.Context()
	b.ReportAllocs()
	for b.Loop() {
		if a, err := e.svc.Active(ctx); err != nil || a == nil {
			b.Fatal(a, err)
		}
	}
	// The first call built the cache; no other decrypted.
	if n := e.sealer.opens.Load(); n != 1 {
		b.Errorf("%d decryptions, want 1", n)
	}
}

// BenchmarkHeaderAuth is asked on every request without credentials.
func BenchmarkHeaderAuth(b *testing.B) {
	e := newEnv(b)
	ctx := b.Context()
	b.ReportAllocs()
	for b.Loop() {
		if _, h, err := e.svc.HeaderAuth(ctx); err != nil || h == "" {
			b.Fatal(h, err)
		}
	}
}

// BenchmarkList lists a page of 100 backends through the router.
func BenchmarkList(b *testing.B) {
	e := newEnv(b)
	for i := range 100 {
		e.create(b, backendJSON(fmt.Sprintf("backend %03d", i), `"pw"`))
	}
	c := call{method: "GET", path: backendsPath + "?per_page=20&query=backend", perms: admin}
	b.ReportAllocs()
	for b.Loop() {
		if w := e.do(b, c); w.Code != http.StatusOK {
			b.Fatal(w.Code)
		}
	}
}
