// Package api owns the HTTP contract shared by every native 4.0 resource: the
// route declaration, the handler signature, Graylog's error body and the one
// place where errors become HTTP statuses.
package api

import (
	"context"
	"errors"
	"fmt"
	"net/http"
)

// Code classifies an error for the client. Each code maps to exactly one HTTP
// status in Status.
type Code int

// Error codes. They follow the statuses Graylog 4.0 answers with.
const (
	Internal      Code = iota // 500: a bug or an unexpected failure; details are logged, not shown
	Invalid                   // 400: the request is malformed or fails validation
	Unauthorized              // 401: credentials are missing or wrong
	Forbidden                 // 403: authenticated, but a permission is missing
	NotFound                  // 404: the resource does not exist
	NotAllowed                // 405: the path exists, the method does not
	Conflict                  // 409: the request conflicts with the stored state
	Gone                      // 410: the release the client speaks is no longer served
	TooLarge                  // 413: the request body exceeds the configured limit
	Unsupported               // 415: the request body has a media type the endpoint does not read
	Unavailable               // 503: a backing service is down; the client may retry
	NotModified               // 304: nothing changed (Graylog's user status endpoint)
	Unprocessable             // 422: well-formed, but not understood (a keyword that is no date)
)

var statuses = map[Code]int{
	Internal:      http.StatusInternalServerError,
	Invalid:       http.StatusBadRequest,
	Unauthorized:  http.StatusUnauthorized,
	Forbidden:     http.StatusForbidden,
	NotFound:      http.StatusNotFound,
	NotAllowed:    http.StatusMethodNotAllowed,
	Conflict:      http.StatusConflict,
	Gone:          http.StatusGone,
	TooLarge:      http.StatusRequestEntityTooLarge,
	Unsupported:   http.StatusUnsupportedMediaType,
	Unavailable:   http.StatusServiceUnavailable,
	NotModified:   http.StatusNotModified,
	Unprocessable: http.StatusUnprocessableEntity,
}

// Status returns the HTTP status for a code.
func (c Code) Status() int { return statuses[c] }

// Error is an error meant for the client: its Message is shown as is, in
// Graylog's {"type":"ApiError","message":…} body (or Body, when set). Err,
// when set, is the cause and is only logged.
type Error struct {
	Code    Code
	Message string
	Err     error

	// Header carries response headers that belong to the error, such as
	// WWW-Authenticate on a 401 or Retry-After on a 503.
	Header http.Header

	// Body, when set, is written instead of the ApiError body, for the
	// answers Graylog gives in another shape: a query that does not parse
	// (QueryParseError), a stream the caller may not read
	// (MissingStreamPermission), a failed validation of an authentication
	// service (ValidationResult). Message is then only logged.
	Body any
}

func (e *Error) Error() string {
	if e.Err != nil {
		return e.Message + ": " + e.Err.Error()
	}
	return e.Message
}

func (e *Error) Unwrap() error { return e.Err }

// Errorf returns an *Error with a formatted client message. A %w verb in the
// format wraps the cause as usual; the cause's text then appears in the message.
func Errorf(code Code, format string, args ...any) error {
	err := fmt.Errorf(format, args...)
	return &Error{Code: code, Message: err.Error(), Err: errors.Unwrap(err)}
}

// As returns err as an *Error of code, showing err's own text, when err is
// target (errors.Is) and carries no code yet (no *Error, no
// ValidationError); otherwise err as it is. A service gives a dependency's
// sentinel (a store's ErrNotFound) its status with it where the error
// leaves the service.
func As(err, target error, code Code) error {
	if ErrorCode(err) != Internal || !errors.Is(err, target) {
		return err
	}
	return &Error{Code: code, Message: err.Error(), Err: err}
}

// Wrap returns an *Error with a fixed client message and a cause that is only
// logged.
func Wrap(code Code, message string, cause error) error {
	return &Error{Code: code, Message: message, Err: cause}
}

// StatusClientClosed is the status of a request whose client hung up before
// the answer (nginx's 499): written for the access log, read by no one.
const StatusClientClosed = 499

// Cancelled reports whether err is the end of a request the client
// cancelled (it hung up, or timed out on its side): the request's context is
// done and err is, or wraps, context.Canceled. Such a request is not a
// server error, whatever the handler made of it.
func Cancelled(r *http.Request, err error) bool {
	return r != nil && r.Context().Err() != nil && errors.Is(err, context.Canceled)
}

// AfterStart marks err as one that happened after the response started (a
// streamed answer whose store read failed, or whose client hung up):
// WriteError then logs it and writes nothing more. Nil stays nil.
func AfterStart(err error) error {
	if err == nil {
		return nil
	}
	return &startedError{err}
}

type startedError struct{ err error }

func (e *startedError) Error() string { return e.err.Error() }
func (e *startedError) Unwrap() error { return e.err }

// ErrorCode returns the code of the first *Error in err's chain, Invalid for
// a ValidationError, or Internal. There is no other way to a code: a
// dependency's error (a store's ErrNotFound, a query's syntax error) is
// translated into an *Error by the service that called it, and one that no
// service translated is a 500, which tests catch.
func ErrorCode(err error) Code {
	var e *Error
	if errors.As(err, &e) {
		return e.Code
	}
	var v *ValidationError
	if errors.As(err, &v) {
		return Invalid
	}
	return Internal
}
