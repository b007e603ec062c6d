package notify

import (
	"encoding/json"
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
