package ldap

import (
	"crypto/aes"
	"crypto/cipher"
	"encoding/hex"
	"errors"
	"fmt"
	"unicode/utf8"
)

// ErrDecrypt is the failure of DecryptLegacyPassword. It never carries the
// cipher text or the secret.
var ErrDecrypt = errors.New("cannot decrypt the legacy LDAP system password (is --graylog-password-secret the old Graylog's password_secret?)")

// DecryptLegacyPassword decrypts a Graylog 3.x system password as
// AESTools.decrypt does: AES/CBC/ISO10126Padding, the key the first 16 bytes
// of Graylog's password_secret, the IV the 16-character salt, the cipher
// text in hex. ISO 10126 padding is random bytes ended by the pad length.
func DecryptLegacyPassword(hexCipher, salt, graylogPasswordSecret string) (string, error) {
	if len(graylogPasswordSecret) < 16 {
		return "", fmt.Errorf("%w: password_secret is shorter than 16 bytes", ErrDecrypt)
	}
	if len(salt) != aes.BlockSize {
		return "", fmt.Errorf("%w: the salt is not %d bytes", ErrDecrypt, aes.BlockSize)
	}
	ct, err := hex.DecodeString(hexCipher)
	if err != nil || len(ct) == 0 || len(ct)%aes.BlockSize != 0 {
		return "", fmt.Errorf("%w: the cipher text is not whole AES blocks in hex", ErrDecrypt)
	}
	block, err := aes.NewCipher([]byte(graylogPasswordSecret[:16]))
	if err != nil {
		return "", fmt.Errorf("%w: %w", ErrDecrypt, err)
	}
	plain := make([]byte, len(ct))
	cipher.NewCBCDecrypter(block, []byte(salt)).CryptBlocks(plain, ct)
	pad := int(plain[len(plain)-1])
	if pad < 1 || pad > aes.BlockSize {
		return "", fmt.Errorf("%w: bad padding", ErrDecrypt)
	}
	plain = plain[:len(plain)-pad]
	// A wrong key yields garbage that mostly fails the padding check, and
	// otherwise is rarely UTF-8, which Graylog's passwords are.
	if !utf8.Valid(plain) {
		return "", fmt.Errorf("%w: the result is not text", ErrDecrypt)
	}
	return string(plain), nil
}
