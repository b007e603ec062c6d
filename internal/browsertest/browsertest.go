// Package browsertest starts a headless Chromium (over chromedp) or Firefox
// (over WebDriver BiDi, firefox.go) for tests of loggate's web pages (the
// API browser, the web interface), and keeps their screenshots.
package browsertest

import (
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"testing"
	"time"

	"github.com/chromedp/chromedp"
)

// Chromium returns the browser to test with: $CHROMIUM or Debian's. Without
// one the test is skipped, loudly, unless LOGGATE_REQUIRE_SERVICES=1 says
// that CI must run it.
func Chromium(t testing.TB) string {
	t.Helper()
	bin := os.Getenv("CHROMIUM")
	if bin == "" {
		bin = "/usr/bin/chromium"
	}
	if _, err := exec.LookPath(bin); err != nil {
		msg := "no Chromium at " + bin + " (" + err.Error() + "); install Debian's chromium or set $CHROMIUM"
		if os.Getenv("LOGGATE_REQUIRE_SERVICES") == "1" {
			t.Fatal("LOGGATE_REQUIRE_SERVICES=1 and " + msg)
		}
		t.Skip("SKIPPED: " + msg)
	}
	return bin
}

// Start starts headless Chromium with a window of width×height and returns
// the context of its tab, which ends (and the browser with it) after
// timeout or when the test ends.
func Start(t testing.TB, width, height int, timeout time.Duration) context.Context {
	t.Helper()
	bin := Chromium(t)
	ctx, cancel := context.WithTimeout(context.Background(), timeout)
	t.Cleanup(cancel)
	alloc, cancelAlloc := chromedp.NewExecAllocator(ctx,
		chromedp.ExecPath(bin),
		chromedp.Flag("headless", true),
		chromedp.NoSandbox,
		chromedp.DisableGPU,
		chromedp.Flag("disable-quic", true),
		chromedp.NoFirstRun,
		chromedp.Flag("disable-background-networking", true),
		chromedp.Flag("disable-component-update", true),
		chromedp.Flag("disable-sync", true),
		chromedp.Flag("disable-dev-shm-usage", true),
		chromedp.UserDataDir(t.TempDir()),
		chromedp.WindowSize(width, height),
	)
	t.Cleanup(cancelAlloc)
	tab, cancelTab := chromedp.NewContext(alloc)
	t.Cleanup(cancelTab)
	// Start the browser on the tab's context, so that the shorter contexts
	// of a test's steps bound the steps only.
	if err := chromedp.Do(tab); err != nil {
		t.Fatalf("start %s: %v", bin, err)
	}
	return tab
}

// Artifacts is where screenshots go: $LOGGATE_ARTIFACTS, or
// <tmp>/loggate-artifacts.
func Artifacts(t testing.TB) string {
	t.Helper()
	dir := os.Getenv("LOGGATE_ARTIFACTS")
	if dir == "" {
		dir = filepath.Join(os.TempDir(), "loggate-artifacts")
	}
	if err := os.MkdirAll(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	return dir
}

// Screenshot writes the whole page to <Artifacts>/<name>.png.
func Screenshot(t testing.TB, ctx context.Context, name string) {
	t.Helper()
	png, err := chromedp.Run(ctx, chromedp.FullScreenshot(100))
	if err != nil {
		t.Fatalf("screenshot %s: %v", name, err)
	}
	writeArtifact(t, name+".png", png)
}

// writeArtifact writes data to <Artifacts>/<name> and logs where.
func writeArtifact(t testing.TB, name string, data []byte) {
	t.Helper()
	path := filepath.Join(Artifacts(t), name)
	if err := os.WriteFile(path, data, 0o644); err != nil {
		t.Fatal(err)
	}
	t.Logf("screenshot: %s", path)
}
