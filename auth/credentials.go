package auth

import (
	"encoding/base64"
	"strings"

	"github.com/loggate/loggate/router/api"
)

// Kind is the form of a Basic credential.
type Kind int

// Credential forms accepted in the Authorization header, as in Graylog.
const (
	None     Kind = iota // no usable credentials: anonymous
	Password             // <username>:<password>
	Token                // <access token>:token
	Session              // <session id>:session
)

// Credentials are the parsed Authorization header.
type Credentials struct {
	Kind Kind
	// User is the username, the token value or the session id.
	User string
	// Secret is the password; empty for tokens and sessions.
	Secret string
}

var errBadCredentials = &api.Error{Code: api.Invalid, Message: "Invalid credentials in Authorization header"}

// ParseAuthorization interprets an Authorization header value the way
// Graylog's security context filter does: only Basic counts; the decoded text
// is split at the first colon; the literal passwords "token" and "session"
// (any case) select the token and session forms; "undefined:session", which
// the web interface sends before it has a session, is anonymous. A Basic value
// that does not decode to user:secret is a 400.
func ParseAuthorization(header string) (Credentials, error) {
	scheme, rest, ok := strings.Cut(header, " ")
	if header == "" || !ok || !strings.EqualFold(scheme, "Basic") {
		return Credentials{}, nil
	}
	rest = strings.TrimSpace(rest)
	// Decoded on the stack when short, as credentials are: the string
	// made of it is then the one allocation. Decode needs DecodedLen of
	// its input, which counts unpadded input too: 344 characters without
	// padding decode to 258 bytes.
	var in [344]byte // the base64 of 256 bytes
	var buf [len(in) / 4 * 3]byte
	encoded, decoded := in[:copy(in[:], rest)], buf[:]
	if len(rest) > len(in) {
		encoded, decoded = []byte(rest), make([]byte, base64.StdEncoding.DecodedLen(len(rest)))
	}
	n, err := base64.StdEncoding.Decode(decoded, encoded)
	if err != nil {
		return Credentials{}, errBadCredentials
	}
	plain := string(decoded[:n])
	clear(decoded[:n])
	user, secret, ok := strings.Cut(plain, ":")
	if !ok {
		return Credentials{}, errBadCredentials
	}
	switch {
	case strings.EqualFold(secret, "session"):
		if user == "undefined" || user == "" {
			return Credentials{}, nil
		}
		return Credentials{Kind: Session, User: user}, nil
	case strings.EqualFold(secret, "token"):
		if user == "" {
			return Credentials{}, errBadCredentials
		}
		return Credentials{Kind: Token, User: user}, nil
	}
	return Credentials{Kind: Password, User: user, Secret: secret}, nil
}
