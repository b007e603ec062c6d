package api_test

import (
	"encoding/json"
	"net/http/httptest"
	"testing"

	"github.com/loggate/loggate/router/api"
)

// Jackson writes <, > and & as they are; so do loggate's answers, including
// raw JSON they embed.
func TestWriteJSONKeepsHTMLCharacters(t *testing.T) {
	v := map[string]any{
		"query": `source:<web> && level:>3`,
		"raw":   json.RawMessage(`{"q":"a<b"}`),
	}
	rec := httptest.NewRecorder()
	api.WriteJSON(rec, 200, v)
	want := `{"query":"source:<web> && level:>3","raw":{"q":"a<b"}}`
	if got := rec.Body.String(); got != want {
		t.Errorf("body %s, want %s", got, want)
	}
	b, err := api.Marshal(v)
	if err != nil || string(b) != want {
		t.Errorf("Marshal: %s, %v; want %s", b, err, want)
	}
}
