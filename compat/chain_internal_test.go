package compat

import (
	"net/http/httptest"
	"net/url"
	"testing"
)

// The request converters edit is a copy: the caller's URL and headers stay
// as they were, and the headers are copied only once one is set.
func TestConvertingLeavesCallersRequest(t *testing.T) {
	r := httptest.NewRequest("GET", "http://u:p@h/api/users/alice/tokens?x=1", nil)
	r.Header.Set("X-Keep", "1")
	x := &Exchange{Req: converting(r)}
	x.Req.URL.Path, x.Req.URL.RawQuery = "/api/users/u1/tokens", ""
	x.Req.URL.User = url.User("other")
	x.SetHeader("Content-Type", "application/json")
	x.SetHeader("X-Keep", "2")
	if r.URL.Path != "/api/users/alice/tokens" || r.URL.RawQuery != "x=1" || r.URL.User.Username() != "u" {
		t.Errorf("the caller's URL changed: %s", r.URL)
	}
	if r.Header.Get("Content-Type") != "" || r.Header.Get("X-Keep") != "1" {
		t.Errorf("the caller's headers changed: %v", r.Header)
	}
	if x.Req.Header.Get("Content-Type") != "application/json" || x.Req.Header.Get("X-Keep") != "2" {
		t.Errorf("the converted headers: %v", x.Req.Header)
	}
}
