package ui_test

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"net"
	"net/http"
	"net/url"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/chromedp/chromedp"

	"github.com/loggate/loggate/cmd/loggate/config"
	"github.com/loggate/loggate/cmd/loggate/node/nodetest"
	"github.com/loggate/loggate/internal/browsertest"
	"github.com/loggate/loggate/internal/servicetest"
	"github.com/loggate/loggate/web/ui"
)

// browser drives the interface of a node in headless Chromium at 1280×800.
type browser struct {
	t    *testing.T
	ctx  context.Context
	h    *nodetest.Harness
	root string // http://127.0.0.1:port

	mu      sync.Mutex
	console []string // what the page wrote to its console, exceptions included
}

func newBrowser(t *testing.T, h *nodetest.Harness) *browser {
	b := &browser{t: t, ctx: browsertest.Start(t, 1280, 800, 4*time.Minute), h: h, root: strings.TrimSuffix(h.URL, "/api")}
	messages := chromedp.Console(b.ctx)
	go func() {
		for m, err := range messages {
			if err != nil {
				return
			}
			b.mu.Lock()
			b.console = append(b.console, string(m.Type)+": "+m.Text)
			b.mu.Unlock()
		}
	}()
	return b
}

// failed ends the test with what the page shows and wrote to its console.
func (b *browser) failed(name string, err error) {
	b.t.Helper()
	page, _ := chromedp.Run(b.ctx, chromedp.Evaluate[string](`location.href + "\n" + document.body.innerText`))
	b.mu.Lock()
	console := strings.Join(b.console, "\n")
	b.mu.Unlock()
	b.t.Fatalf("%s: %v; the page shows:\n%s\nconsole:\n%s", name, err, page, console)
}

// do runs actions within 20 s; on failure it says what the page shows.
func (b *browser) do(name string, actions ...chromedp.Action[chromedp.Void]) {
	b.t.Helper()
	ctx, cancel := context.WithTimeout(b.ctx, 20*time.Second)
	defer cancel()
	if err := chromedp.Do(ctx, actions...); err != nil {
		b.failed(name, err)
	}
}

// until waits for a JavaScript condition to hold.
func (b *browser) until(name, cond string) {
	b.t.Helper()
	ctx, cancel := context.WithTimeout(b.ctx, 20*time.Second)
	defer cancel()
	if _, err := chromedp.Run(ctx, chromedp.Poll[bool](cond, chromedp.WithPollingInterval(20*time.Millisecond))); err != nil {
		b.failed(name, err)
	}
}

func eval[T any](b *browser, expr string) T {
	b.t.Helper()
	v, err := chromedp.Run(b.ctx, chromedp.Evaluate[T](expr))
	if err != nil {
		b.t.Fatalf("evaluate %s: %v", expr, err)
	}
	return v
}

func (b *browser) open(path, waitFor string) {
	b.t.Helper()
	b.do("open "+path, chromedp.Navigate(b.root+path), chromedp.WaitVisible(chromedp.CSS(waitFor)))
}

func (b *browser) shot(name string) { browsertest.Screenshot(b.t, b.ctx, "ui-"+name) }

// login logs in as root from the login page.
func (b *browser) login() {
	b.t.Helper()
	b.do("log in",
		chromedp.WaitVisible(chromedp.ID("login-form")),
		chromedp.SendKeys(chromedp.ID("username"), nodetest.RootUser),
		chromedp.SendKeys(chromedp.ID("password"), nodetest.RootPassword),
		chromedp.Click(chromedp.ID("login-button")),
		chromedp.WaitVisible(chromedp.ID("signed-in")))
}

// gelf sends one message to a GELF HTTP input.
func gelf(t *testing.T, addr net.Addr, fields map[string]any) {
	t.Helper()
	m := map[string]any{"version": "1.1"}
	for k, v := range fields {
		m[k] = v
	}
	body, _ := json.Marshal(m)
	res, err := http.Post("http://"+addr.String()+"/gelf", "application/json", bytes.NewReader(body))
	if err != nil {
		t.Fatal(err)
	}
	_ = res.Body.Close()
	if res.StatusCode != http.StatusAccepted {
		t.Fatalf("GELF HTTP answered %d", res.StatusCode)
	}
}

// TestInterface drives the interface against a real node: log in, search by
// URL and by typing, the detail, paging, a parse error, live tail, tokens,
// logging, streams, a 401; a screenshot of every page; and the figures.
func TestInterface(t *testing.T) {
	h := nodetest.Start(t, nodetest.WithConfig(func(c *config.Config) {
		c.AccessLog = filepath.Join(t.TempDir(), "access.log")
		c.RootTimezone = "Asia/Kolkata" // +05:30: times must be shown in it
	}))
	_, addr := h.CreateInput(nodetest.GELFHTTP)
	// An old client, for the compatibility page.
	h.Do("GET", "/streams", nil, nodetest.AsRoot(), nodetest.Header("X-API-Version", "2.4"), nodetest.Header("User-Agent", "old-dashboard/1")).Want(t, http.StatusOK)
	const n = 200
	for i := range n {
		host := "web-1"
		if i%4 == 0 {
			host = "db-1"
		}
		gelf(t, addr, map[string]any{"host": host, "short_message": fmt.Sprintf("GET /item/%d 200", i), "_took_ms": i})
	}
	h.WaitProcessed(n)
	b := newBrowser(t, h)

	// Not logged in: the login page, then on to the page asked for.
	b.open("/search?q=source%3Aweb-1&rangetype=relative&relative=300", "#login-form")
	usable := eval[float64](b, `performance.getEntriesByName('login:usable')[0].startTime`)
	t.Logf("FIGURE login page usable %.0f ms after navigation start (first visit, nothing cached; %s)", usable,
		eval[string](b, `(() => { const n = performance.getEntriesByType('navigation')[0];
			const files = performance.getEntriesByType('resource').filter(r => r.name.includes('/ui/'));
			return 'page answered at ' + n.responseEnd.toFixed(0) + ' ms, ' + files.length + ' files loaded by ' +
				Math.max(...files.map(r => r.responseEnd)).toFixed(0) + ' ms'; })()`))
	within(t, "login page usable", usable, 1000)
	b.shot("login")
	b.login()
	b.until("search by URL", `document.querySelectorAll('#messages tr.msg').length === 150`)
	if got := eval[string](b, `location.pathname + location.search`); got != "/search?q=source%3Aweb-1&rangetype=relative&relative=300" {
		t.Errorf("after login at %s, want the page asked for", got)
	}
	if bad := eval[int](b, `[...document.querySelectorAll('#messages td.c-source')].filter(td => td.textContent !== 'web-1').length`); bad != 0 {
		t.Errorf("%d rows are not from web-1", bad)
	}
	if total := eval[string](b, `document.getElementById('total').dataset.total`); total != "150" {
		t.Errorf("total %s, want 150", total)
	}
	// In the user's time zone.
	first := h.Do("GET", "/search/universal/relative?query=source:web-1&range=300&limit=1", nil, nodetest.AsRoot()).Get("messages.0.message.timestamp").String()
	at, err := time.Parse(time.RFC3339, first)
	if err != nil {
		t.Fatal(err)
	}
	kolkata, _ := time.LoadLocation("Asia/Kolkata")
	if shown, want := eval[string](b, `document.querySelector('#messages td.c-timestamp').textContent`), at.In(kolkata).Format("2006-01-02 15:04:05.000"); shown != want {
		t.Errorf("the first message's time is shown as %s, want %s (Asia/Kolkata)", shown, want)
	}
	b.until("histogram", `Number(document.getElementById('histogram').dataset.buckets) > 0`)
	// The render time of 150 rows, over several searches: the layout is
	// done (search:render) and the next frame painted (search:paint).
	var render, paint []float64
	for i := range 7 {
		b.open(fmt.Sprintf("/search?q=source%%3Aweb-1&rangetype=relative&relative=%d", 300+i), "#messages")
		b.until("150 rows", `document.querySelectorAll('#messages tr.msg').length === 150 && performance.getEntriesByName('search:paint').length > 0`)
		render = append(render, eval[float64](b, `performance.getEntriesByName('search:render').at(-1).duration`))
		paint = append(paint, eval[float64](b, `performance.getEntriesByName('search:paint').at(-1).duration`))
	}
	t.Logf("FIGURE search page: 150 rows rendered %.1f ms after the API's answer, painted %.1f ms (medians of %d; renders %v)", median(render), median(paint), len(render), render)
	within(t, "150 rows rendered", median(render), 200)
	b.shot("search")

	// Search by typing.
	b.do("type a query",
		chromedp.Evaluate[chromedp.Void](`void (document.getElementById('query').value = '')`),
		chromedp.SendKeys(chromedp.ID("query"), "source:db-1\r"))
	b.until("search by typing", `location.search.includes('q=source%3Adb-1') && document.getElementById('total').dataset.total === '50'`)

	// All of them: two pages.
	b.open("/search?q=*&rangetype=relative&relative=300", "#messages")
	b.until("all messages", `document.getElementById('total').dataset.total === '200'`)
	b.do("next page", chromedp.Click(chromedp.CSS(".pager .next")))
	b.until("page 2", `location.search.includes('page=2') && document.querySelectorAll('#messages tr.msg').length === 50`)
	b.do("open a message", chromedp.Click(chromedp.CSS("#messages tr.msg")), chromedp.WaitVisible(chromedp.ID("message-detail")))
	if detail := eval[string](b, `document.getElementById('message-detail').innerText`); !strings.Contains(detail, "took_ms") || !strings.Contains(detail, "gl2_message_id") {
		t.Errorf("the detail lacks fields:\n%s", detail)
	}
	b.shot("search-detail")

	// A query that does not parse: the message, and a caret at its column.
	b.do("a bad query",
		chromedp.Evaluate[chromedp.Void](`void (document.getElementById('query').value = '')`),
		chromedp.SendKeys(chromedp.ID("query"), "source:(web\r"),
		chromedp.WaitVisible(chromedp.CSS("#query-error pre.caret")))
	b.shot("search-error")

	// Live tail shows messages as they are sent.
	b.open("/search?q=source%3Atail-1&rangetype=relative&relative=300", "#search-form")
	b.do("tail", chromedp.Click(chromedp.ID("tail-toggle")), chromedp.WaitVisible(chromedp.ID("tail")))
	for i := range 3 {
		gelf(t, addr, map[string]any{"host": "tail-1", "short_message": fmt.Sprintf("tailed %d", i)})
		b.until(fmt.Sprintf("tailed %d", i), fmt.Sprintf(`document.getElementById('tail').innerText.includes('tailed %d')`, i))
	}
	gelf(t, addr, map[string]any{"host": "web-1", "short_message": "not tailed"})
	gelf(t, addr, map[string]any{"host": "tail-1", "short_message": "tailed last"})
	b.until("tailed last", `document.getElementById('tail').innerText.includes('tailed last')`)
	if eval[bool](b, `document.getElementById('tail').innerText.includes('not tailed')`) {
		t.Error("the tail shows a message its query does not match")
	}
	b.shot("search-tail")

	tokens(t, b)
	logging(t, b)
	streams(t, b, addr)
	inputs(t, b)
	users(t, b)

	// Every other page loads, with no error shown.
	for _, p := range []struct{ path, wait string }{
		{"/system/overview", "#overview"},
		{"/system/nodes", "table.grid"},
		{"/system/inputs", "#inputs"},
		{"/system/outputs", "form"},
		{"/system/indices", "table.grid"},
		{"/system/users", "table.grid"},
		{"/system/roles", "table.grid"},
		{"/system/authentication/services", "form"},
		{"/system/grokpatterns", "table.grid"},
		{"/system/compatibility", "#compat-read"},
	} {
		b.open(p.path, p.wait)
		if errs := eval[string](b, `[...document.querySelectorAll('.error')].map(e => e.innerText).join('; ')`); errs != "" {
			t.Errorf("%s shows errors: %s", p.path, errs)
		}
		b.shot(strings.ReplaceAll(strings.TrimPrefix(p.path, "/"), "/", "-"))
	}
	if page := eval[string](b, `document.querySelector('main').innerText`); !strings.Contains(page, "old-dashboard/1") || !strings.Contains(page, "2.4 (header)") {
		t.Errorf("the compatibility page does not show the 2.4 client:\n%s", page)
	}

	// Nothing came from anywhere but loggate.
	if other := eval[[]string](b, `performance.getEntriesByType('resource').map(e => e.name).filter(n => !n.startsWith(location.origin))`); len(other) > 0 {
		t.Errorf("the interface loaded from elsewhere: %v", other)
	}

	// A session that ends: the next call's 401 goes back to login, saying so.
	sid := eval[string](b, `JSON.parse(sessionStorage.getItem('loggate.session')).id`)
	h.Do("DELETE", "/system/sessions/"+sid, nil, nodetest.Session(sid)).Want(t, http.StatusNoContent)
	b.do("click after the session ended", chromedp.Click(chromedp.CSS(`nav.top a[href="/streams"]`)), chromedp.WaitVisible(chromedp.ID("login-notice")))
	if msg := eval[string](b, `document.getElementById('login-notice').innerText`); !strings.Contains(msg, "expired") {
		t.Errorf("login notice %q, want it to say the session expired", msg)
	}
	b.login()
	b.until("back where it was", `location.pathname === '/streams'`)

	// Logged out, the login page again, its files now cached.
	b.do("log out", chromedp.Click(chromedp.ID("logout")), chromedp.WaitVisible(chromedp.ID("login-form")))
	b.open("/login", "#login-form")
	b.until("usable", `performance.getEntriesByName('login:usable').length > 0`)
	t.Logf("FIGURE login page usable %.0f ms after navigation start (files cached)", eval[float64](b, `performance.getEntriesByName('login:usable')[0].startTime`))
}

// tokens: create a token in the interface, reveal and copy it, use it, delete
// it in the interface and see the API refuse it.
func tokens(t *testing.T, b *browser) {
	b.open("/system/users/tokens/local:admin", "#token-create")
	if sel := eval[string](b, `document.getElementById('token-user').selectedOptions[0]?.textContent + ' | ' + document.querySelector('h1').textContent`); sel != "admin | Tokens of admin" {
		t.Errorf("the token page's user: %q", sel)
	}
	b.do("create a token",
		chromedp.SendKeys(chromedp.ID("token-name"), "from-ui"),
		chromedp.Click(chromedp.ID("token-create-button")),
		chromedp.WaitVisible(chromedp.CSS(`.token[data-token="from-ui"] .token-value`)))
	value := eval[string](b, `document.querySelector('.token[data-token="from-ui"] .token-value').value`)
	b.h.Do("GET", "/cluster", nil, nodetest.Token(value)).Want(t, http.StatusOK)
	b.do("hide and reveal",
		chromedp.Click(chromedp.CSS(`.token[data-token="from-ui"] .token-reveal`)),
		chromedp.WaitNotPresent(chromedp.CSS(`.token[data-token="from-ui"] .token-value`)),
		chromedp.Click(chromedp.CSS(`.token[data-token="from-ui"] .token-reveal`)),
		chromedp.WaitVisible(chromedp.CSS(`.token[data-token="from-ui"] .token-value`)))
	b.do("copy", chromedp.Click(chromedp.CSS(`.token[data-token="from-ui"] .token-copy`)))
	b.until("copied", `/Copied|Ctrl\+C/.test(document.querySelector('.token[data-token="from-ui"]').innerText)`)
	b.shot("tokens")
	b.do("delete the token", chromedp.Click(chromedp.CSS(`.token-delete[data-token="from-ui"]`)),
		chromedp.WaitNotPresent(chromedp.CSS(`.token[data-token="from-ui"]`)))
	b.h.Do("GET", "/cluster", nil, nodetest.Token(value)).Want(t, http.StatusUnauthorized)

	// Another user's tokens are theirs to manage.
	id := b.h.CreateUser("tokenowner", "tokenownerpass")
	b.open("/system/users/tokens/"+url.PathEscape(id), "#token-not-owner")
}

// logging: a subsystem's level and a single logger's, as the API then lists them.
func logging(t *testing.T, b *browser) {
	b.open("/system/logging", "#subsystems")
	sub := eval[string](b, `document.querySelector('#subsystems tr[data-subsystem]').dataset.subsystem`)
	b.do("set a subsystem's level", chromedp.Evaluate[chromedp.Void](fmt.Sprintf(`void (() => {
		const s = document.querySelector('tr[data-subsystem=%q] select');
		s.value = 'trace'; s.dispatchEvent(new Event('change', {bubbles: true})); })()`, sub)))
	b.until("level set", `document.querySelector('.ok') && document.querySelector('.ok').innerText.includes('trace')`)
	if lvl := b.h.Do("GET", "/system/loggers/subsystems", nil, nodetest.AsRoot()).Get("subsystems." + sub + ".level").String(); lvl != "trace" {
		t.Errorf("subsystem %s at %q after setting trace in the interface", sub, lvl)
	}
	loggers := b.h.Do("GET", "/system/loggers", nil, nodetest.AsRoot()).Want(t, http.StatusOK)
	if !strings.Contains(string(loggers.Body), `"trace"`) {
		t.Errorf("no logger at trace in /system/loggers after setting subsystem %s:\n%s", sub, loggers.Body)
	}
	b.do("set one logger's level",
		chromedp.SendKeys(chromedp.ID("logger-name"), "org.graylog2.inputs"),
		chromedp.SetValue(chromedp.ID("logger-level"), "warn"),
		chromedp.Evaluate[chromedp.Void](`void document.getElementById('logger-level').dispatchEvent(new Event('input', {bubbles: true}))`),
		chromedp.Click(chromedp.CSS("#logger-form button")))
	b.until("logger set", `document.querySelector('.ok') && document.querySelector('.ok').innerText.includes('org.graylog2.inputs')`)
	if lvl := b.h.Do("GET", "/system/loggers", nil, nodetest.AsRoot()).Get(`loggers.org\.graylog2\.inputs.level`).String(); lvl != "warn" {
		t.Errorf("logger org.graylog2.inputs at %q, want warn", lvl)
	}
	b.shot("system-logging")
}

// streams: create a stream with a rule, start it, and see routed messages.
func streams(t *testing.T, b *browser, addr net.Addr) {
	b.h.Do("POST", "/system/outputs", map[string]any{"title": "forward", "type": "org.graylog2.outputs.GelfOutput", "streams": []string{},
		"configuration": map[string]any{"hostname": "127.0.0.1", "port": 1, "protocol": "UDP"}}, nodetest.AsRoot()).Want(t, http.StatusCreated)
	b.open("/streams", "#stream-create")
	if n := eval[int](b, `document.querySelectorAll('[data-stream="All messages"] button').length`); n != 0 {
		t.Errorf("the built-in stream All messages offers %d buttons, want none", n)
	}
	b.do("create a stream",
		chromedp.SendKeys(chromedp.ID("stream-title"), "Web nine"),
		chromedp.Click(chromedp.ID("stream-create-button")),
		chromedp.WaitVisible(chromedp.CSS(`[data-stream="Web nine"] .rule-form`)))
	sel := `[data-stream="Web nine"] `
	b.do("add a rule",
		chromedp.SendKeys(chromedp.CSS(sel+".rule-field"), "source"),
		chromedp.SendKeys(chromedp.CSS(sel+".rule-value"), "web-9"),
		chromedp.Click(chromedp.CSS(sel+".rule-add")),
		chromedp.WaitVisible(chromedp.CSS(sel+"[data-rule]")))
	b.do("test a message",
		chromedp.Evaluate[chromedp.Void](`void (() => { const ta = document.querySelector('[data-stream="Web nine"] .test-message');
			ta.value = '{"source":"web-9","message":"x"}'; ta.dispatchEvent(new Event('input', {bubbles: true})); })()`),
		chromedp.Click(chromedp.CSS(sel+".test-message + button")),
		chromedp.WaitVisible(chromedp.CSS(sel+".test-result.on")))
	b.do("attach the output", chromedp.Evaluate[chromedp.Void](`void [...document.querySelectorAll('[data-stream="Web nine"] .editor li')]
		.find(li => li.textContent.includes('forward')).querySelector('button').click()`))
	b.until("attached", `[...document.querySelectorAll('[data-stream="Web nine"] .editor li')].some(li => li.textContent.includes('forward') && li.textContent.includes('Detach'))`)
	b.do("start the stream", chromedp.Click(chromedp.CSS(sel+".stream-toggle")))
	b.until("running", `document.querySelector('[data-stream="Web nine"] .badge.on') !== null`)
	b.shot("streams")
	var id string
	for _, s := range b.h.Do("GET", "/streams", nil, nodetest.AsRoot()).Get("streams").Array() {
		if s.Get("title").String() == "Web nine" {
			id = s.Get("id").String()
		}
	}
	if outs := b.h.Do("GET", "/streams/"+id+"/outputs", nil, nodetest.AsRoot()).Get("outputs.#.title").String(); outs != `["forward"]` {
		t.Errorf("outputs of the stream: %s, want the one attached in the interface", outs)
	}
	before := b.h.Node.Messages.Journal.End()
	gelf(t, addr, map[string]any{"host": "web-9", "short_message": "routed to web nine"})
	gelf(t, addr, map[string]any{"host": "web-8", "short_message": "not routed"})
	b.h.WaitProcessed(before + 2)
	b.open("/streams/"+id+"/search?q=*&rangetype=relative&relative=300", "#messages")
	b.until("routed message", `document.getElementById('total').dataset.total === '1' && document.getElementById('messages').innerText.includes('routed to web nine')`)
	b.shot("stream-search")
}

// within checks a figure against its bound. Other processes share the
// machine, so the test fails only past three times the bound, with the
// figure reported either way; LOGGATE_UI_FIGURES=1 (make ui-figures) holds it
// to the bound itself.
func within(t *testing.T, what string, got, bound float64) {
	t.Helper()
	limit := 3 * bound
	if os.Getenv("LOGGATE_UI_FIGURES") == "1" {
		limit = bound
	}
	if got > limit {
		t.Errorf("%s: %.0f ms, want within %.0f ms", what, got, limit)
	}
}

func median(xs []float64) float64 {
	s := slices.Clone(xs)
	slices.Sort(s)
	return s[len(s)/2]
}

// inputs: launch a GELF TCP input, see it run; one more on its port fails,
// saying why; stop and start the first.
func inputs(t *testing.T, b *browser) {
	port, err := servicetest.FreePort()
	if err != nil {
		t.Fatal(err)
	}
	b.open("/system/inputs", "#input-launch")
	launch := func(title string) {
		b.do("launch "+title, chromedp.Evaluate[chromedp.Void](fmt.Sprintf(`void (() => {
			const set = (id, v) => { const e = document.getElementById(id); e.value = v; e.dispatchEvent(new Event('input', {bubbles: true})); };
			set('input-type', %q); set('input-title', %q); set('input-bind', '127.0.0.1'); set('input-port', '%d'); })()`, nodetest.GELFTCP, title, port)),
			chromedp.Click(chromedp.CSS("#input-launch button")))
	}
	launch("ui-tcp")
	b.until("running", `document.querySelector('#inputs tr[data-input="ui-tcp"] .badge.on') !== null`)
	launch("ui-tcp-clash")
	b.until("failed", `/FAILED/.test(document.querySelector('#inputs tr[data-input="ui-tcp-clash"]')?.innerText || '') && document.querySelector('#inputs tr[data-input="ui-tcp-clash"] .error') !== null`)
	b.shot("system-inputs-failed")
	row := `#inputs tr[data-input="ui-tcp"] `
	b.do("stop", chromedp.Click(chromedp.CSS(row+".actions button")))
	b.until("stopped", `document.querySelector('#inputs tr[data-input="ui-tcp"] .badge.off') !== null`)
	b.do("start", chromedp.Click(chromedp.CSS(row+".actions button")))
	b.until("running again", `document.querySelector('#inputs tr[data-input="ui-tcp"] .badge.on') !== null`)
	b.do("delete the failed one", chromedp.Click(chromedp.CSS(`#inputs tr[data-input="ui-tcp-clash"] .danger`)),
		chromedp.WaitNotPresent(chromedp.CSS(`#inputs tr[data-input="ui-tcp-clash"]`)))
}

// fill sets form fields, each by its CSS selector, as typing would.
func (b *browser) fill(name string, fields map[string]string) {
	b.t.Helper()
	js, _ := json.Marshal(fields)
	b.do(name, chromedp.Evaluate[chromedp.Void](`void Object.entries(`+string(js)+`).forEach(([sel, v]) => {
		const e = document.querySelector(sel); e.value = v; e.dispatchEvent(new Event('input', {bubbles: true})); })`))
}

// users: create a user, give them a time zone, disable them.
func users(t *testing.T, b *browser) {
	b.open("/system/users", "#user-create")
	f := `#user-create input[aria-label="%s"]`
	b.fill("a new user", map[string]string{fmt.Sprintf(f, "Username"): "carol", fmt.Sprintf(f, "Full name"): "Carol C",
		fmt.Sprintf(f, "E-mail"): "carol@example.org", fmt.Sprintf(f, "Password"): "carolpass1", fmt.Sprintf(f, "Roles"): "Reader"})
	b.do("create", chromedp.Click(chromedp.CSS("#user-create button")))
	b.until("listed", `[...document.querySelectorAll('table.grid td')].some(td => td.textContent === 'carol')`)
	row := `[...document.querySelectorAll('table.grid tr')].find(tr => tr.firstChild.textContent === 'carol')`
	b.do("edit", chromedp.Evaluate[chromedp.Void](`void [...`+row+`.querySelectorAll('button')].find(x => x.textContent === 'Edit').click()`),
		chromedp.WaitVisible(chromedp.CSS(`form.editor input[aria-label="Time zone"]`)))
	b.fill("a time zone", map[string]string{`form.editor input[aria-label="Time zone"]`: "Europe/Berlin"})
	b.do("save", chromedp.Click(chromedp.CSS("form.editor button.primary")), chromedp.WaitNotPresent(chromedp.CSS("form.editor")))
	b.do("disable", chromedp.Evaluate[chromedp.Void](`void [...`+row+`.querySelectorAll('button')].find(x => x.textContent === 'Disable').click()`))
	b.until("disabled", row+`.innerText.includes('disabled')`)
	u := b.h.Do("GET", "/users/carol", nil, nodetest.AsRoot()).Want(t, http.StatusOK)
	if u.Get("full_name").String() != "Carol C" || u.Get("timezone").String() != "Europe/Berlin" || u.Get("account_status").String() != "disabled" ||
		u.Get("roles.0").String() != "Reader" {
		t.Errorf("the user made in the interface: %s", u.Body)
	}
	b.shot("system-users")
}

// TestShippedSize: everything the interface ships, gzipped as it is sent.
func TestShippedSize(t *testing.T) {
	h, err := ui.New()
	if err != nil {
		t.Fatal(err)
	}
	raw, gz := h.Size()
	t.Logf("FIGURE shipped: %d bytes, %d bytes gzipped", raw, gz)
	if gz > 500*1024 {
		t.Errorf("the interface ships %d bytes gzipped, want at most 500 KiB", gz)
	}
}
