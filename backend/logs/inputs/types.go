package inputs

import (
	"runtime"
	"slices"

	"github.com/loggate/loggate/backend/logs/configreq"
)

// Class names of the input types, as clients send them.
const (
	GELFHTTPType = "org.graylog2.inputs.gelf.http.GELFHttpInput"
	GELFTCPType  = "org.graylog2.inputs.gelf.tcp.GELFTCPInput"
	GELFUDPType  = "org.graylog2.inputs.gelf.udp.GELFUDPInput"
)

// Type is an input type as /system/inputs/types/{inputType} shows it
// (Graylog's InputTypeInfo).
type Type struct {
	// Class is the Java class name clients send as an input's type.
	Class      string            `json:"type"`
	Name       string            `json:"name"`
	Exclusive  bool              `json:"is_exclusive"`
	Config     configreq.Request `json:"requested_configuration"`
	LinkToDocs string            `json:"link_to_docs"`
}

// types is the registry of input types. A new type is one more entry.
var types = []Type{
	{Class: GELFHTTPType, Name: "GELF HTTP", Config: gelfConfig(httpFields())},
	{Class: GELFTCPType, Name: "GELF TCP", Config: gelfConfig(tcpFields())},
	{Class: GELFUDPType, Name: "GELF UDP", Config: gelfConfig(udpFields())},
}

// Types returns the registered input types.
func Types() []Type { return types }

// LookupType returns the registered type with that class name.
func LookupType(class string) (Type, bool) {
	for _, t := range types {
		if t.Class == class {
			return t, true
		}
	}
	return Type{}, false
}

// The fields below are Graylog 4.0's, composed as Graylog composes them: a
// transport's fields (Netty, then TCP, then TCP or HTTP), the codec's, and
// the codec's overrides of the transport's defaults.

func nettyFields(recvBuffer int) configreq.Request {
	return configreq.Request{
		{Name: "bind_address", Kind: configreq.Text, HumanName: "Bind address", Default: "0.0.0.0",
			Description: "Address to listen on. For example 0.0.0.0 or 127.0.0.1."},
		{Name: "port", Kind: configreq.Number, HumanName: "Port", Default: 5555,
			Description: "Port to listen on.", Attributes: []string{configreq.IsPortNumber}},
		{Name: "recv_buffer_size", Kind: configreq.Number, HumanName: "Receive Buffer Size", Default: recvBuffer, Optional: true,
			Description: "The size in bytes of the recvBufferSize for network connections to this input.", Attributes: []string{configreq.OnlyPositive}},
		// Graylog's default is the machine's processor count.
		{Name: "number_worker_threads", Kind: configreq.Number, HumanName: "No. of worker threads", Default: runtime.NumCPU(), Optional: true,
			Description: "Number of worker threads processing network connections for this input.", Attributes: []string{configreq.OnlyPositive}},
	}
}

func tlsFields() configreq.Request {
	return configreq.Request{
		{Name: "tls_cert_file", Kind: configreq.Text, HumanName: "TLS cert file", Default: "", Optional: true,
			Description: "Path to the TLS certificate file"},
		{Name: "tls_key_file", Kind: configreq.Text, HumanName: "TLS private key file", Default: "", Optional: true,
			Description: "Path to the TLS private key file"},
		{Name: "tls_enable", Kind: configreq.Boolean, HumanName: "Enable TLS", Default: false,
			Description: "Accept TLS connections"},
		{Name: "tls_key_password", Kind: configreq.Text, HumanName: "TLS key password", Default: "", Optional: true,
			Description: "The password for the encrypted key file.", Attributes: []string{configreq.IsPassword}},
		{Name: "tls_client_auth", Kind: configreq.Dropdown, HumanName: "TLS client authentication", Default: "disabled", Optional: true,
			Description: "Whether clients need to authenticate themselves in a TLS connection",
			Choices:     []configreq.Choice{{Value: "disabled", Label: "disabled"}, {Value: "optional", Label: "optional"}, {Value: "required", Label: "required"}}},
		{Name: "tls_client_auth_cert_file", Kind: configreq.Text, HumanName: "TLS Client Auth Trusted Certs", Default: "", Optional: true,
			Description: "TLS Client Auth Trusted Certs  (File or Directory)"},
		{Name: "tcp_keepalive", Kind: configreq.Boolean, HumanName: "TCP keepalive", Default: false,
			Description: "Enable TCP keepalive packets"},
	}
}

func tcpFields() configreq.Request {
	return slices.Concat(nettyFields(1024*1024), tlsFields(), configreq.Request{
		{Name: "use_null_delimiter", Kind: configreq.Boolean, HumanName: "Null frame delimiter?", Default: false,
			Description: "Use null byte as frame delimiter? Otherwise newline delimiter is used."},
		{Name: "max_message_size", Kind: configreq.Number, HumanName: "Maximum message size", Default: 2 * 1024 * 1024, Optional: true,
			Description: "The maximum length of a message.", Attributes: []string{configreq.OnlyPositive}},
	})
}

func httpFields() configreq.Request {
	return slices.Concat(nettyFields(1024*1024), tlsFields(), configreq.Request{
		{Name: "enable_cors", Kind: configreq.Boolean, HumanName: "Enable CORS", Default: true,
			Description: "Input sends CORS headers to satisfy browser security policies"},
		{Name: "max_chunk_size", Kind: configreq.Number, HumanName: "Max. HTTP chunk size", Default: 64 * 1024, Optional: true,
			Description: "The maximum HTTP chunk size in bytes (e. g. length of HTTP request body)"},
		{Name: "idle_writer_timeout", Kind: configreq.Number, HumanName: "Idle writer timeout", Default: 60, Optional: true,
			Description: "The server closes the connection after the given time in seconds after the last client write request. (use 0 to disable)",
			Attributes:  []string{configreq.OnlyPositive}},
	})
}

func udpFields() configreq.Request { return nettyFields(256 * 1024) }

// gelfConfig adds the GELF codec's fields to a transport's and applies the
// codec's overrides: GELF's customary port, and the null-byte frame
// delimiter that GELF TCP always uses.
func gelfConfig(transport configreq.Request) configreq.Request {
	r := slices.Concat(transport, configreq.Request{
		{Name: "override_source", Kind: configreq.Text, HumanName: "Override source", Default: nil, Optional: true,
			Description: "The source is a hostname derived from the received packet by default. Set this if you want to override it with a custom string."},
		{Name: "decompress_size_limit", Kind: configreq.Number, HumanName: "Decompressed size limit", Default: 8388608, Optional: true,
			Description: "The maximum number of bytes after decompression."},
	})
	for i := range r {
		switch r[i].Name {
		case "port":
			r[i].Default = 12201
		case "use_null_delimiter":
			r[i].Default = true
		}
	}
	return r
}
