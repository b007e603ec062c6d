package elastic

import (
	"errors"
	"strings"
	"testing"

	"github.com/loggate/loggate/backend/logs/messages"
)

// TestWriteSeriesFailureIsUnavailable: when the template or the write
// index cannot be made, no message was sent, so none may be dropped.
func TestWriteSeriesFailureIsUnavailable(t *testing.T) {
	f := newFake(t, "7.10.2")
	s := f.open(t, Options{})
	f.on("PUT /_template/graylog-template", 403, `{"error":{"type":"security_exception","reason":"action [indices:admin/template/put] is unauthorized for user [graylog]"},"status":403}`)
	err := s.Write(t.Context(), "graylog", sampleMessages()[:1])
	if !errors.Is(err, messages.ErrUnavailable) {
		t.Errorf("Write: %v; want an error wrapping ErrUnavailable", err)
	}
}

// TestHostsUnescapedPassword: a password with an unescaped "/", "?" or "#"
// whose part before it is a number makes the URL parse with user:number as
// host:port and the rest of the password in the path; that host must be
// refused without the password, not kept, where every error would show it.
func TestHostsUnescapedPassword(t *testing.T) {
	for _, h := range []string{"http://elastic:123/secret@es:9200", "http://elastic:123?secret@es:9200", "http://elastic:123#secret@es:9200"} {
		urls, _, _, err := parseHosts([]string{h})
		if err == nil {
			t.Errorf("parseHosts(%q) = %v, want an error", h, urls)
			continue
		}
		if strings.Contains(err.Error(), "secret") || strings.Contains(err.Error(), "123") {
			t.Errorf("parseHosts(%q): %v, want an error without the password", h, err)
		}
	}
}
