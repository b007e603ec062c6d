package outputs

import "github.com/loggate/loggate/backend/logs/configreq"

// GELFType is the class name of the GELF output.
const GELFType = "org.graylog2.outputs.GelfOutput"

// Type is an output type as /system/outputs/available lists it (Graylog's
// AvailableOutputSummary).
type Type struct {
	Name string `json:"name"`
	// Class is the Java class name clients send as an output's type.
	Class      string            `json:"type"`
	HumanName  string            `json:"human_name"`
	LinkToDocs string            `json:"link_to_docs"`
	Config     configreq.Request `json:"requested_configuration"`
}

// types is the registry of output types. A new type is one more entry.
var types = []Type{gelfOutput}

// Types returns the registered output types.
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

// gelfOutput is Graylog 4.0's GelfOutput, with the configuration fields
// loggate's specification names. Graylog's queue_size and
// max_inflight_sends tune its Java client's buffers and are left out.
var gelfOutput = Type{
	Name:      "GELF Output",
	Class:     GELFType,
	HumanName: "An output sending GELF over TCP or UDP",
	Config: configreq.Request{
		{Name: "hostname", Kind: configreq.Text, HumanName: "Destination host", Default: "",
			Description: "This is the hostname of the destination"},
		{Name: "port", Kind: configreq.Number, HumanName: "Destination port", Default: 12201,
			Description: "This is the port of the destination", Attributes: []string{configreq.IsPortNumber}},
		{Name: "protocol", Kind: configreq.Dropdown, HumanName: "Protocol", Default: "TCP",
			Description: "The protocol used to connect",
			Choices:     []configreq.Choice{{Value: "TCP", Label: "TCP"}, {Value: "TCP+TLS", Label: "TCP+TLS"}, {Value: "UDP", Label: "UDP"}}},
		{Name: "connect_timeout", Kind: configreq.Number, HumanName: "TCP Connect Timeout", Default: 1000, Optional: true,
			Description: "Connection timeout for TCP connections in milliseconds", Attributes: []string{configreq.OnlyPositive}},
		{Name: "reconnect_delay", Kind: configreq.Number, HumanName: "TCP Reconnect Delay", Default: 500, Optional: true,
			Description: "Time to wait between reconnects in milliseconds", Attributes: []string{configreq.OnlyPositive}},
		{Name: "tcp_no_delay", Kind: configreq.Boolean, HumanName: "TCP No Delay", Default: false,
			Description: "Whether to use Nagle's algorithm for TCP connections"},
		{Name: "tcp_keep_alive", Kind: configreq.Boolean, HumanName: "TCP Keep Alive", Default: false,
			Description: "Whether to send TCP keep alive packets"},
		{Name: "tls_verification_enabled", Kind: configreq.Boolean, HumanName: "TLS verification", Default: false,
			Description: "Whether to verify peers when using TLS"},
		{Name: "tls_trust_cert_chain", Kind: configreq.Text, HumanName: "TLS Trust Certificate Chain", Default: "", Optional: true,
			Description: "Local file which contains the trust certificate chain"},
	},
}
