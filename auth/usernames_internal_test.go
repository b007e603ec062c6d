package auth

import (
	"context"
	"strings"
	"testing"
	"time"
	"unsafe"

	"github.com/loggate/loggate/auth/cache"
)

// The cache keys of usernames and ids are remembered by count; what each
// entry holds must be bounded too: an authenticated client may send path
// segments of up to a megabyte (net/http's header limit) as usernames, or a
// short one cut from a long path, which a remembered substring would keep
// whole.
func TestNameKeysHoldBoundedNames(t *testing.T) {
	ctx := context.Background()
	cc := NewCredentialCache(cache.NewMemory(100, time.Now), DeriveKeys("a secret of enough length"), CacheOptions{})
	unknown := func(context.Context) (string, error) { return "", context.Canceled }

	long := strings.Repeat("a", 1<<16)
	want := cc.keys.CacheKey(usernameKind, long)
	if got := cc.nameKey(usernameKind, long); got != want {
		t.Fatalf("key of a long name = %q, want %q", got, want)
	}
	_, _ = cc.UserID(ctx, long, unknown)
	_, _ = cc.Username(ctx, long, unknown)
	for _, k := range cc.nameKeys.Keys() {
		if len(k.name) > maxRememberedName {
			t.Errorf("a name of %d bytes is remembered", len(k.name))
		}
	}

	path := "/users/bob/tokens/" + strings.Repeat("x", 1<<16)
	name := path[len("/users/") : len("/users/")+3]
	_, _ = cc.UserID(ctx, name, unknown)
	start := uintptr(unsafe.Pointer(unsafe.StringData(path)))
	found := false
	for _, k := range cc.nameKeys.Keys() {
		if k.name != name {
			continue
		}
		found = true
		if p := uintptr(unsafe.Pointer(unsafe.StringData(k.name))); p >= start && p < start+uintptr(len(path)) {
			t.Error("the remembered name keeps the whole path it was cut from")
		}
	}
	if !found {
		t.Error("a short name's key is not remembered")
	}
}
