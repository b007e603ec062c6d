package api

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"io"
	"log/slog"
	"net/http"
	"reflect"
	"sort"
	"strconv"
	"strings"
)

// Marshal encodes v as Jackson does: <, > and & are written as they are,
// not as \u003c, \u003e and \u0026 (encoding/json's default), so that
// answers can be compared byte for byte with Graylog's and grepped for
// search patterns, which are full of them. Every response body is encoded
// with it.
func Marshal(v any) ([]byte, error) {
	var b bytes.Buffer
	enc := json.NewEncoder(&b)
	enc.SetEscapeHTML(false)
	if err := enc.Encode(v); err != nil {
		return nil, err
	}
	return bytes.TrimSuffix(b.Bytes(), []byte("\n")), nil
}

// WriteJSON writes v as a JSON response with the given status.
func WriteJSON(w http.ResponseWriter, status int, v any) {
	buf, err := Marshal(v)
	if err != nil {
		// Only a programming error (an unmarshalable type) gets here.
		WriteError(w, nil, err)
		return
	}
	WriteRawJSON(w, status, buf)
}

// WriteRawJSON writes an already encoded JSON document.
func WriteRawJSON(w http.ResponseWriter, status int, buf []byte) {
	h := w.Header()
	// Set directly, under canonical names: no allocation for the type.
	h["Content-Type"] = jsonContentType
	h["Content-Length"] = contentLength(len(buf))
	w.WriteHeader(status)
	_, _ = w.Write(buf)
}

// contentLengths are the Content-Length values of answers shorter than
// their count, made once: most answers are small, and a header value built
// per request cost two allocations. Each has no room to grow, so a caller
// that appends to one gets a copy.
var contentLengths = func() [][]string {
	v := make([][]string, 4096)
	for n := range v {
		v[n] = []string{strconv.Itoa(n)}[:1:1]
	}
	return v
}()

func contentLength(n int) []string {
	if n < len(contentLengths) {
		return contentLengths[n]
	}
	return []string{strconv.Itoa(n)}
}

// jsonContentType is the Content-Type value of JSON answers, shared by all
// of them (net/http only reads it).
var jsonContentType = []string{"application/json"}

// ErrorBody is Graylog's generic error body.
type ErrorBody struct {
	Type    string `json:"type"`
	Message string `json:"message"`
}

// WriteError is the one place where an error becomes an HTTP response. Client
// errors are shown with their message, or the body they carry; anything else
// is logged with the request's logger and shown as a generic message, so
// internals never leak.
func WriteError(w http.ResponseWriter, r *http.Request, err error) {
	var started *startedError
	afterStart := errors.As(err, &started)
	if Cancelled(r, err) {
		// The client hung up: no one reads the answer, and the server
		// did nothing wrong.
		Logger(r.Context()).DebugContext(r.Context(), "request cancelled by the client", "err", err, "request_id", RequestID(r.Context()))
		if !afterStart {
			w.WriteHeader(StatusClientClosed)
		}
		return
	}
	if afterStart {
		// The status is out and the body under way: an error body would
		// only corrupt it. The answer ends short; the log says why.
		ctx := r.Context()
		Logger(ctx).ErrorContext(ctx, "response failed after it started", "err", err, "request_id", RequestID(ctx))
		return
	}
	var e *Error
	isError := errors.As(err, &e)
	var verr *ValidationError
	if (!isError || e.Body == nil) && errors.As(err, &verr) {
		WriteJSON(w, http.StatusBadRequest, verr.body())
		return
	}
	code := ErrorCode(err)
	var body any = ErrorBody{Type: "ApiError", Message: "Internal error, see the server log"}
	if isError {
		switch {
		case e.Body != nil:
			body = e.Body
		case e.Message != "":
			body = ErrorBody{Type: "ApiError", Message: e.Message}
		}
		for k, v := range e.Header {
			w.Header()[k] = v
		}
	}
	if code == Internal || code == Unavailable {
		ctx := context.Background()
		if r != nil {
			ctx = r.Context()
		}
		level := slog.LevelError
		if code == Unavailable {
			level = slog.LevelWarn
		}
		Logger(ctx).Log(ctx, level, "request failed", "err", err, "request_id", RequestID(ctx))
	}
	if code == NotModified {
		w.WriteHeader(http.StatusNotModified)
		return
	}
	WriteJSON(w, code.Status(), body)
}

type ctxKey int

const (
	loggerKey ctxKey = iota
	requestIDKey
)

// WithLogger returns a context carrying the request's logger.
func WithLogger(ctx context.Context, l *slog.Logger) context.Context {
	return context.WithValue(ctx, loggerKey, l)
}

// Logger returns the request's logger, or slog's default.
func Logger(ctx context.Context) *slog.Logger {
	var l *slog.Logger
	switch v := ctx.Value(loggerKey).(type) {
	case *slog.Logger:
		l = v
	case *requestContext:
		l = v.logger
	}
	if l == nil {
		return slog.Default()
	}
	return l
}

// WithRequestID returns a context carrying the request id.
func WithRequestID(ctx context.Context, id string) context.Context {
	return context.WithValue(ctx, requestIDKey, id)
}

// RequestID returns the request id set by the router, or "".
func RequestID(ctx context.Context) string {
	switch v := ctx.Value(requestIDKey).(type) {
	case string:
		return v
	case *requestContext:
		if v.seq == 0 {
			return ""
		}
		// Made when asked for (a log line), not for every request.
		return strconv.FormatUint(v.seq, 36)
	}
	return ""
}

// WithRequest returns a context carrying what the router gives every
// request: its id (seq, a sequence number, written in base 36; 0 for
// none), its logger and the public URI of the API root. It is
// WithRequestID, WithLogger and WithBaseURI in one value, so that a request
// costs one context allocation, not three; each of those set later, on the
// returned context, still takes precedence.
func WithRequest(ctx context.Context, seq uint64, l *slog.Logger, base string) context.Context {
	return &requestContext{Context: ctx, seq: seq, logger: l, base: strings.TrimSuffix(base, "/")}
}

// requestContext answers the keys of WithRequest with itself (the getters
// take the field they want, so a lookup boxes no string) and passes others
// to its parent. It also holds what later layers of the router learn about
// the request (the principal, the client's release, the route's path
// variables) in slots set in place, so that each costs no copy of the
// request: see SetValue and SetVars.
type requestContext struct {
	context.Context
	seq    uint64
	logger *slog.Logger
	base   string
	// vars are the matched route's path variables (SetVars).
	vars map[string]string
	// slots hold SetValue's values, first free slot first.
	slots [3]struct{ key, val any }
}

func (c *requestContext) Value(key any) any {
	switch key {
	case loggerKey, requestIDKey, baseKey{}, requestKey{}:
		return c
	}
	for _, s := range &c.slots {
		if s.key == nil {
			break
		}
		if s.key == key {
			return s.val
		}
	}
	return c.Context.Value(key)
}

// requestKey finds the requestContext under contexts derived from it.
type requestKey struct{}

// SetValue returns r with val under key in its context, as
// r.WithContext(context.WithValue(r.Context(), key, val)) would, but
// without copying r when its context is the router's request context
// itself: the value is then set in place, and contexts derived from r's
// before the call see it too. The router's layers use it for what they
// learn about a request before the handler runs, one after the other.
func SetValue(r *http.Request, key, val any) *http.Request {
	if c, ok := r.Context().(*requestContext); ok {
		for i := range c.slots {
			if s := &c.slots[i]; s.key == nil || s.key == key {
				s.key, s.val = key, val
				return r
			}
		}
	}
	return r.WithContext(context.WithValue(r.Context(), key, val))
}

// Decode reads a JSON request body into v. Strict decoding refuses properties
// v does not know, as Graylog's strict request models do, with Graylog's
// "Unable to map property" message. An empty body is an error: every endpoint
// that reads a body needs one.
func Decode(r *http.Request, v any, strict bool) error {
	body, err := ReadBody(r)
	if err != nil {
		return err
	}
	return DecodeBytes(body, v, strict)
}

// ReadBody reads a request body, which may be empty, answering a body over
// the configured limit with 413. Every reader of a whole request body uses
// it, so that the 413 reads the same everywhere.
func ReadBody(r *http.Request) ([]byte, error) {
	body, err := io.ReadAll(r.Body)
	if err != nil {
		var tooLarge *http.MaxBytesError
		if errors.As(err, &tooLarge) {
			return nil, Errorf(TooLarge, "Request body is larger than the limit of %d bytes", tooLarge.Limit)
		}
		return nil, Wrap(Invalid, "Unable to read the request body", err)
	}
	return body, nil
}

// DecodeBytes is Decode on a body already read.
func DecodeBytes(body []byte, v any, strict bool) error {
	if len(bytes.TrimSpace(body)) == 0 {
		return Errorf(Invalid, "Request body is mandatory")
	}
	dec := json.NewDecoder(bytes.NewReader(body))
	if strict {
		dec.DisallowUnknownFields()
	}
	if err := dec.Decode(v); err != nil {
		return jsonError(err, body, v)
	}
	// Anything but whitespace after the value is refused; dec.More would
	// let a stray } or ] through.
	if off := dec.InputOffset(); !jsonSpace(body[off:]) {
		return Errorf(Invalid, "Unable to parse JSON: unexpected data after the JSON value at offset %d", off)
	}
	return nil
}

// jsonSpace reports whether b holds only JSON whitespace.
func jsonSpace(b []byte) bool {
	for _, c := range b {
		switch c {
		case ' ', '\t', '\n', '\r':
		default:
			return false
		}
	}
	return true
}

func jsonError(err error, body []byte, v any) error {
	var syntax *json.SyntaxError
	var typ *json.UnmarshalTypeError
	switch {
	case errors.As(err, &syntax):
		line, col := position(body, syntax.Offset)
		return Errorf(Invalid, "Unable to parse JSON: %s at line %d, column %d", syntax.Error(), line, col)
	case errors.Is(err, io.ErrUnexpectedEOF):
		return Errorf(Invalid, "Unable to parse JSON: unexpected end of input")
	case errors.As(err, &typ):
		field := typ.Field
		if field == "" {
			return Errorf(Invalid, "Unable to parse JSON: expected %s, got a JSON %s", typ.Type, typ.Value)
		}
		return Errorf(Invalid, "Unable to parse JSON: property %s must be %s, got a JSON %s", field, jsonType(typ.Type), typ.Value)
	case strings.HasPrefix(err.Error(), "json: unknown field "):
		name := strings.Trim(strings.TrimPrefix(err.Error(), "json: unknown field "), `"`)
		return Errorf(Invalid, "Unable to map property %s.\nKnown properties include: %s", name, strings.Join(knownProperties(v), ", "))
	}
	return Errorf(Invalid, "Unable to parse JSON: %s", err.Error())
}

func jsonType(t reflect.Type) string {
	switch t.Kind() {
	case reflect.String:
		return "a string"
	case reflect.Bool:
		return "a boolean"
	case reflect.Slice, reflect.Array:
		return "an array"
	case reflect.Map, reflect.Struct:
		return "an object"
	case reflect.Int, reflect.Int8, reflect.Int16, reflect.Int32, reflect.Int64,
		reflect.Uint, reflect.Uint8, reflect.Uint16, reflect.Uint32, reflect.Uint64:
		return "an integer"
	case reflect.Float32, reflect.Float64:
		return "a number"
	case reflect.Pointer:
		return jsonType(t.Elem())
	}
	return t.String()
}

func position(body []byte, offset int64) (line, col int) {
	if offset > int64(len(body)) {
		offset = int64(len(body))
	}
	line, col = 1, 1
	for _, c := range body[:offset] {
		if c == '\n' {
			line++
			col = 1
		} else {
			col++
		}
	}
	return line, col
}

func knownProperties(v any) []string {
	t := reflect.TypeOf(v)
	for t != nil && t.Kind() == reflect.Pointer {
		t = t.Elem()
	}
	if t == nil || t.Kind() != reflect.Struct {
		return nil
	}
	var names []string
	for i := 0; i < t.NumField(); i++ {
		f := t.Field(i)
		name, _, _ := strings.Cut(f.Tag.Get("json"), ",")
		if name == "-" || !f.IsExported() {
			continue
		}
		if name == "" {
			name = f.Name
		}
		names = append(names, name)
	}
	sort.Strings(names)
	return names
}
