package loggers_test

import (
	"strings"
	"testing"

	"github.com/loggate/loggate/backend/system/loggers"
	"github.com/loggate/loggate/router/api"
)

func TestCheckName(t *testing.T) {
	tests := []struct {
		name string
		ok   bool
	}{
		{"loggate", true},
		{"loggate.auth.ldap", true},
		{"org.graylog2", true},
		{"a_b-c.D9", true},
		{"x", true},
		{strings.Repeat("a", loggers.MaxNameLen), true},
		{strings.Repeat("a", loggers.MaxNameLen+1), false},
		{"", false},
		{".", false},
		{".a", false},
		{"a.", false},
		{"a..b", false},
		{"a b", false},
		{"a:b", false},
		{"a,b", false},
		{"*", false},
		{"a/b", false},
		{"ä", false},
		{"a\x00", false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			err := loggers.CheckName(tt.name)
			if (err == nil) != tt.ok {
				t.Fatalf("CheckName(%q) = %v, want ok=%v", tt.name, err, tt.ok)
			}
			if err != nil && api.ErrorCode(err) != api.Invalid {
				t.Errorf("code = %v, want Invalid", api.ErrorCode(err))
			}
		})
	}
}
