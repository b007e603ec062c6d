package ui_test

import (
	"context"
	"fmt"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/loggate/loggate/cmd/loggate/node/nodetest"
	"github.com/loggate/loggate/internal/browsertest"
)

// firefox drives the interface of a node in headless Firefox at 1280×800.
type firefox struct {
	t    *testing.T
	f    *browsertest.Firefox
	root string // http://127.0.0.1:port
}

// step gives one step of the test a minute: generous, for a loaded machine;
// waits inside it end as soon as their condition holds.
const step = time.Minute

// do runs one step; on failure it ends the test with what the page shows and
// wrote to its console.
func (b *firefox) do(name string, fn func(ctx context.Context) error) {
	b.t.Helper()
	ctx, cancel := context.WithTimeout(b.f.Context(), step)
	defer cancel()
	if err := fn(ctx); err != nil {
		var page string
		_ = b.f.Eval(b.f.Context(), `location.href + "\n" + document.body.innerText`, &page)
		b.t.Fatalf("%s: %v; the page shows:\n%s\nconsole:\n%s", name, err, page, strings.Join(b.f.Console(), "\n"))
	}
}

func (b *firefox) until(name, cond string) {
	b.t.Helper()
	b.do(name, func(ctx context.Context) error { return b.f.Until(ctx, cond) })
}

func (b *firefox) open(path, waitFor string) {
	b.t.Helper()
	b.do("open "+path, func(ctx context.Context) error {
		if err := b.f.Navigate(ctx, b.root+path); err != nil {
			return err
		}
		return b.f.Until(ctx, browsertest.Visible(waitFor))
	})
}

func (b *firefox) shot(name string) {
	b.t.Helper()
	b.do("screenshot "+name, func(ctx context.Context) error { return b.f.Screenshot(ctx, "ui-firefox-"+name) })
}

func evalFirefox[T any](b *firefox, expr string) T {
	b.t.Helper()
	var v T
	b.do("evaluate "+expr, func(ctx context.Context) error { return b.f.Eval(ctx, expr, &v) })
	return v
}

// TestInterfaceFirefox: the interface works in Firefox as in Chromium
// (TestInterface): log in through the form, the search page's rows for
// messages sent to the node, a token created on the tokens page that the
// API then lists and accepts; a screenshot of each.
func TestInterfaceFirefox(t *testing.T) {
	browsertest.FirefoxBin(t) // skip before starting a node for nothing
	h := nodetest.Start(t)
	_, addr := h.CreateInput(nodetest.GELFHTTP)
	const n = 5
	for i := range n {
		gelf(t, addr, map[string]any{"host": "fox-1", "short_message": fmt.Sprintf("GET /fox/%d 200", i)})
	}
	gelf(t, addr, map[string]any{"host": "other-1", "short_message": "not searched"})
	h.WaitProcessed(n + 1)
	b := &firefox{t: t, f: browsertest.StartFirefox(t, 1280, 800, 5*time.Minute), root: strings.TrimSuffix(h.URL, "/api")}

	// Not logged in: the login page, then on to the page asked for.
	b.open("/search?q=source%3Afox-1&rangetype=relative&relative=300", "#login-form")
	b.shot("login")
	b.do("log in", func(ctx context.Context) error {
		for _, err := range []error{
			b.f.Type(ctx, "#username", nodetest.RootUser),
			b.f.Type(ctx, "#password", nodetest.RootPassword),
			b.f.Click(ctx, "#login-button"),
		} {
			if err != nil {
				return err
			}
		}
		return b.f.Until(ctx, browsertest.Visible("#signed-in"))
	})
	b.until("search rows", fmt.Sprintf(`document.querySelectorAll('#messages tr.msg').length === %d`, n))
	if got := evalFirefox[string](b, `location.pathname + location.search`); got != "/search?q=source%3Afox-1&rangetype=relative&relative=300" {
		t.Errorf("after login at %s, want the page asked for", got)
	}
	if total := evalFirefox[string](b, `document.getElementById('total').dataset.total`); total != fmt.Sprint(n) {
		t.Errorf("total %s, want %d", total, n)
	}
	rows := evalFirefox[[]string](b, `[...document.querySelectorAll('#messages tr.msg')].map(tr => tr.querySelector('td.c-source').textContent + ' ' + tr.innerText)`)
	for i, row := range rows {
		if !strings.HasPrefix(row, "fox-1 ") || !strings.Contains(row, "GET /fox/") {
			t.Errorf("row %d: %q, want a message of fox-1", i, row)
		}
	}
	b.until("histogram", `Number(document.getElementById('histogram').dataset.buckets) > 0`)
	b.shot("search")

	// A token made on the tokens page, by typing its name and clicking.
	b.open("/system/users/tokens/local:admin", "#token-create")
	const token = `.token[data-token="from-firefox"] .token-value`
	b.do("create a token", func(ctx context.Context) error {
		if err := b.f.Type(ctx, "#token-name", "from-firefox"); err != nil {
			return err
		}
		if err := b.f.Click(ctx, "#token-create-button"); err != nil {
			return err
		}
		return b.f.Until(ctx, browsertest.Visible(token))
	})
	value := evalFirefox[string](b, `document.querySelector('`+token+`').value`)
	listed := h.Do("GET", "/users/local:admin/tokens", nil, nodetest.AsRoot()).Want(t, http.StatusOK)
	if !listed.Get(`tokens.#(name=="from-firefox")`).Exists() {
		t.Errorf("the API does not list the token made in Firefox:\n%s", listed.Body)
	}
	h.Do("GET", "/cluster", nil, nodetest.Token(value)).Want(t, http.StatusOK)
	b.shot("tokens")

	// Nothing came from anywhere but loggate, and nothing went wrong.
	if other := evalFirefox[[]string](b, `performance.getEntriesByType('resource').map(e => e.name).filter(n => !n.startsWith(location.origin))`); len(other) > 0 {
		t.Errorf("the interface loaded from elsewhere: %v", other)
	}
	for _, e := range b.f.Console() {
		if strings.HasPrefix(e, "error: ") {
			t.Errorf("the page logged an error: %s", e)
		}
	}
}
