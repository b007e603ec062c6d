package elastic

import (
	"errors"
	"strings"
	"testing"

	"github.com/loggate/loggate/backend/logs/messages"
)

// TestWriteWholeRequestFailureIsUnavailable checks that a _bulk request
// the cluster (or a proxy in front of it) refuses as a whole, for a reason
// that is not the messages' own, is an error wrapping
// messages.ErrUnavailable: the processor then retries the batch instead of
// writing it message by message and dropping every one that fails, which
// for an expired password or a missing privilege would be all of them.
// Only 400 and 413, a body the cluster cannot take, are the messages'.
func TestWriteWholeRequestFailureIsUnavailable(t *testing.T) {
	for _, tc := range []struct {
		name        string
		status      int
		body        string
		unavailable bool
	}{
		{"unauthorized", 401, `{"error":{"root_cause":[{"type":"security_exception","reason":"unable to authenticate user [graylog] for REST request [/_bulk]"}],"type":"security_exception","reason":"unable to authenticate user [graylog] for REST request [/_bulk]"},"status":401}`, true},
		{"forbidden", 403, `{"error":{"type":"security_exception","reason":"action [indices:data/write/bulk] is unauthorized for user [graylog]"},"status":403}`, true},
		{"proxy not found", 404, `<html><body>404 Not Found</body></html>`, true},
		{"internal error", 500, `{"error":{"type":"exception","reason":"something broke"},"status":500}`, true},
		{"bad request", 400, `{"error":{"type":"illegal_argument_exception","reason":"Malformed action/metadata line [1]"},"status":400}`, false},
		{"too large", 413, ``, false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			f, s := writeFake(t)
			f.on("POST /_bulk", tc.status, tc.body)
			err := s.Write(t.Context(), "graylog", sampleMessages())
			if err == nil {
				t.Fatal("Write succeeded, want an error")
			}
			if errors.Is(err, messages.ErrUnavailable) != tc.unavailable {
				t.Errorf("Write: %v; want unavailable %v", err, tc.unavailable)
			}
		})
	}
}

// TestWriteItemSecurityFailureIsUnavailable: a bulk item refused because
// the user may not write the index is not the message's fault either.
func TestWriteItemSecurityFailureIsUnavailable(t *testing.T) {
	f, s := writeFake(t)
	f.on("POST /_bulk", 200, `{"errors":true,"items":[{"index":{"_index":"graylog_0","_id":"a","status":403,"error":{"type":"security_exception","reason":"action [indices:data/write/bulk[s]] is unauthorized for user [graylog] on indices [graylog_0]"}}}]}`)
	err := s.Write(t.Context(), "graylog", sampleMessages()[:1])
	if !errors.Is(err, messages.ErrUnavailable) {
		t.Errorf("Write: %v; want an error wrapping ErrUnavailable", err)
	}
}

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
