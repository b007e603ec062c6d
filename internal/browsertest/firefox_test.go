package browsertest_test

import (
	"bytes"
	"context"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/loggate/loggate/internal/browsertest"
)

// page is a form whose button writes what was typed, and how the click
// came, into #out.
const page = `<!doctype html><title>t</title>
<div style="height: 3000px">tall, so that the form needs scrolling to</div>
<form id="f"><input id="name"><button id="go" type="button">Go</button></form>
<p id="out"></p>
<script>
document.getElementById('go').addEventListener('click', e =>
	document.getElementById('out').textContent = document.getElementById('name').value + ' ' + e.isTrusted);
document.getElementById('f').addEventListener('submit', e => {
	e.preventDefault(); document.getElementById('out').textContent = 'submitted ' + document.getElementById('name').value; });
console.error('from the page');
</script>`

// TestFirefox: the BiDi client's commands against a real Firefox.
func TestFirefox(t *testing.T) {
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "text/html")
		_, _ = w.Write([]byte(page))
	}))
	t.Cleanup(srv.Close)
	f := browsertest.StartFirefox(t, 800, 600, 3*time.Minute)
	ctx, cancel := context.WithTimeout(f.Context(), time.Minute)
	defer cancel()
	if err := f.Navigate(ctx, srv.URL); err != nil {
		t.Fatal(err)
	}

	// Typing and a real click, below the fold.
	if err := f.Type(ctx, "#name", "fox é"); err != nil {
		t.Fatal(err)
	}
	if err := f.Click(ctx, "#go"); err != nil {
		t.Fatal(err)
	}
	if err := f.Until(ctx, `document.getElementById('out').textContent === 'fox é true'`); err != nil {
		t.Fatal(err)
	}
	// Enter submits.
	if err := f.Type(ctx, "#name", "!\n"); err != nil {
		t.Fatal(err)
	}
	if err := f.Until(ctx, `document.getElementById('out').textContent === 'submitted fox é!'`); err != nil {
		t.Fatal(err)
	}

	// Values cross as JSON, both ways; undefined leaves out alone.
	var sum struct {
		N     int      `json:"n"`
		Words []string `json:"words"`
	}
	if err := f.Call(ctx, `(a, b) => ({n: a + b.length, words: b})`, &sum, 40, []string{"x", `"y"`}); err != nil {
		t.Fatal(err)
	}
	if sum.N != 42 || strings.Join(sum.Words, ",") != `x,"y"` {
		t.Errorf("call: %+v", sum)
	}
	got := "kept"
	if err := f.Eval(ctx, `undefined`, &got); err != nil || got != "kept" {
		t.Errorf("undefined: %q, %v", got, err)
	}
	if err := f.Eval(ctx, `nosuchthing.x`, nil); err == nil || !strings.Contains(err.Error(), "nosuchthing") {
		t.Errorf("an exception: %v, want the page's error", err)
	}
	// A condition that never holds ends with its context, saying which.
	short, cancelShort := context.WithTimeout(ctx, 200*time.Millisecond)
	defer cancelShort()
	if err := f.Until(short, `false`); err == nil || !strings.Contains(err.Error(), "waiting for false") {
		t.Errorf("until: %v", err)
	}
	if err := f.Click(short, "#absent"); err == nil {
		t.Error("clicked an element that is not there")
	}

	if c := strings.Join(f.Console(), "\n"); !strings.Contains(c, "error: from the page") {
		t.Errorf("console: %q", c)
	}
	if err := f.Screenshot(ctx, "browsertest-firefox"); err != nil {
		t.Fatal(err)
	}
	png, err := os.ReadFile(filepath.Join(browsertest.Artifacts(t), "browsertest-firefox.png"))
	if err != nil || !bytes.HasPrefix(png, []byte("\x89PNG")) {
		t.Errorf("screenshot: %d bytes, %v", len(png), err)
	}
}
