package mongo

import (
	"context"
	"errors"
	"fmt"
	"net/url"
	"strings"

	"go.mongodb.org/mongo-driver/mongo"
	"go.mongodb.org/mongo-driver/x/mongo/driver/topology"

	"github.com/loggate/loggate/backend/store"
)

// unavailableCodes are server error codes meaning that this server cannot
// serve the request now but another, or the same one later, can: no primary
// (an election or a step-down), shutdown, or a network failure between
// servers.
var unavailableCodes = []int{
	6,     // HostUnreachable
	7,     // HostNotFound
	89,    // NetworkTimeout
	91,    // ShutdownInProgress
	189,   // PrimarySteppedDown
	262,   // ExceededTimeLimit
	9001,  // SocketException
	10107, // NotWritablePrimary
	11600, // InterruptedAtShutdown
	11602, // InterruptedDueToReplStateChange
	13435, // NotPrimaryNoSecondaryOk
	13436, // NotPrimaryOrSecondary
}

// unavailable reports whether err means that the store cannot be reached,
// as opposed to a refused request.
func unavailable(err error) bool {
	if errors.Is(err, mongo.ErrClientDisconnected) || mongo.IsNetworkError(err) || mongo.IsTimeout(err) {
		return true
	}
	if errors.As(err, new(topology.ServerSelectionError)) || errors.Is(err, topology.ErrTopologyClosed) {
		return true
	}
	var se mongo.ServerError
	if errors.As(err, &se) {
		if se.HasErrorLabel("RetryableWriteError") || se.HasErrorLabel("NetworkError") {
			return true
		}
		for _, code := range unavailableCodes {
			if se.HasErrorCode(code) {
				return true
			}
		}
	}
	return false
}

// fail gives an error of operation op the store's context and its class: a
// caller's cancelled context as is, store.ErrConflict for a duplicate key,
// store.ErrUnavailable when the server cannot be reached.
func (s *Store) fail(ctx context.Context, op, coll, id string, err error) error {
	if err == nil {
		return nil
	}
	what := coll
	if id != "" {
		what += fmt.Sprintf(" %q", id)
	}
	if cerr := ctx.Err(); cerr != nil {
		return fmt.Errorf("%s %s: %w", op, what, cerr)
	}
	switch {
	case duplicate(err):
		return fmt.Errorf("%s %s: %w: %w", op, what, store.ErrConflict, err)
	case unavailable(err):
		return fmt.Errorf("%s %s: %w: MongoDB at %s did not answer: %w", op, what, store.ErrUnavailable, s.hosts, err)
	}
	return fmt.Errorf("%s %s: MongoDB at %s: %w", op, what, s.hosts, err)
}

// duplicate reports whether err is a unique index violation. FerretDB
// reports those of updates as internal errors quoting SQLite's message.
func duplicate(err error) bool {
	if mongo.IsDuplicateKeyError(err) {
		return true
	}
	var se mongo.ServerError
	return errors.As(err, &se) && strings.Contains(err.Error(), "UNIQUE constraint failed")
}

// Redact returns uri with its password replaced by "xxxxx", for messages.
// A URI that does not parse is replaced as a whole unless it has no user
// information.
func Redact(uri string) string {
	u, err := url.Parse(uri)
	if err != nil {
		if userinfo(uri) == "" {
			return uri
		}
		return "(unparsable URI with credentials)"
	}
	if u.User == nil && userinfo(uri) != "" {
		// A password with an unescaped "/" parses as a host and a path:
		// "mongodb://admin:1234/s3cr3t@db" is host "admin:1234".
		return "(unparsable URI with credentials)"
	}
	if _, ok := u.User.Password(); ok {
		u.User = url.UserPassword(u.User.Username(), "xxxxx")
	}
	return u.String()
}

// userinfo returns the part of uri between "://" and the last "@" before
// its options, or "". A "/" does not end it: a password may hold one
// unescaped, which the driver refuses with an error that quotes the URI.
func userinfo(uri string) string {
	_, rest, ok := strings.Cut(uri, "://")
	if !ok {
		return ""
	}
	if i := strings.IndexByte(rest, '?'); i >= 0 {
		rest = rest[:i]
	}
	i := strings.LastIndex(rest, "@")
	if i < 0 {
		return ""
	}
	return rest[:i]
}

// redactedError hides the credentials of a URI in the message of an error
// from the driver, which may quote parts of the URI it could not parse.
type redactedError struct {
	err     error
	secrets []string
}

func (e *redactedError) Error() string {
	msg := e.err.Error()
	for _, s := range e.secrets {
		msg = strings.ReplaceAll(msg, s, "xxxxx")
	}
	return msg
}

func (e *redactedError) Unwrap() error { return e.err }

// redactErr wraps err so that its message holds none of uri's credentials.
func redactErr(err error, uri string) error {
	info := userinfo(uri)
	if err == nil || info == "" {
		return err
	}
	secrets := []string{info}
	_, pass, ok := strings.Cut(info, ":")
	if ok && pass != "" {
		secrets = append(secrets, pass)
		if p, err := url.PathUnescape(pass); err == nil && p != pass {
			secrets = append(secrets, p)
		}
	}
	return &redactedError{err: err, secrets: secrets}
}
