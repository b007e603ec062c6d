package forward

import (
	"encoding/json"
	"errors"
	"fmt"
	"math"
	"net"
	"strconv"
	"strings"
	"time"
)

// Protocol is a GELF output's transport, as its protocol field names it.
type Protocol string

// The protocols of the GELF output.
const (
	TCP Protocol = "TCP"
	TLS Protocol = "TCP+TLS"
	UDP Protocol = "UDP"
)

// Defaults of the configuration, those of the GELF output type and of
// gelfclient's GelfConfiguration.
const (
	DefaultPort           = 12201
	DefaultConnectTimeout = time.Second
	DefaultReconnectDelay = 500 * time.Millisecond
	// DefaultQueueSize is gelfclient's queue_size default.
	DefaultQueueSize = 512
	// MaxQueueSize bounds queue_size: the queue is allocated up front.
	MaxQueueSize = 1 << 20
	// minReconnectDelay keeps a reconnect_delay of 0 from spinning on an
	// unreachable target.
	minReconnectDelay = time.Millisecond
)

// ErrConfig is wrapped by every configuration error.
var ErrConfig = errors.New("forward: invalid output configuration")

// Config is a GELF output's configuration. It is comparable: a Router
// restarts a forwarder exactly when its Config changes.
type Config struct {
	Hostname string
	Port     int
	Protocol Protocol
	// ConnectTimeout bounds a TCP connect and TLS handshake; 0 means no
	// bound but the operating system's.
	ConnectTimeout time.Duration
	// ReconnectDelay is the wait after a failed connect or a broken
	// connection.
	ReconnectDelay time.Duration
	// TCPNoDelay disables Nagle's algorithm.
	TCPNoDelay bool
	// TCPKeepAlive enables TCP keep-alive probes.
	TCPKeepAlive bool
	// TLSVerify verifies the server's certificate and name.
	TLSVerify bool
	// TLSTrustCertChain is a PEM file of the certificates to trust when
	// TLSVerify is set; empty means the system's roots.
	TLSTrustCertChain string
	// QueueSize is how many messages wait for the connection before new
	// ones are dropped.
	QueueSize int
}

// ParseConfig reads a GELF output's configuration map, as the outputs
// service stores it (numbers as int, float64 or json.Number; numeric and
// boolean strings are accepted too). hostname is required; the other
// fields take the output type's defaults. queue_size, which Graylog's
// output does not ask for, is read when present. Unknown keys are ignored.
// Errors wrap ErrConfig and name the field.
func ParseConfig(m map[string]any) (Config, error) {
	c := Config{
		Port:           DefaultPort,
		Protocol:       TCP,
		ConnectTimeout: DefaultConnectTimeout,
		ReconnectDelay: DefaultReconnectDelay,
		QueueSize:      DefaultQueueSize,
	}
	var errs []error
	fail := func(field, format string, args ...any) {
		errs = append(errs, fmt.Errorf("%w: %s: %s", ErrConfig, field, fmt.Sprintf(format, args...)))
	}

	if v, ok := m["hostname"]; ok && v != nil {
		s, ok := v.(string)
		if !ok {
			fail("hostname", "must be a string, got %s", describe(v))
		}
		c.Hostname = strings.TrimSpace(s)
	}
	if c.Hostname == "" && len(errs) == 0 {
		fail("hostname", "is required")
	}
	if n, ok, err := intField(m, "port"); err != nil {
		fail("port", "%v", err)
	} else if ok {
		if n < 1 || n > 65535 {
			fail("port", "must be between 1 and 65535, got %d", n)
		}
		c.Port = int(n)
	}
	if v, ok := m["protocol"]; ok && v != nil {
		s, _ := v.(string)
		switch p := Protocol(strings.ToUpper(strings.TrimSpace(s))); p {
		case TCP, TLS, UDP:
			c.Protocol = p
		default:
			fail("protocol", "must be TCP, TCP+TLS or UDP, got %s", describe(v))
		}
	}
	millis := func(key string, dst *time.Duration) {
		n, ok, err := intField(m, key)
		switch {
		case err != nil:
			fail(key, "%v", err)
		case !ok:
		case n < 0:
			fail(key, "must not be negative, got %d", n)
		default:
			*dst = time.Duration(n) * time.Millisecond
		}
	}
	millis("connect_timeout", &c.ConnectTimeout)
	millis("reconnect_delay", &c.ReconnectDelay)
	flag := func(key string, dst *bool) {
		if b, ok, err := boolField(m, key); err != nil {
			fail(key, "%v", err)
		} else if ok {
			*dst = b
		}
	}
	flag("tcp_no_delay", &c.TCPNoDelay)
	flag("tcp_keep_alive", &c.TCPKeepAlive)
	flag("tls_verification_enabled", &c.TLSVerify)
	if v, ok := m["tls_trust_cert_chain"]; ok && v != nil {
		s, ok := v.(string)
		if !ok {
			fail("tls_trust_cert_chain", "must be a string, got %s", describe(v))
		}
		c.TLSTrustCertChain = strings.TrimSpace(s)
	}
	if n, ok, err := intField(m, "queue_size"); err != nil {
		fail("queue_size", "%v", err)
	} else if ok {
		if n < 1 || n > MaxQueueSize {
			fail("queue_size", "must be between 1 and %d, got %d", MaxQueueSize, n)
		}
		c.QueueSize = int(n)
	}
	if err := errors.Join(errs...); err != nil {
		return Config{}, err
	}
	return c, nil
}

// intField reads a whole number; ok is false when the key is absent or
// null.
func intField(m map[string]any, key string) (n int64, ok bool, err error) {
	v, present := m[key]
	if !present || v == nil {
		return 0, false, nil
	}
	bad := fmt.Errorf("must be a whole number, got %s", describe(v))
	switch v := v.(type) {
	case int:
		return int64(v), true, nil
	case int64:
		return v, true, nil
	case int32:
		return int64(v), true, nil
	case float64:
		if v != math.Trunc(v) || v < math.MinInt32 || v > math.MaxInt32 {
			return 0, false, bad
		}
		return int64(v), true, nil
	case json.Number:
		n, err := strconv.ParseInt(string(v), 10, 32)
		if err != nil {
			return 0, false, bad
		}
		return n, true, nil
	case string:
		n, err := strconv.ParseInt(strings.TrimSpace(v), 10, 32)
		if err != nil {
			return 0, false, bad
		}
		return n, true, nil
	}
	return 0, false, bad
}

// boolField reads a boolean; ok is false when the key is absent or null.
func boolField(m map[string]any, key string) (b, ok bool, err error) {
	v, present := m[key]
	if !present || v == nil {
		return false, false, nil
	}
	switch v := v.(type) {
	case bool:
		return v, true, nil
	case string:
		switch strings.ToLower(strings.TrimSpace(v)) {
		case "true":
			return true, true, nil
		case "false":
			return false, true, nil
		}
	}
	return false, false, fmt.Errorf("must be true or false, got %s", describe(v))
}

// describe renders a bad value for an error message, bounded in length.
func describe(v any) string {
	s := fmt.Sprintf("%#v", v)
	if len(s) > 64 {
		s = strings.ToValidUTF8(s[:61], "") + "..."
	}
	return s
}

// address is the host:port to connect to.
func (c Config) address() string {
	return net.JoinHostPort(c.Hostname, strconv.Itoa(c.Port))
}

func (c Config) reconnectDelay() time.Duration {
	return max(c.ReconnectDelay, minReconnectDelay)
}
