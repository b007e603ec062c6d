package outputs_test

import (
	"net/http"
	"testing"
)

func BenchmarkList(b *testing.B) {
	e := newEnv(b)
	for range 200 {
		e.create(minimal)
	}
	b.ReportAllocs()
	for b.Loop() {
		if rec := e.Admin("GET", "/system/outputs", ""); rec.Code != http.StatusOK {
			b.Fatal(rec.Code)
		}
	}
}

func BenchmarkGet(b *testing.B) {
	e := newEnv(b)
	path := "/system/outputs/" + e.create(minimal).ID
	b.ReportAllocs()
	for b.Loop() {
		if rec := e.Admin("GET", path, ""); rec.Code != http.StatusOK {
			b.Fatal(rec.Code)
		}
	}
}
