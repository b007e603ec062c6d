package streams

import (
	"strings"
	"testing"

	"github.com/loggate/loggate/router/api"
)

// TestRegexTooLarge: a rule whose counted repetitions expand to millions of
// instructions is refused with a 400, and a stored one is not compiled (it
// matches nothing), before RE2 spends seconds and over 100 MiB on it.
func TestRegexTooLarge(t *testing.T) {
	big := strings.Repeat("[a-z]{1000}", 66)
	body := `{"title":"t","index_set_id":"000000000000000000000001","rules":[{"field":"message","type":2,"value":"` + big + `"}]}`
	var req createRequest
	if err := api.DecodeBytes([]byte(body), &req, true); err != nil {
		t.Fatal(err)
	}
	if _, err := req.stream("user"); api.ErrorCode(err) != api.Invalid {
		t.Fatalf("stream with a huge regex: error %v, want a 400", err)
	}
	if _, err := compileRegex(big); err == nil {
		t.Fatal("compileRegex compiled a huge regex")
	}
}
