package grok_test

import (
	"fmt"
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/loggate/loggate/auth"
	"github.com/loggate/loggate/backend/logs/grok"
	"github.com/loggate/loggate/router/routertest"
)

const apacheLine = `127.0.0.1 - frank [10/Oct/2000:13:55:36 -0700] "GET /apache_pb.gif HTTP/1.0" 200 2326 "http://www.example.com/start.html" "Mozilla/4.08 [en] (Win98; I ;Nav)"`

// benchTest posts test requests whose pattern is name(i), against the
// default patterns.
func benchTest(b *testing.B, name func(i int) string) {
	e := newEnv(b)
	principal := routertest.Principal(b)
	b.ReportAllocs()
	b.ResetTimer()
	for i := 0; b.Loop(); i++ {
		body := fmt.Sprintf(`{"grok_pattern":{"name":%q,"pattern":"%%{COMBINEDAPACHELOG}"},"sampleData":%q}`, name(i), apacheLine)
		r := httptest.NewRequest("POST", "/system/grok/test", strings.NewReader(body))
		r.Header.Set("Content-Type", "application/json")
		r = r.WithContext(auth.WithPrincipal(r.Context(), principal))
		w := httptest.NewRecorder()
		e.h.ServeHTTP(w, r)
		if w.Code != 200 || !strings.Contains(w.Body.String(), `"user_agent.original"`) {
			b.Fatalf("%d %s", w.Code, w.Body)
		}
	}
}

// The usual case: the same pattern tried on sample after sample.
func BenchmarkTestEndpoint(b *testing.B) {
	benchTest(b, func(int) string { return "APACHE" })
}

// Every request a new pattern: resolving against the stored patterns and
// compiling the expansion.
func BenchmarkTestEndpointUncached(b *testing.B) {
	benchTest(b, func(i int) string { return fmt.Sprintf("APACHE_%d", i) })
}

func BenchmarkCompileUncached(b *testing.B) {
	e := newEnv(b)
	b.ReportAllocs()
	for i := 0; b.Loop(); i++ {
		if _, err := e.svc.Compile(fmt.Sprintf("%%{COMBINEDAPACHELOG} %d", i)); err != nil {
			b.Fatal(err)
		}
	}
}

func BenchmarkMatch(b *testing.B) {
	e := newEnv(b)
	m, err := e.svc.Compile("%{COMBINEDAPACHELOG}")
	if err != nil {
		b.Fatal(err)
	}
	b.ReportAllocs()
	for b.Loop() {
		if len(m.Match(apacheLine)) == 0 {
			b.Fatal("no match")
		}
	}
}

// A line the pattern cannot match: one without the text every match
// contains is not searched.
func BenchmarkMatchOther(b *testing.B) {
	e := newEnv(b)
	m, err := e.svc.Compile("%{COMBINEDAPACHELOG}")
	if err != nil {
		b.Fatal(err)
	}
	const line = `Oct 11 22:14:15 web-1 sshd[4721]: Accepted publickey for deploy from 10.0.0.9 port 52144 ssh2`
	b.ReportAllocs()
	for b.Loop() {
		if len(m.Match(line)) != 0 {
			b.Fatal("matched")
		}
	}
}

func BenchmarkPaginated(b *testing.B) {
	e := newEnv(b)
	principal := routertest.Principal(b, "inputs:read")
	b.ReportAllocs()
	for b.Loop() {
		r := httptest.NewRequest("GET", "/system/grok/paginated?query=pattern:ip&per_page=20", nil)
		r = r.WithContext(auth.WithPrincipal(r.Context(), principal))
		w := httptest.NewRecorder()
		e.h.ServeHTTP(w, r)
		if w.Code != 200 {
			b.Fatalf("%d %s", w.Code, w.Body)
		}
	}
}

func BenchmarkParsePatternsFile(b *testing.B) {
	var file strings.Builder
	for _, p := range grok.DefaultPatterns() {
		file.WriteString("# " + p.Name + "\n" + p.Name + " " + p.Pattern + "\n\n")
	}
	in := []byte(file.String())
	b.SetBytes(int64(len(in)))
	b.ReportAllocs()
	for b.Loop() {
		if len(grok.ParsePatternsFile(in)) == 0 {
			b.Fatal("nothing parsed")
		}
	}
}
