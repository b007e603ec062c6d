package search

import (
	"errors"
	"net/http"
	"net/http/httptest"
	"testing"

	"github.com/loggate/loggate/backend/analysis/search/query"
	"github.com/loggate/loggate/router/api"
)

// A query that does not parse leaves the service as a 400 carrying Graylog's
// QueryParseError body, which the one error writer answers with; other
// errors pass unchanged.
func TestParseError(t *testing.T) {
	_, perr := query.Parse(`source:(`, query.Options{})
	err := parseError(perr)
	if got := api.ErrorCode(err); got != api.Invalid {
		t.Fatalf("ErrorCode = %v, want Invalid", got)
	}
	var se *query.SyntaxError
	if !errors.As(err, &se) {
		t.Error("the translated error no longer wraps the SyntaxError")
	}
	rec := httptest.NewRecorder()
	api.WriteError(rec, httptest.NewRequest(http.MethodGet, "/", nil), err)
	want := `{"type":"AutoValue_QueryParseError","message":"Cannot parse 'source:(': Encountered end of input at position 8; expected a term",` +
		`"details":["Encountered end of input at position 8; expected a term"],"line":1,"column":9}`
	if rec.Code != http.StatusBadRequest || rec.Body.String() != want {
		t.Errorf("answer %d %s\nwant 400 %s", rec.Code, rec.Body, want)
	}
	other := errors.New("other")
	if parseError(other) != other {
		t.Error("parseError changed an error that is no syntax error")
	}
}

// A stream the caller may not read is a 403 with Graylog's
// MissingStreamPermission body.
func TestCheckStreamsBody(t *testing.T) {
	err := checkStreams(t.Context(), []string{"s1", "s2"})
	rec := httptest.NewRecorder()
	api.WriteError(rec, httptest.NewRequest(http.MethodGet, "/", nil), err)
	want := `{"type":"MissingStreamPermission","message":"Missing stream permissions: s1, s2","streams":["s1","s2"]}`
	if rec.Code != http.StatusForbidden || rec.Body.String() != want {
		t.Errorf("answer %d %s\nwant 403 %s", rec.Code, rec.Body, want)
	}
}
