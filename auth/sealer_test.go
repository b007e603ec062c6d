package auth

import (
	"strings"
	"testing"
)

func TestSealer(t *testing.T) {
	k := DeriveKeys("0123456789abcdef0123")
	a, b := k.Sealer("a"), k.Sealer("b")
	sealed, err := a.Seal("hunter2")
	if err != nil || strings.Contains(sealed, "hunter2") {
		t.Fatalf("Seal = %q, %v", sealed, err)
	}
	again, _ := a.Seal("hunter2")
	if again == sealed {
		t.Error("two seals of one value are equal: the nonce is not random")
	}
	if got, err := a.Open(sealed); err != nil || got != "hunter2" {
		t.Errorf("Open = %q, %v", got, err)
	}
	if _, err := b.Open(sealed); err == nil {
		t.Error("a value sealed for one purpose opened as another")
	}
	if _, err := DeriveKeys("another secret 0123456").Sealer("a").Open(sealed); err == nil {
		t.Error("opened under another password_secret")
	}
	for _, bad := range []string{"", "!!", "AAAA"} {
		if _, err := a.Open(bad); err == nil {
			t.Errorf("Open(%q) succeeded", bad)
		}
	}
}
