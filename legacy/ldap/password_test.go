package ldap_test

import (
	"errors"
	"strings"
	"testing"

	legacyldap "github.com/loggate/loggate/legacy/ldap"
)

const (
	oldSecret = "Graylog3-password-secret-of-at-least-sixteen-chars-0123456789"
	oldSalt   = "a1b2c3d4e5f60718"
)

func TestDecryptLegacyPassword(t *testing.T) {
	exact := encryptLegacy(t, "0123456789abcdef", oldSalt, oldSecret, 0x11) // a whole padding block
	tests := []struct {
		name, cipher, salt, secret, want string
	}{
		{"short", encryptLegacy(t, "s3cr3t", oldSalt, oldSecret, 0x5a), oldSalt, oldSecret, "s3cr3t"},
		{"block-sized", exact, oldSalt, oldSecret, "0123456789abcdef"},
		{"unicode", encryptLegacy(t, "pässwörd✓", oldSalt, oldSecret, 0x00), oldSalt, oldSecret, "pässwörd✓"},
		{"uppercase-hex", strings.ToUpper(encryptLegacy(t, "x", oldSalt, oldSecret, 1)), oldSalt, oldSecret, "x"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			got, err := legacyldap.DecryptLegacyPassword(tc.cipher, tc.salt, tc.secret)
			if err != nil || got != tc.want {
				t.Fatalf("got %q, %v; want %q", got, err, tc.want)
			}
		})
	}
}

func TestDecryptLegacyPasswordFails(t *testing.T) {
	good := encryptLegacy(t, "s3cr3t", oldSalt, oldSecret, 0x5a)
	tests := []struct{ name, cipher, salt, secret string }{
		{"wrong-secret", good, oldSalt, "another-graylog-secret-entirely"},
		{"short-secret", good, oldSalt, "tiny-secret"},
		{"short-salt", good, "abc", oldSecret},
		{"not-hex", "zz" + good[2:], oldSalt, oldSecret},
		{"partial-block", good[:30], oldSalt, oldSecret},
		{"empty", "", oldSalt, oldSecret},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			got, err := legacyldap.DecryptLegacyPassword(tc.cipher, tc.salt, tc.secret)
			if !errors.Is(err, legacyldap.ErrDecrypt) {
				t.Fatalf("got %q, %v; want ErrDecrypt", got, err)
			}
			if strings.Contains(err.Error(), tc.secret) && tc.secret != "" || strings.Contains(err.Error(), good) {
				t.Errorf("error leaks its input: %v", err)
			}
		})
	}
}
