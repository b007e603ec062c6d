package ldap

import (
	"context"
	"errors"
	"fmt"
	"time"

	goldap "github.com/go-ldap/ldap/v3"
)

// The errors of Authenticate, to be told apart with errors.Is. Every error
// Authenticate returns wraps exactly one of ErrInvalidCredentials,
// ErrUnknownUser, ErrUnavailable and ErrMisconfigured.
var (
	// ErrInvalidCredentials means the directory refused the user's password
	// (LDAP result 49 or another refusal of the user's bind), or the
	// password was empty and never sent.
	ErrInvalidCredentials = errors.New("ldap: invalid credentials")
	// ErrUnknownUser means the search found no entry for the username.
	// Callers answer as for invalid credentials.
	ErrUnknownUser = errors.New("ldap: unknown user")
	// ErrAmbiguousUser means more than one entry matched the username, so
	// nobody is authenticated. Errors wrapping it also wrap ErrUnknownUser,
	// which is how Graylog treats the case; it exists to be logged.
	ErrAmbiguousUser = errors.New("ldap: more than one entry matches the user")
	// ErrUnavailable means no answer came from the directory: it is down or
	// unreachable, timed out, failed the TLS handshake (an untrusted
	// certificate included), said it is busy or unavailable, or the
	// caller's context ended (the error then wraps ctx.Err() too).
	// Callers answer 503 unless another authenticator succeeds.
	ErrUnavailable = errors.New("ldap: directory unavailable")
	// ErrMisconfigured means the directory answered but the backend's
	// configuration is wrong: the system user's bind was refused, the
	// search base does not exist, the pattern is not a filter, the found
	// entry lacks the unique id attribute. Unlike ErrUnavailable it needs an
	// administrator, not a retry; callers still answer as Graylog 4.0
	// does for any directory failure (503 unless another authenticator
	// succeeds) and log it loudly.
	ErrMisconfigured = errors.New("ldap: backend misconfigured")
)

// unavailableResults are the LDAP result codes that say the server cannot
// serve now rather than that the request was wrong.
var unavailableResults = map[uint16]bool{
	goldap.LDAPResultTimeLimitExceeded: true,
	goldap.LDAPResultBusy:              true,
	goldap.LDAPResultUnavailable:       true,
	goldap.LDAPResultOther:             true, // slapd's answer to internal (database) errors
	goldap.LDAPResultServerDown:        true,
	goldap.LDAPResultTimeout:           true,
	goldap.LDAPResultConnectError:      true,
}

// serverResult returns the LDAP result code the server answered with, or
// false when err is not a server's answer: a network failure, a timeout, a
// closed connection, or go-ldap's own client-side codes (200 and up).
func serverResult(err error) (uint16, bool) {
	var le *goldap.Error
	if !errors.As(err, &le) || le.ResultCode >= goldap.ErrorNetwork {
		return 0, false
	}
	return le.ResultCode, true
}

// classify wraps err, which op failed with, in ErrUnavailable or
// ErrMisconfigured. An ended ctx wins: whatever the connection reported then
// is a consequence of aborting it.
func classify(ctx context.Context, op string, err error) error {
	if ctxErr := contextErr(ctx); ctxErr != nil {
		return fmt.Errorf("%w: %s: %w", ErrUnavailable, op, ctxErr)
	}
	code, ok := serverResult(err)
	switch {
	case !ok && goldap.IsErrorAnyOf(err, goldap.ErrorFilterCompile, goldap.ErrorEmptyPassword):
		return fmt.Errorf("%w: %s: %w", ErrMisconfigured, op, err)
	case !ok || unavailableResults[code]:
		return fmt.Errorf("%w: %s: %w", ErrUnavailable, op, err)
	default:
		return fmt.Errorf("%w: %s: %w", ErrMisconfigured, op, err)
	}
}

// contextErr is ctx.Err(), or DeadlineExceeded once ctx's deadline has
// passed: the socket shares that deadline and may time out a moment before
// the context's own timer marks it done.
func contextErr(ctx context.Context) error {
	if err := ctx.Err(); err != nil {
		return err
	}
	if d, ok := ctx.Deadline(); ok && !time.Now().Before(d) {
		return context.DeadlineExceeded
	}
	return nil
}
