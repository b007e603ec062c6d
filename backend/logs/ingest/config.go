package ingest

import (
	"encoding/json"
	"fmt"
	"math"
	"net"
	"strconv"
	"strings"
	"time"

	"github.com/loggate/loggate/backend/logs/inputs"
)

// config is an input's configuration as the runner uses it: typed, with the
// type's defaults filled in. It is comparable, so Apply restarts an input
// exactly when one of these values changes; a number stored as 12201 or
// 12201.0 is the same configuration.
type config struct {
	typ             string
	bindAddress     string
	port            int
	recvBufferSize  int
	maxMessageSize  int   // TCP frame limit
	decompressLimit int64 // decompress_size_limit
	overrideSource  string
	enableCORS      bool
	maxChunkSize    int           // HTTP body limit
	idleTimeout     time.Duration // HTTP idle_writer_timeout; 0 disables
	tcpKeepAlive    bool
	tls             tlsConfig
}

// tlsConfig holds the TLS settings of the TCP and HTTP transports.
type tlsConfig struct {
	enable         bool
	certFile       string
	keyFile        string
	keyPassword    string
	clientAuth     string // disabled, optional or required
	clientAuthFile string
}

// runnable reports whether the runner can launch inputs of the class.
func runnable(class string) bool {
	switch class {
	case inputs.GELFHTTPType, inputs.GELFTCPType, inputs.GELFUDPType:
		return true
	}
	return false
}

// parseConfig reads an input's configuration. Missing or null values take
// the type's declared defaults, as Graylog's Configuration does. Port 0 is
// accepted (an ephemeral port) though the API refuses it: tests and embedded
// uses need it.
func parseConfig(in inputs.Input) (config, error) {
	c := config{typ: in.Type}
	typ, ok := inputs.LookupType(in.Type)
	if !ok || !runnable(in.Type) {
		return c, fmt.Errorf("input type %q cannot be launched on this node: only the GELF HTTP, TCP and UDP inputs are supported", in.Type)
	}
	r := reader{in: in, typ: typ}
	c.bindAddress = r.text("bind_address")
	if c.bindAddress == "" {
		c.bindAddress = "0.0.0.0"
	}
	c.port = r.number("port", 0, math.MaxUint16)
	c.recvBufferSize = r.number("recv_buffer_size", 0, math.MaxInt32)
	c.decompressLimit = int64(r.number("decompress_size_limit", 0, math.MaxInt32))
	c.overrideSource = strings.TrimSpace(r.text("override_source"))
	switch in.Type {
	case inputs.GELFTCPType:
		c.maxMessageSize = r.number("max_message_size", 0, math.MaxInt32)
		r.tls(&c)
	case inputs.GELFHTTPType:
		c.enableCORS = r.boolean("enable_cors")
		c.maxChunkSize = r.number("max_chunk_size", 0, math.MaxInt32)
		c.idleTimeout = time.Duration(r.number("idle_writer_timeout", 0, math.MaxInt32)) * time.Second
		r.tls(&c)
	}
	return c, r.err
}

// address is the host:port the input listens on.
func (c config) address() string {
	return net.JoinHostPort(c.bindAddress, strconv.Itoa(c.port))
}

// reader reads configuration values, keeping the first error.
type reader struct {
	in  inputs.Input
	typ inputs.Type
	err error
}

func (r *reader) value(name string) any {
	if v, ok := r.in.Configuration[name]; ok && v != nil {
		return v
	}
	if f, ok := r.typ.Config.Field(name); ok {
		return f.Default
	}
	return nil
}

func (r *reader) fail(format string, args ...any) {
	if r.err == nil {
		r.err = fmt.Errorf("invalid configuration: "+format, args...)
	}
}

func (r *reader) text(name string) string {
	switch v := r.value(name).(type) {
	case nil:
		return ""
	case string:
		return v
	default:
		r.fail("%s must be a string, got %v", name, v)
		return ""
	}
}

func (r *reader) boolean(name string) bool {
	switch v := r.value(name).(type) {
	case nil:
		return false
	case bool:
		return v
	case string:
		if b, err := strconv.ParseBool(v); err == nil {
			return b
		}
	}
	r.fail("%s must be true or false, got %v", name, r.value(name))
	return false
}

// number reads a whole number in [lo, hi] stored as any of the types a
// configuration map holds after JSON or BSON: int, int64, float64 or
// json.Number, or a numeric string.
func (r *reader) number(name string, lo, hi int64) int {
	var n int64
	switch v := r.value(name).(type) {
	case nil:
		return 0
	case int:
		n = int64(v)
	case int32:
		n = int64(v)
	case int64:
		n = v
	case float64:
		if v != math.Trunc(v) || v < math.MinInt64 || v > math.MaxInt64 {
			r.fail("%s must be a whole number, got %v", name, v)
			return 0
		}
		n = int64(v)
	case json.Number:
		i, err := strconv.ParseInt(string(v), 10, 64)
		if err != nil {
			r.fail("%s must be a whole number, got %s", name, v)
			return 0
		}
		n = i
	case string:
		i, err := strconv.ParseInt(strings.TrimSpace(v), 10, 64)
		if err != nil {
			r.fail("%s must be a whole number, got %q", name, v)
			return 0
		}
		n = i
	default:
		r.fail("%s must be a whole number, got %v", name, v)
		return 0
	}
	if n < lo || n > hi {
		r.fail("%s must be between %d and %d, got %d", name, lo, hi, n)
		return 0
	}
	return int(n)
}

func (r *reader) tls(c *config) {
	c.tcpKeepAlive = r.boolean("tcp_keepalive")
	c.tls = tlsConfig{
		enable:         r.boolean("tls_enable"),
		certFile:       strings.TrimSpace(r.text("tls_cert_file")),
		keyFile:        strings.TrimSpace(r.text("tls_key_file")),
		keyPassword:    r.text("tls_key_password"),
		clientAuth:     strings.ToLower(strings.TrimSpace(r.text("tls_client_auth"))),
		clientAuthFile: strings.TrimSpace(r.text("tls_client_auth_cert_file")),
	}
	switch c.tls.clientAuth {
	case "", "disabled", "optional", "required":
	default:
		r.fail("tls_client_auth must be disabled, optional or required, got %q", c.tls.clientAuth)
	}
}
