package apibrowser_test

import (
	"context"
	"net/http"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/chromedp/chromedp"

	"github.com/loggate/loggate/cmd/loggate/node/nodetest"
	"github.com/loggate/loggate/internal/browsertest"
)

// TestBrowser drives the page in headless Chromium against a real node: a
// failed login, a good one, the resource list, and a call of GET /cluster.
func TestBrowser(t *testing.T) {
	h := nodetest.Start(t)
	doc := validateOpenAPI(t, h.Do("GET", "/api-browser/openapi.json", nil).Want(t, http.StatusOK).Body)
	operations := 0
	for _, item := range doc.Paths {
		operations += len(item)
	}

	ctx := browsertest.Start(t, 1280, 1000, 60*time.Second)
	step := func(name string, actions ...chromedp.Action[chromedp.Void]) {
		t.Helper()
		sctx, cancel := context.WithTimeout(ctx, 15*time.Second)
		defer cancel()
		if err := chromedp.Do(sctx, actions...); err != nil {
			page, _ := chromedp.Run(ctx, chromedp.Evaluate[string](`document.body.innerText`))
			t.Fatalf("%s: %v; the page shows:\n%s", name, err, page)
		}
	}
	text := func(sel string) string {
		t.Helper()
		s, err := chromedp.Run(ctx, chromedp.Text(chromedp.CSS(sel), chromedp.NodeVisible))
		if err != nil {
			t.Fatalf("text of %s: %v", sel, err)
		}
		return s
	}

	// Without the slash, the server redirects to the page.
	step("open the page", chromedp.Navigate(h.URL+"/api-browser"), chromedp.WaitVisible(chromedp.ID("login-form")))
	if loc, err := chromedp.Run(ctx, chromedp.Location()); err != nil || !strings.HasSuffix(loc, "/api/api-browser/") {
		t.Fatalf("the page is at %q (%v), want …/api/api-browser/", loc, err)
	}

	step("log in with a wrong password",
		chromedp.SendKeys(chromedp.ID("username"), nodetest.RootUser),
		chromedp.SendKeys(chromedp.ID("password"), "wrong-password"),
		chromedp.Click(chromedp.ID("login-button")),
		chromedp.WaitVisible(chromedp.ID("login-error")))
	if msg := text("#login-error"); !strings.Contains(msg, "401") {
		t.Errorf("login error %q, want it to mention 401", msg)
	}
	if hidden, err := chromedp.Run(ctx, chromedp.Evaluate[bool](`document.getElementById('browser').hidden`)); err != nil || !hidden {
		t.Errorf("the resource list shows after a failed login (hidden=%v, %v)", hidden, err)
	}

	step("log in",
		chromedp.Evaluate[chromedp.Void](`void (document.getElementById('password').value = '')`),
		chromedp.SendKeys(chromedp.ID("password"), nodetest.RootPassword),
		chromedp.Click(chromedp.ID("login-button")),
		chromedp.WaitVisible(chromedp.CSS(`[data-op="GET /cluster"]`)))
	shown, err := chromedp.Run(ctx, chromedp.Evaluate[int](`document.querySelectorAll('#resources .op').length`))
	if err != nil || shown != operations {
		t.Errorf("the page lists %d operations (%v), openapi.json has %d", shown, err, operations)
	}
	if s := text("#signed-in"); !strings.Contains(s, nodetest.RootUser) {
		t.Errorf("signed-in banner %q does not name %s", s, nodetest.RootUser)
	}

	op := `[data-op="GET /cluster"] `
	step("run GET /cluster",
		chromedp.Click(chromedp.CSS(op+`[data-role="toggle"]`)),
		chromedp.Click(chromedp.CSS(op+`[data-role="try"]`)),
		chromedp.WaitVisible(chromedp.CSS(op+`[data-role="result"][data-status]`)))
	status, err := chromedp.Run(ctx, chromedp.AttributeValue(chromedp.CSS(op+`[data-role="result"]`), "data-status"))
	if err != nil || status.Value != strconv.Itoa(http.StatusOK) {
		t.Errorf("shown status %q (%v), want 200; status line %q", status.Value, err, text(op+`[data-role="status"]`))
	}
	if body := text(op + `[data-role="response"]`); !strings.Contains(body, h.Node.Info.ID) {
		t.Errorf("shown body does not contain the node id %s:\n%s", h.Node.Info.ID, body)
	}
	if headers := text(op + `[data-role="headers"]`); !strings.Contains(strings.ToLower(headers), "x-graylog-node-id: "+h.Node.Info.ID) {
		t.Errorf("shown headers lack X-Graylog-Node-Id:\n%s", headers)
	}

	// A path parameter goes into the path.
	op = `[data-op="GET /system/cluster/nodes/{nodeId}"] `
	step("run GET /system/cluster/nodes/{nodeId}",
		chromedp.Click(chromedp.CSS(op+`[data-role="toggle"]`)),
		chromedp.SetValue(chromedp.CSS(op+`input[data-param="nodeId"]`), h.Node.Info.ID),
		chromedp.Click(chromedp.CSS(op+`[data-role="try"]`)),
		chromedp.WaitVisible(chromedp.CSS(op+`[data-role="result"][data-status]`)))
	if line := text(op + `[data-role="status"]`); !strings.HasPrefix(line, "200 ") || !strings.HasSuffix(line, "/api/system/cluster/nodes/"+h.Node.Info.ID) {
		t.Errorf("status line %q, want 200 for /api/system/cluster/nodes/%s", line, h.Node.Info.ID)
	}

	// The credentials stay in the page's memory.
	kept, err := chromedp.Run(ctx, chromedp.Evaluate[string](
		`localStorage.length + '|' + sessionStorage.length + '|' + document.cookie + '|' + location.href`))
	if err != nil || kept != "0|0||"+h.URL+"/api-browser/" {
		t.Errorf("storage, cookies and URL: %q (%v), want them empty and the plain page URL", kept, err)
	}

	browsertest.Screenshot(t, ctx, "api-browser")
}
