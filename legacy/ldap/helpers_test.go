package ldap_test

import (
	"bytes"
	"context"
	"crypto/aes"
	"crypto/cipher"
	"encoding/hex"
	"errors"
	"log/slog"
	"path/filepath"
	"slices"
	"sync"
	"testing"
	"time"

	"github.com/loggate/loggate/auth"
	"github.com/loggate/loggate/backend/access/authservices"
	"github.com/loggate/loggate/backend/access/roles"
	"github.com/loggate/loggate/backend/store"
	"github.com/loggate/loggate/backend/store/bolt"
	legacyldap "github.com/loggate/loggate/legacy/ldap"
)

var epoch = time.Date(2021, 3, 4, 5, 6, 7, 0, time.UTC)

// env is a legacy LDAP service on a real store with the real role and
// backend services.
type env struct {
	st       store.Store
	roles    *roles.Service
	backends *authservices.Service
	svc      *legacyldap.Service
	logs     *syncBuffer
}

type syncBuffer struct {
	mu sync.Mutex
	b  bytes.Buffer
}

func (s *syncBuffer) Write(p []byte) (int, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.Write(p)
}

func (s *syncBuffer) String() string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.String()
}

func newEnv(t *testing.T) *env {
	t.Helper()
	st, err := bolt.Open(filepath.Join(t.TempDir(), "db"), roles.Indexes)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = st.Close() })
	rs, err := roles.NewService(context.Background(), st)
	if err != nil {
		t.Fatal(err)
	}
	e := &env{st: st, roles: rs, logs: &syncBuffer{}}
	e.backends = authservices.NewService(st, auth.DeriveKeys("test-secret-0123456789").Sealer("test"), backendRoles{rs}, func() time.Time { return epoch })
	e.svc = legacyldap.NewService(e.backends, legacyldap.RoleService(rs), st, slog.New(slog.NewTextHandler(e.logs, nil)))
	return e
}

// roleID returns the id of a built-in role.
func (e *env) roleID(t *testing.T, name string) string {
	t.Helper()
	r, err := e.roles.ByName(context.Background(), name)
	if err != nil {
		t.Fatal(err)
	}
	return r.ID
}

// onlyBackend returns the one stored backend.
func (e *env) onlyBackend(t *testing.T) authservices.Backend {
	t.Helper()
	bs, err := e.backends.List(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	if len(bs) != 1 {
		t.Fatalf("%d backends, want 1: %+v", len(bs), bs)
	}
	return bs[0]
}

// backendRoles answers the backends' role questions from the role service.
type backendRoles struct{ r *roles.Service }

func (b backendRoles) Exists(ctx context.Context, id string) (bool, error) {
	_, err := b.r.ByID(ctx, id)
	if errors.Is(err, store.ErrNotFound) {
		return false, nil
	}
	return err == nil, err
}

func (b backendRoles) Titles(ctx context.Context, ids []string) (map[string]string, error) {
	out := map[string]string{}
	for _, id := range ids {
		if r, err := b.r.ByID(ctx, id); err == nil {
			out[id] = r.Name
		}
	}
	return out, nil
}

// encryptLegacy encrypts as Graylog 3.x's AESTools.encrypt: AES/CBC with
// ISO 10126 padding (filler bytes, then the pad length), hex.
func encryptLegacy(t testing.TB, plain, salt, secret string, filler byte) string {
	t.Helper()
	block, err := aes.NewCipher([]byte(secret[:16]))
	if err != nil {
		t.Fatal(err)
	}
	pad := aes.BlockSize - len(plain)%aes.BlockSize
	b := append([]byte(plain), slices.Repeat([]byte{filler}, pad-1)...)
	b = append(b, byte(pad))
	out := make([]byte, len(b))
	cipher.NewCBCEncrypter(block, []byte(salt)).CryptBlocks(out, b)
	return hex.EncodeToString(out)
}

func ptr[T any](v T) *T { return &v }
