package browsertest

import (
	"bufio"
	"context"
	"encoding/base64"
	"encoding/json"
	"errors"
	"fmt"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/coder/websocket"

	"github.com/loggate/loggate/internal/servicetest"
)

// Firefox is a headless Firefox driven over WebDriver BiDi, the W3C remote
// protocol Firefox has built in: one WebSocket, JSON commands answered by
// id, events in between. It knows the few commands the interface's tests
// need (navigate, evaluate, real clicks and key strokes, screenshots) and
// nothing else, so that Firefox needs no driver binary besides itself.
type Firefox struct {
	t    testing.TB
	ctx  context.Context // ends after the timeout of StartFirefox or with the test
	conn *websocket.Conn
	tab  string // the browsing context (tab) every command goes to

	mu      sync.Mutex
	nextID  int64
	waiting map[int64]chan bidiMessage
	console []string // what pages wrote to their console, errors included
	closed  chan struct{}
	readErr error // why the connection ended, once closed is closed
}

// bidiMessage is any message from Firefox: a command's answer (ID set;
// Type "success" or "error") or an event (Type "event").
type bidiMessage struct {
	ID      *int64          `json:"id"`
	Type    string          `json:"type"`
	Method  string          `json:"method"`
	Params  json.RawMessage `json:"params"`
	Result  json.RawMessage `json:"result"`
	Error   string          `json:"error"`
	Message string          `json:"message"`
}

// firefoxPrefs is the profile's user.js: a clean, quiet headless run that
// reaches nothing but loopback. Updates, telemetry, first-run and
// what's-new pages, remote settings, safe browsing and the like are off.
// Every other connection goes to a proxy that is the test's own listener
// (proxyPrefs), which refuses it and fails the test, so that whatever was
// missed shows instead of leaving the machine (Firefox never sends loopback
// addresses to a proxy); forceResolve answers every name lookup with
// 127.0.0.1, so no DNS query leaves either.
const firefoxPrefs = `
user_pref("app.update.disabledForTesting", true);
user_pref("app.update.auto", false);
user_pref("app.normandy.enabled", false);
user_pref("browser.shell.checkDefaultBrowser", false);
user_pref("browser.startup.page", 0);
user_pref("browser.startup.homepage", "about:blank");
user_pref("browser.startup.homepage_override.mstone", "ignore");
user_pref("startup.homepage_welcome_url", "about:blank");
user_pref("startup.homepage_welcome_url.additional", "");
user_pref("browser.aboutwelcome.enabled", false);
user_pref("browser.newtabpage.enabled", false);
user_pref("browser.newtabpage.activity-stream.feeds.system.topsites", false);
user_pref("browser.search.update", false);
user_pref("browser.safebrowsing.malware.enabled", false);
user_pref("browser.safebrowsing.phishing.enabled", false);
user_pref("browser.safebrowsing.downloads.enabled", false);
user_pref("browser.safebrowsing.provider.mozilla.updateURL", "");
user_pref("browser.region.network.url", "");
user_pref("browser.region.update.enabled", false);
user_pref("datareporting.healthreport.uploadEnabled", false);
user_pref("datareporting.policy.dataSubmissionEnabled", false);
user_pref("toolkit.telemetry.enabled", false);
user_pref("toolkit.telemetry.unified", false);
user_pref("toolkit.telemetry.server", "");
user_pref("toolkit.telemetry.reportingpolicy.firstRun", false);
user_pref("services.settings.server", "data:,#remote-settings-disabled");
user_pref("extensions.update.enabled", false);
user_pref("extensions.getAddons.cache.enabled", false);
user_pref("extensions.systemAddon.update.enabled", false);
user_pref("media.gmp-manager.updateEnabled", false);
user_pref("dom.push.connection.enabled", false);
user_pref("dom.push.serverURL", "");
user_pref("network.trr.mode", 5);
user_pref("network.captive-portal-service.enabled", false);
user_pref("network.connectivity-service.enabled", false);
user_pref("network.dns.disablePrefetch", true);
user_pref("network.prefetch-next", false);
user_pref("network.http.speculative-parallel-limit", 0);
user_pref("network.proxy.type", 1);
user_pref("network.proxy.failover_direct", false);
user_pref("network.dns.forceResolve", "127.0.0.1");
user_pref("network.proxy.allow_hijacking_localhost", false);
user_pref("datareporting.usage.uploadEnabled", false);
user_pref("remote.prefs.recommended", true);
`

// proxyPrefs sends HTTP and HTTPS to the proxy on port.
const proxyPrefs = `
user_pref("network.proxy.http", "127.0.0.1");
user_pref("network.proxy.http_port", %[1]d);
user_pref("network.proxy.ssl", "127.0.0.1");
user_pref("network.proxy.ssl_port", %[1]d);
`

// refuseOutside listens as the profile's proxy: every request to it is one
// for outside the machine, refused, and an error of the test when it ends.
// It returns the port.
func refuseOutside(t testing.TB) int {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	var asked []string
	done := make(chan struct{})
	go func() {
		defer close(done)
		for {
			c, err := ln.Accept()
			if err != nil {
				return // closed at the end of the test
			}
			_ = c.SetReadDeadline(time.Now().Add(5 * time.Second))
			line, _ := bufio.NewReader(c).ReadString('\n')
			_ = c.Close()
			if line = strings.TrimSpace(line); !slices.Contains(asked, line) {
				asked = append(asked, line) // read only once done is closed
			}
		}
	}()
	t.Cleanup(func() {
		_ = ln.Close()
		<-done
		if len(asked) > 0 {
			t.Errorf("firefox tried to reach outside the machine (refused): %q", asked)
		}
	})
	return ln.Addr().(*net.TCPAddr).Port
}

// listening is what Firefox prints once its remote agent listens.
var listening = regexp.MustCompile(`WebDriver BiDi listening on ws://(127\.0\.0\.1:[0-9]+)`)

// FirefoxBin returns the Firefox to test with: $FIREFOX or Debian's
// firefox-esr. Without one the test is skipped, loudly, unless
// LOGGATE_REQUIRE_SERVICES=1 says that CI must run it.
func FirefoxBin(t testing.TB) string {
	t.Helper()
	bin := os.Getenv("FIREFOX")
	if bin == "" {
		bin = "firefox-esr"
	}
	return servicetest.Find(t, "Firefox ("+bin+")", "apt-get install firefox-esr, or set $FIREFOX",
		func() (string, error) { return exec.LookPath(bin) })
}

// StartFirefox starts headless Firefox in a fresh profile with a viewport of
// width×height, and opens a WebDriver BiDi session on its one tab. The
// browser is killed after timeout or when the test ends.
func StartFirefox(t testing.TB, width, height int, timeout time.Duration) *Firefox {
	t.Helper()
	bin := FirefoxBin(t)
	ctx, cancel := context.WithTimeout(context.Background(), timeout)
	t.Cleanup(cancel)
	profile := t.TempDir()
	prefs := firefoxPrefs + fmt.Sprintf(proxyPrefs, refuseOutside(t))
	if err := os.WriteFile(filepath.Join(profile, "user.js"), []byte(prefs), 0o644); err != nil {
		t.Fatal(err)
	}
	logPath := filepath.Join(t.TempDir(), "firefox.log")
	cmd := exec.Command(bin, "--headless", "--no-remote", "--profile", profile,
		"--remote-debugging-port", "0", "about:blank") // 0: a free port, which it prints
	// A release build takes services.settings.server from the profile only
	// with MOZ_REMOTE_SETTINGS_DEVTOOLS=1; without it Firefox fetches
	// remote settings from Mozilla at start.
	cmd.Env = append(os.Environ(), "MOZ_CRASHREPORTER_DISABLE=1", "MOZ_HEADLESS=1", "MOZ_REMOTE_SETTINGS_DEVTOOLS=1")
	started := time.Now()
	proc, err := servicetest.Start(cmd, logPath)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(proc.Stop)
	fail := func(format string, args ...any) {
		t.Helper()
		out, _ := os.ReadFile(logPath)
		t.Fatalf("firefox: "+format+"\n%s", append(args, out)...)
	}

	// Firefox says where its remote agent listens once it does; a loaded
	// machine may take many seconds to get there.
	var addr string
	ready := time.NewTicker(20 * time.Millisecond)
	defer ready.Stop()
	for {
		if out, _ := os.ReadFile(logPath); listening.Match(out) {
			addr = string(listening.FindSubmatch(out)[1])
			break
		}
		select {
		case <-ctx.Done():
			fail("no WebDriver BiDi listening: %v", ctx.Err())
		case <-proc.Exited():
			fail("exited early: %v", proc.State())
		case <-ready.C:
		}
	}
	conn, _, err := websocket.Dial(ctx, "ws://"+addr+"/session", nil)
	if err != nil {
		fail("connect: %v", err)
	}
	conn.SetReadLimit(64 << 20) // a full-page screenshot comes in one message
	f := &Firefox{t: t, ctx: ctx, conn: conn, waiting: map[int64]chan bidiMessage{}, closed: make(chan struct{})}
	go f.read()
	// At the end Firefox quits as asked, so that no process of it still
	// writes to the profile while the test removes it; one that does not
	// within 30 s is killed (proc.Stop, after this).
	t.Cleanup(func() {
		defer conn.CloseNow()
		quit, cancel := context.WithTimeout(context.Background(), 30*time.Second)
		defer cancel()
		if err := f.Send(quit, "browser.close", map[string]any{}, nil); err != nil {
			t.Logf("firefox: browser.close: %v; killed", err)
			return
		}
		select {
		case <-proc.Exited():
		case <-quit.Done():
			t.Logf("firefox: still running 30 s after browser.close; killed")
		}
	})

	if err := f.Send(ctx, "session.new", map[string]any{"capabilities": map[string]any{}}, nil); err != nil {
		fail("session.new: %v", err)
	}
	var tree struct {
		Contexts []struct {
			Context string `json:"context"`
		} `json:"contexts"`
	}
	if err := f.Send(ctx, "browsingContext.getTree", map[string]any{"maxDepth": 0}, &tree); err != nil || len(tree.Contexts) == 0 {
		fail("no tab (%v)", err)
	}
	f.tab = tree.Contexts[0].Context
	t.Logf("firefox: session open %v after start", time.Since(started).Round(time.Millisecond))
	if err := f.Send(ctx, "browsingContext.setViewport", map[string]any{"context": f.tab,
		"viewport": map[string]int{"width": width, "height": height}}, nil); err != nil {
		fail("set the viewport: %v", err)
	}
	if err := f.Send(ctx, "session.subscribe", map[string]any{"events": []string{"log.entryAdded"}}, nil); err != nil {
		fail("subscribe to the console: %v", err)
	}
	return f
}

// Context is the browser's context: it ends when the browser is killed.
// Steps of a test take shorter contexts from it.
func (f *Firefox) Context() context.Context { return f.ctx }

// read hands answers to their commands and keeps console entries, until
// the connection ends.
func (f *Firefox) read() {
	for {
		_, data, err := f.conn.Read(f.ctx)
		if err != nil {
			f.mu.Lock()
			f.readErr = err
			f.mu.Unlock()
			close(f.closed)
			return
		}
		var m bidiMessage
		if err := json.Unmarshal(data, &m); err != nil {
			continue // not a message of the protocol; nothing waits for it
		}
		f.mu.Lock()
		switch {
		case m.ID != nil:
			if ch := f.waiting[*m.ID]; ch != nil {
				ch <- m // buffered: one answer per id
				delete(f.waiting, *m.ID)
			}
		case m.Method == "log.entryAdded":
			var e struct {
				Level string `json:"level"`
				Text  string `json:"text"`
			}
			_ = json.Unmarshal(m.Params, &e)
			f.console = append(f.console, e.Level+": "+e.Text)
		}
		f.mu.Unlock()
	}
}

// Send sends a command and decodes its result into result (unless nil).
func (f *Firefox) Send(ctx context.Context, method string, params, result any) error {
	f.mu.Lock()
	f.nextID++
	id := f.nextID
	ch := make(chan bidiMessage, 1)
	f.waiting[id] = ch
	f.mu.Unlock()
	defer func() {
		f.mu.Lock()
		delete(f.waiting, id)
		f.mu.Unlock()
	}()
	cmd, err := json.Marshal(map[string]any{"id": id, "method": method, "params": params})
	if err != nil {
		return err
	}
	// Written under the browser's context, not ctx: the library closes the
	// connection when a write's context ends during the write, and a step
	// that times out must not end the session for the steps after it.
	if err := f.conn.Write(f.ctx, websocket.MessageText, cmd); err != nil {
		return fmt.Errorf("%s: %w", method, err)
	}
	select {
	case m := <-ch:
		if m.Type == "error" {
			return fmt.Errorf("%s: %s: %s", method, m.Error, m.Message)
		}
		if result == nil {
			return nil
		}
		return json.Unmarshal(m.Result, result)
	case <-f.closed:
		return fmt.Errorf("%s: connection to firefox ended: %w", method, f.readErr)
	case <-ctx.Done():
		return fmt.Errorf("%s: %w", method, ctx.Err())
	}
}

// Navigate opens url in the tab and waits until the page has loaded.
func (f *Firefox) Navigate(ctx context.Context, url string) error {
	return f.Send(ctx, "browsingContext.navigate", map[string]any{"context": f.tab, "url": url, "wait": "complete"}, nil)
}

// scriptResult is the answer to script.evaluate and script.callFunction.
type scriptResult struct {
	Type   string `json:"type"` // "success" or "exception"
	Result struct {
		Type     string          `json:"type"`
		Value    json.RawMessage `json:"value"`
		SharedID string          `json:"sharedId"`
	} `json:"result"`
	ExceptionDetails struct {
		Text string `json:"text"`
	} `json:"exceptionDetails"`
}

// Call calls the JavaScript function fn in the page with args (any JSON
// values), awaits it, and decodes what it returns into out (unless nil).
// Values cross as JSON, which keeps the client free of the protocol's
// own encoding of JavaScript values.
func (f *Firefox) Call(ctx context.Context, fn string, out any, args ...any) error {
	encoded := make([]map[string]string, len(args))
	for i, a := range args {
		js, err := json.Marshal(a)
		if err != nil {
			return err
		}
		encoded[i] = map[string]string{"type": "string", "value": string(js)}
	}
	var r scriptResult
	err := f.Send(ctx, "script.callFunction", map[string]any{
		"functionDeclaration": `async (...args) => JSON.stringify(await (` + fn + `)(...args.map(a => JSON.parse(a))))`,
		"arguments":           encoded,
		"target":              map[string]string{"context": f.tab},
		"awaitPromise":        true,
	}, &r)
	if err != nil {
		return err
	}
	if r.Type == "exception" {
		return fmt.Errorf("%s: %s", fn, r.ExceptionDetails.Text)
	}
	if out == nil || r.Result.Type != "string" { // undefined: nothing to decode
		return nil
	}
	var js string
	if err := json.Unmarshal(r.Result.Value, &js); err != nil {
		return err
	}
	return json.Unmarshal([]byte(js), out)
}

// Eval evaluates a JavaScript expression in the page, as Call does.
func (f *Firefox) Eval(ctx context.Context, expr string, out any) error {
	return f.Call(ctx, "() => ("+expr+")", out)
}

// Until waits for a JavaScript condition to hold, asking again every 20 ms
// until ctx ends. Errors while a page is replaced by the next are retried;
// the last one is reported.
func (f *Firefox) Until(ctx context.Context, cond string) error {
	tick := time.NewTicker(20 * time.Millisecond)
	defer tick.Stop()
	var last error
	for {
		var ok bool
		last = f.Eval(ctx, "!!("+cond+")", &ok)
		if last == nil && ok {
			return nil
		}
		select {
		case <-ctx.Done():
			return fmt.Errorf("waiting for %s: %w (last: %v)", cond, ctx.Err(), last)
		case <-f.closed:
			return fmt.Errorf("waiting for %s: connection to firefox ended: %w", cond, f.readErr)
		case <-tick.C:
		}
	}
}

// Visible is the condition that an element matching the CSS selector is
// shown.
func Visible(selector string) string {
	js, _ := json.Marshal(selector)
	return "(e => e !== null && e.getClientRects().length > 0)(document.querySelector(" + string(js) + "))"
}

// element waits for the element to be shown, scrolls it into view and
// returns its id for input actions.
func (f *Firefox) element(ctx context.Context, selector string) (map[string]string, error) {
	if err := f.Until(ctx, Visible(selector)); err != nil {
		return nil, err
	}
	js, _ := json.Marshal(selector)
	var r scriptResult
	err := f.Send(ctx, "script.evaluate", map[string]any{
		"expression":   "(e => { e.scrollIntoView({block: 'center'}); return e; })(document.querySelector(" + string(js) + "))",
		"target":       map[string]string{"context": f.tab},
		"awaitPromise": false,
	}, &r)
	switch {
	case err != nil:
		return nil, err
	case r.Type == "exception":
		return nil, fmt.Errorf("%s: %s", selector, r.ExceptionDetails.Text)
	case r.Result.SharedID == "":
		return nil, fmt.Errorf("%s: not an element", selector)
	}
	return map[string]string{"sharedId": r.Result.SharedID}, nil
}

// Click clicks the middle of the element the CSS selector names with the
// mouse, once it is shown, as a person would: the page sees real pointer
// events, and the browser checks that nothing covers the element.
func (f *Firefox) Click(ctx context.Context, selector string) error {
	el, err := f.element(ctx, selector)
	if err != nil {
		return err
	}
	return f.Send(ctx, "input.performActions", map[string]any{"context": f.tab, "actions": []any{
		map[string]any{"type": "pointer", "id": "mouse", "actions": []any{
			map[string]any{"type": "pointerMove", "x": 0, "y": 0, "origin": map[string]any{"type": "element", "element": el}},
			map[string]any{"type": "pointerDown", "button": 0},
			map[string]any{"type": "pointerUp", "button": 0},
		}},
	}}, nil)
}

// Type clicks the element the CSS selector names and types text into it
// key by key; "\n" presses Enter.
func (f *Firefox) Type(ctx context.Context, selector, text string) error {
	if err := f.Click(ctx, selector); err != nil {
		return err
	}
	var keys []any
	for _, r := range text {
		k := string(r)
		if r == '\n' {
			k = "\uE007" // WebDriver's Enter
		}
		keys = append(keys, map[string]string{"type": "keyDown", "value": k}, map[string]string{"type": "keyUp", "value": k})
	}
	return f.Send(ctx, "input.performActions", map[string]any{"context": f.tab, "actions": []any{
		map[string]any{"type": "key", "id": "keyboard", "actions": keys},
	}}, nil)
}

// Console returns what pages wrote to their console so far.
func (f *Firefox) Console() []string {
	f.mu.Lock()
	defer f.mu.Unlock()
	return append([]string(nil), f.console...)
}

// Screenshot writes the whole page to <Artifacts>/<name>.png.
func (f *Firefox) Screenshot(ctx context.Context, name string) error {
	var shot struct {
		Data string `json:"data"`
	}
	if err := f.Send(ctx, "browsingContext.captureScreenshot", map[string]any{"context": f.tab, "origin": "document"}, &shot); err != nil {
		return err
	}
	png, err := base64.StdEncoding.DecodeString(shot.Data)
	if err != nil {
		return fmt.Errorf("screenshot %s: %w", name, err)
	}
	if len(png) == 0 {
		return errors.New("screenshot " + name + ": empty")
	}
	writeArtifact(f.t, name+".png", png)
	return nil
}
