package slapdtest

import (
	"path/filepath"
	"testing"
)

// LOGGATE_SLAPD names the binary; a missing one is not replaced by another.
func TestLookSlapd(t *testing.T) {
	t.Setenv("LOGGATE_SLAPD", filepath.Join(t.TempDir(), "slapd"))
	if p, err := lookSlapd(); err == nil {
		t.Errorf("lookSlapd = %q with LOGGATE_SLAPD naming nothing", p)
	}
}
