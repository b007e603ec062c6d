package main

import (
	"bufio"
	"bytes"
	"context"
	"errors"
	"io"
	"net"
	"net/http"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"sync"
	"testing"
	"time"
)

// lines is a writer whose lines a test can wait for.
type lines struct {
	mu  sync.Mutex
	buf bytes.Buffer
	ch  chan string
}

func newLines() *lines { return &lines{ch: make(chan string, 1000)} }

// Write keeps everything and offers each line to ch without blocking: a
// writer (the server's log) must never wait for a reader.
func (l *lines) Write(p []byte) (int, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	l.buf.Write(p)
	sc := bufio.NewScanner(bytes.NewReader(p))
	for sc.Scan() {
		select {
		case l.ch <- sc.Text():
		default:
		}
	}
	return len(p), nil
}

func (l *lines) String() string {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.buf.String()
}

var (
	servingLine  = regexp.MustCompile(`at (http://127\.0\.0\.1:\d+/api/)`)
	passwordLine = regexp.MustCompile(`the password of "admin" is (\S+)`)
)

// started is a serve run by start.
type started struct {
	url      string // the API's
	password string // generated and printed on a first start, else ""
	log      *lines // the server's log (stderr)
	stop     func()
}

// start runs the binary's serve until the test ends.
func start(t *testing.T, dataDir string, extra ...string) started {
	t.Helper()
	ctx, cancel := context.WithCancel(context.Background())
	out, errOut := newLines(), newLines()
	done := make(chan error, 1)
	args := append([]string{"serve", "--data_dir", dataDir, "--http_bind_address", "127.0.0.1:0"}, extra...)
	go func() { done <- run(ctx, args, nil, out, errOut) }()
	timeout := time.After(30 * time.Second)
	var url, password string
	for url == "" {
		select {
		case line := <-out.ch:
			if m := servingLine.FindStringSubmatch(line); m != nil {
				url = m[1]
			}
		case err := <-done:
			cancel()
			t.Fatalf("serve ended: %v\n%s", err, errOut.String())
		case <-timeout:
			cancel()
			t.Fatal("serve did not start")
		}
	}
	// The password line comes in the same write as the serving line.
	for _, line := range strings.Split(out.String(), "\n") {
		if m := passwordLine.FindStringSubmatch(line); m != nil {
			password = m[1]
		}
	}
	var once sync.Once
	stop := func() {
		once.Do(func() {
			cancel()
			if err := <-done; err != nil {
				t.Errorf("serve: %v", err)
			}
			if strings.Contains(errOut.String(), password) && password != "" {
				t.Error("the generated password was logged")
			}
		})
	}
	t.Cleanup(stop)
	return started{url: url, password: password, log: errOut, stop: stop}
}

func TestFirstStartPrintsPasswordOnce(t *testing.T) {
	dir := t.TempDir()
	first := start(t, dir)
	url, pw := first.url, first.password
	if len(pw) < 16 {
		t.Fatalf("no strong generated password printed (%q)", pw)
	}
	get := func(url, pw string) int {
		req, _ := http.NewRequest("GET", url+"cluster", nil)
		req.SetBasicAuth("admin", pw)
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		_, _ = io.Copy(io.Discard, resp.Body)
		resp.Body.Close()
		return resp.StatusCode
	}
	if code := get(url, pw); code != http.StatusOK {
		t.Fatalf("the printed password does not work: %d", code)
	}
	first.stop()
	second := start(t, dir)
	url = second.url
	if second.password != "" {
		t.Error("the password was printed again on the second start")
	}
	if code := get(url, pw); code != http.StatusOK {
		t.Errorf("the first password no longer works after a restart: %d", code)
	}
}

func TestStartLogsEffectiveConfiguration(t *testing.T) {
	dir := t.TempDir()
	s := start(t, dir)
	s.stop()
	var settings string
	for _, line := range strings.Split(s.log.String(), "\n") {
		if strings.Contains(line, "msg=configuration") {
			settings = line
		}
	}
	if settings == "" {
		t.Fatalf("no configuration line logged:\n%s", s.log.String())
	}
	if want := "http_publish_uri:" + strings.TrimSuffix(s.url, "api/"); !strings.Contains(settings, want) {
		t.Errorf("configuration line lacks the bound publish URI %q:\n%s", want, settings)
	}
	// Defaults and generated values are shown as in effect, secrets masked.
	for _, want := range []string{
		"message_journal_dir:" + filepath.Join(dir, "journal"),
		"password_secret:****",
	} {
		if !strings.Contains(settings, want) {
			t.Errorf("configuration line lacks %q:\n%s", want, settings)
		}
	}
}

func TestNoCommandPrintsUsageAndCreatesNothing(t *testing.T) {
	t.Chdir(t.TempDir())
	var out, errOut bytes.Buffer
	err := run(context.Background(), nil, nil, &out, &errOut)
	if !errors.Is(err, errNoCommand) {
		t.Fatalf("run with no command: %v, want errNoCommand", err)
	}
	if !strings.Contains(errOut.String(), "usage: loggate serve") {
		t.Errorf("no usage printed:\n%s", errOut.String())
	}
	if entries, _ := os.ReadDir("."); len(entries) != 0 {
		t.Errorf("a bare loggate created %v", entries)
	}
}

func TestTakenPortCreatesNothing(t *testing.T) {
	taken, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer taken.Close()
	dataDir := filepath.Join(t.TempDir(), "data")
	var out, errOut bytes.Buffer
	err = run(context.Background(), []string{"serve", "--data_dir", dataDir, "--http_bind_address", taken.Addr().String()},
		nil, &out, &errOut)
	if err == nil || !strings.Contains(err.Error(), "http_bind_address") {
		t.Fatalf("serve on a taken port: %v, want an error naming http_bind_address", err)
	}
	if _, err := os.Stat(dataDir); !errors.Is(err, os.ErrNotExist) {
		t.Errorf("data_dir exists after a refused start (stat: %v)", err)
	}
}

func TestConfigErrors(t *testing.T) {
	for _, c := range []struct {
		args []string
		want string
	}{
		{[]string{"serve", "--http_bind_address", "nowhere"}, "http_bind_address"},
		{[]string{"serve", "--compat_default_release", "9.9"}, "compat_default_release"},
		{[]string{"serve", "--config", "/does/not/exist.conf"}, "exist.conf"},
		{[]string{"frobnicate"}, `unknown command "frobnicate"`},
	} {
		var out, errOut bytes.Buffer
		err := run(context.Background(), append(c.args, "--data_dir", t.TempDir()), nil, &out, &errOut)
		if err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%v: %v, want an error naming %q", c.args, err, c.want)
		}
	}
}

func TestUnknownKeyWarns(t *testing.T) {
	ctx, cancel := context.WithCancel(context.Background())
	out, errOut := newLines(), newLines()
	done := make(chan error, 1)
	go func() {
		done <- run(ctx, []string{"--data_dir", t.TempDir(), "--http_bind_address", "127.0.0.1:0"},
			[]string{"LOGGATE_IS_MASTER=true"}, out, errOut)
	}()
	timeout := time.After(30 * time.Second)
wait:
	for {
		select {
		case line := <-out.ch:
			if strings.Contains(line, "serving") {
				break wait
			}
		case <-timeout:
			t.Fatal("serve did not start")
		}
	}
	cancel()
	if err := <-done; err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(errOut.String(), "is_master") {
		t.Errorf("no warning about the unknown key:\n%s", errOut.String())
	}
}

func TestVersion(t *testing.T) {
	var out bytes.Buffer
	if err := run(context.Background(), []string{"version"}, nil, &out, io.Discard); err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(out.String(), "Graylog 4.0.17 API") {
		t.Errorf("version: %q", out.String())
	}
}
