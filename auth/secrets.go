package auth

import (
	"context"
	"crypto/aes"
	"crypto/cipher"
	"crypto/hmac"
	"crypto/rand"
	"crypto/sha256"
	"crypto/subtle"
	"encoding/base64"
	"encoding/hex"
	"errors"
	"fmt"
	"hash"
	"io"
	"math/big"
	"runtime"
	"strings"
	"sync"

	"github.com/loggate/loggate/router/api"
	"golang.org/x/crypto/bcrypt"
	"golang.org/x/crypto/hkdf"
)

// BcryptCost is the cost of stored password hashes: Graylog's default
// (user_password_bcrypt_salt_size = 10).
const BcryptCost = 10

// Keys are the secrets derived from password_secret. Each use gets its own
// key so that one leaking (a cache key, say) reveals nothing of the others.
type Keys struct {
	cache       []byte     // keyed hashes of credentials in the cache
	tokenLookup *keyedHash // under which a token is found in the store
	tokenCipher []byte     // AES-256-GCM key of stored token values
	sessionKey  *keyedHash // under which a session is stored
	pool        sync.Pool
	secret      string
}

// DeriveKeys derives the keys from password_secret with HKDF-SHA256.
func DeriveKeys(passwordSecret string) *Keys {
	derive := func(info string) []byte {
		k := make([]byte, 32)
		r := hkdf.New(sha256.New, []byte(passwordSecret), []byte("loggate"), []byte(info))
		if _, err := io.ReadFull(r, k); err != nil {
			panic(err) // HKDF cannot fail for 32 bytes of SHA-256 output
		}
		return k
	}
	k := &Keys{
		secret:      passwordSecret,
		cache:       derive("credential cache key"),
		tokenLookup: newKeyedHash(derive("access token lookup key")),
		tokenCipher: derive("access token encryption key"),
		sessionKey:  newKeyedHash(derive("session id lookup key")),
	}
	k.pool.New = func() any { return &hasher{mac: hmac.New(sha256.New, k.cache)} }
	return k
}

// CacheKey returns the cache key of a credential: a keyed hash, so that
// neither Redis nor a memory dump ever holds the secret itself.
func (k *Keys) CacheKey(kind Kind, parts ...string) string {
	h := k.pool.Get().(*hasher)
	h.mac.Reset()
	h.in = h.in[:0]
	for _, p := range parts {
		h.in = append(append(h.in, p...), 0)
	}
	h.mac.Write(h.in)
	h.sum = h.mac.Sum(h.sum[:0])
	clear(h.in)          // credentials do not linger in the pool
	var buf [2 + 43]byte // 43 = unpadded base64 of 32 bytes; a stack buffer saves an allocation
	buf[0] = "nptsxui"[kind]
	buf[1] = ':'
	base64.RawURLEncoding.Encode(buf[2:], h.sum)
	k.pool.Put(h)
	return string(buf[:])
}

// valueMAC authenticates a cache value under its key.
func (k *Keys) valueMAC(key, value string) string {
	h := k.pool.Get().(*hasher)
	h.mac.Reset()
	h.in = append(append(append(append(h.in[:0], "value\x00"...), key...), 0), value...)
	h.mac.Write(h.in)
	h.sum = h.mac.Sum(h.sum[:0])
	defer k.pool.Put(h)
	return base64.RawURLEncoding.EncodeToString(h.sum)
}

// TokenLookup returns the keyed hash under which a token value is stored.
func (k *Keys) TokenLookup(token string) string { return k.tokenLookup.hex(token) }

// SessionKey returns the keyed hash under which a session is stored and
// cached: a copy of the store or of the cache holds no session id, so it
// logs no one in.
func (k *Keys) SessionKey(sessionID string) string { return k.sessionKey.hex(sessionID) }

// sessionCacheKey returns the cache key of a session id and, within it, the
// session's key: sessionCacheKey(SessionKey(id)) in one allocation, as a
// session is looked up on every request it authenticates.
func (k *Keys) sessionCacheKey(sessionID string) (cacheKey, sessionKey string) {
	key := k.sessionKey.hexAfter(sessionCachePrefix, sessionID)
	return key, key[len(sessionCachePrefix):]
}

// keyedHash is HMAC-SHA256 under one key, its hashers pooled: a session's
// key is taken on every request it authenticates.
type keyedHash struct{ pool sync.Pool }

// hasher is a pooled HMAC and a buffer for its input, which a []byte(v)
// conversion would allocate on every call.
type hasher struct {
	mac hash.Hash
	in  []byte
	sum []byte // the output, which a stack array passed to Sum would not stay
}

func newKeyedHash(key []byte) *keyedHash {
	k := &keyedHash{}
	k.pool.New = func() any { return &hasher{mac: hmac.New(sha256.New, key)} }
	return k
}

// hex returns the hash of v in lower-case hex.
func (k *keyedHash) hex(v string) string { return k.hexAfter("", v) }

// hexAfter returns prefix followed by hex(v), made in one allocation.
func (k *keyedHash) hexAfter(prefix, v string) string {
	h := k.pool.Get().(*hasher)
	h.mac.Reset()
	h.in = append(h.in[:0], v...)
	h.mac.Write(h.in)
	h.sum = h.mac.Sum(h.sum[:0])
	clear(h.in) // secrets do not linger in the pool
	var buf [8 + 2*sha256.Size]byte
	out := append(buf[:0], prefix...)
	out = hex.AppendEncode(out, h.sum)
	k.pool.Put(h)
	return string(out)
}

// SealToken encrypts a token value for storage.
func (k *Keys) SealToken(token string) (string, error) {
	gcm, err := k.gcm()
	if err != nil {
		return "", err
	}
	nonce := make([]byte, gcm.NonceSize())
	if _, err := rand.Read(nonce); err != nil {
		return "", fmt.Errorf("token nonce: %w", err)
	}
	return base64.StdEncoding.EncodeToString(gcm.Seal(nonce, nonce, []byte(token), nil)), nil
}

// OpenToken decrypts a stored token value.
func (k *Keys) OpenToken(sealed string) (string, error) {
	raw, err := base64.StdEncoding.DecodeString(sealed)
	if err != nil {
		return "", fmt.Errorf("stored token: %w", err)
	}
	gcm, err := k.gcm()
	if err != nil {
		return "", err
	}
	if len(raw) < gcm.NonceSize() {
		return "", errors.New("stored token: too short")
	}
	plain, err := gcm.Open(nil, raw[:gcm.NonceSize()], raw[gcm.NonceSize():], nil)
	if err != nil {
		return "", fmt.Errorf("stored token (was password_secret changed?): %w", err)
	}
	return string(plain), nil
}

func (k *Keys) gcm() (cipher.AEAD, error) {
	block, err := aes.NewCipher(k.tokenCipher)
	if err != nil {
		return nil, fmt.Errorf("token cipher: %w", err)
	}
	return cipher.NewGCM(block)
}

// Sealer encrypts secrets of one kind for storage (AES-256-GCM), under a key
// derived from password_secret for that kind alone.
type Sealer struct {
	purpose string
	aead    cipher.AEAD
}

// Sealer returns the sealer of one kind of stored secret, such as
// "authentication backend system password". The purpose is also bound into
// every sealed value, so a value sealed for one purpose never opens as another.
func (k *Keys) Sealer(purpose string) *Sealer {
	key := make([]byte, 32)
	r := hkdf.New(sha256.New, []byte(k.secret), []byte("loggate"), []byte("sealed secret: "+purpose))
	if _, err := io.ReadFull(r, key); err != nil {
		panic(err) // HKDF cannot fail for 32 bytes of SHA-256 output
	}
	block, err := aes.NewCipher(key)
	if err != nil {
		panic(err) // a 32-byte key is always valid
	}
	aead, err := cipher.NewGCM(block)
	if err != nil {
		panic(err)
	}
	return &Sealer{purpose: purpose, aead: aead}
}

// Seal encrypts a secret; the result is printable.
func (s *Sealer) Seal(plain string) (string, error) {
	nonce := make([]byte, s.aead.NonceSize())
	if _, err := rand.Read(nonce); err != nil {
		return "", fmt.Errorf("seal %s: %w", s.purpose, err)
	}
	return base64.StdEncoding.EncodeToString(s.aead.Seal(nonce, nonce, []byte(plain), []byte(s.purpose))), nil
}

// Open decrypts a value made by Seal.
func (s *Sealer) Open(sealed string) (string, error) {
	raw, err := base64.StdEncoding.DecodeString(sealed)
	if err != nil || len(raw) < s.aead.NonceSize() {
		return "", fmt.Errorf("open %s: malformed sealed value", s.purpose)
	}
	n := s.aead.NonceSize()
	plain, err := s.aead.Open(nil, raw[:n], raw[n:], []byte(s.purpose))
	if err != nil {
		return "", fmt.Errorf("open %s (was password_secret changed?): %w", s.purpose, err)
	}
	return string(plain), nil
}

// NewTokenValue returns a new access token: 256 random bits written in base 32
// with the digits 0-9a-v, as Graylog writes them (at most 52 characters).
func NewTokenValue() (string, error) {
	var b [32]byte
	if _, err := rand.Read(b[:]); err != nil {
		return "", fmt.Errorf("token: %w", err)
	}
	return new(big.Int).SetBytes(b[:]).Text(32), nil
}

// bcryptSlots bounds the bcrypt work of the whole process (each hash or
// comparison is ~50-80 ms of CPU) to half the CPUs, so that password logins,
// guesses and changes cannot starve the requests that authenticate by token
// or session.
var bcryptSlots = make(chan struct{}, max(1, runtime.GOMAXPROCS(0)/2))

func acquire(ctx context.Context) error {
	select {
	case bcryptSlots <- struct{}{}:
		return nil
	case <-ctx.Done():
		return ctx.Err()
	}
}

func release() { <-bcryptSlots }

// HashPassword returns the bcrypt hash of a password.
func HashPassword(password string) (string, error) {
	_ = acquire(context.Background())
	defer release()
	h, err := bcrypt.GenerateFromPassword([]byte(password), BcryptCost)
	if errors.Is(err, bcrypt.ErrPasswordTooLong) {
		// bcrypt reads 72 bytes; Graylog's jBCrypt ignored the rest.
		return "", api.Errorf(api.Invalid, "Password must be at most 72 bytes long")
	}
	if err != nil {
		return "", fmt.Errorf("hash password: %w", err)
	}
	return string(h), nil
}

// sha256Prefix marks a hash taken from root_password_sha2: an unsalted
// SHA-256, as Graylog's configuration file holds it.
const sha256Prefix = "{sha256}"

// RootPasswordHash turns a root_password_sha2 value into a stored hash.
func RootPasswordHash(sha2hex string) string { return sha256Prefix + strings.ToLower(sha2hex) }

// CheckPassword reports whether password matches a stored hash: bcrypt, or a
// root_password_sha2 value. Comparisons take constant time.
func CheckPassword(stored, password string) bool {
	ok, _ := CheckPasswordContext(context.Background(), stored, password)
	return ok
}

// CheckPasswordContext is CheckPassword that gives up waiting for a bcrypt
// slot when ctx ends.
func CheckPasswordContext(ctx context.Context, stored, password string) (bool, error) {
	if hexsum, ok := strings.CutPrefix(stored, sha256Prefix); ok {
		sum := sha256.Sum256([]byte(password))
		return subtle.ConstantTimeCompare([]byte(hex.EncodeToString(sum[:])), []byte(hexsum)) == 1, nil
	}
	if stored == "" {
		return false, nil
	}
	if err := acquire(ctx); err != nil {
		return false, err
	}
	defer release()
	return bcrypt.CompareHashAndPassword([]byte(stored), []byte(password)) == nil, nil
}
