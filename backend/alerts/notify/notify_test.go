package notify

import (
	"context"
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/loggate/loggate/router/api"
)

func TestBackoff(t *testing.T) {
	want := []int{5, 10, 20, 40, 80, 160, 300, 300}
	for i, w := range want {
		if got := backoff(i + 1).Seconds(); int(got) != w {
			t.Errorf("after failure %d: %vs, want %ds", i+1, got, w)
		}
	}
}

func FuzzParse(f *testing.F) {
	for _, s := range []string{example, `{"title":"m","description":"","config":{"type":"email-notification-v1","email_recipients":["a@b"]}}`,
		`{"title":"l","description":"","config":{"type":"legacy-alarm-callback-notification-v1","callback_type":"x","configuration":{"url":"u"}}}`,
		`{"title":"x","description":"","config":{"type":"nope"}}`, `{}`, `{"config":null}`} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, b []byte) {
		n, err := Parse(b)
		if err != nil {
			if api.ErrorCode(err) != api.Invalid {
				t.Fatalf("%s: error %v is not a 400", b, err)
			}
			return
		}
		_ = n.Validate()
		out, err := json.Marshal(n)
		if err != nil {
			t.Fatal(err)
		}
		var back Notification
		if err := json.Unmarshal(out, &back); err != nil {
			t.Fatalf("%s does not read back: %v", out, err)
		}
	})
}

// allowURLs is a URLChecker answering allow for every URL.
type allowURLs bool

func (a allowURLs) Permits(context.Context, string) (bool, error) { return bool(a), nil }

// TestPostErrorsHidePassword: the errors of an HTTP notification, which
// are logged and shown as system notifications, name its URL without the
// password of its user info.
func TestPostErrorsHidePassword(t *testing.T) {
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) { w.WriteHeader(http.StatusInternalServerError) }))
	defer srv.Close()
	secretURL := strings.Replace(srv.URL, "http://", "http://hookuser:S3cretPass@", 1) + "/hook"
	for _, c := range []struct {
		name    string
		allowed bool
		url     string
	}{
		{"refused by the server", true, secretURL},
		{"not whitelisted", false, secretURL},
		{"not a valid URL", true, "http://hookuser:S3cretPass@host:port:x/%zz"},
	} {
		t.Run(c.name, func(t *testing.T) {
			d := &Deliverer{HTTP: srv.Client(), Allowed: allowURLs(c.allowed)}
			err := d.post(t.Context(), c.url, map[string]any{"a": 1})
			if err == nil {
				t.Fatal("no error")
			}
			if strings.Contains(err.Error(), "S3cretPass") || !strings.Contains(err.Error(), "hookuser") {
				t.Errorf("error %q: want the user without the password", err)
			}
		})
	}
}
