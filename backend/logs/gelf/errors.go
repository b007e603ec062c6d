package gelf

import (
	"errors"
	"fmt"
)

// ErrInvalid is wrapped by every error caused by the input itself: bad
// compression, bad JSON, a failed validation, a bad chunk header. HTTP inputs
// answer such errors with 400; UDP and TCP inputs count the message as
// dropped and keep reading.
var ErrInvalid = errors.New("gelf: invalid message")

// ErrTooLarge is returned when a payload decompresses to more than
// Options.MaxDecompressed bytes. It wraps ErrInvalid.
var ErrTooLarge = fmt.Errorf("%w: decompressed size exceeds the limit", ErrInvalid)

// invalidf returns an error wrapping ErrInvalid with the reason.
func invalidf(format string, args ...any) error {
	return fmt.Errorf("%w: "+format, append([]any{ErrInvalid}, args...)...)
}
