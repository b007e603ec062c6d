package inputs

import (
	"crypto/rand"
	"errors"
	"fmt"
	"net/http"
	"time"

	"github.com/loggate/loggate/backend/logs/configreq"
	"github.com/loggate/loggate/backend/logs/gelf"
	"github.com/loggate/loggate/backend/logs/messages"
	"github.com/loggate/loggate/router/api"
)

// GELFCodec is the name of the GELF codec, as Graylog's @Codec names it.
const GELFCodec = "gelf"

// Codec is a message codec as /system/codecs/types/all shows it
// (Graylog's CodecTypeInfo).
type Codec struct {
	Type   string            `json:"type"`
	Name   string            `json:"name"`
	Config configreq.Request `json:"requested_configuration"`
}

// codecs are the codecs loggate has: GELF only, with the fields of
// Graylog's GelfCodec.Config.
var codecs = []Codec{{Type: GELFCodec, Name: "GELF", Config: configreq.Request{
	{Name: "override_source", Kind: configreq.Text, HumanName: "Override source", Default: nil, Optional: true,
		Description: "The source is a hostname derived from the received packet by default. Set this if you want to override it with a custom string."},
	{Name: "decompress_size_limit", Kind: configreq.Number, HumanName: "Decompressed size limit", Default: gelf.DefaultMaxDecompressed, Optional: true,
		Description: "The maximum number of bytes after decompression."},
}}}

// Codecs returns the codecs loggate has.
func Codecs() []Codec { return codecs }

func (h *Handler) allCodecs(_ *http.Request) (any, error) {
	out := make(map[string]Codec, len(codecs))
	for _, c := range codecs {
		out[c.Type] = c
	}
	return out, nil
}

// ParseRaw decodes one raw message with the named codec and its
// configuration, as Graylog's POST /messages/parse does: a new message id,
// the source from the message or else remoteAddress, replaced by the
// configuration's override_source when set. An unknown codec is an
// api.NotFound error ("Codec type … does not exist."), a message the codec
// cannot decode an api.Invalid one ("Could not decode message").
func ParseRaw(codec string, config map[string]any, raw []byte, remoteAddress string, now func() time.Time) (messages.Message, error) {
	if codec != GELFCodec {
		return messages.Message{}, api.Errorf(api.NotFound, "Codec type %s does not exist.", codec)
	}
	opts := gelf.Options{Now: now}
	// Graylog's Configuration reads what has the type it asks for and
	// ignores the rest.
	// A request may lower the limit, not raise it past the default: what
	// one request inflates stays bounded, whatever it asks.
	if n, ok := config["decompress_size_limit"].(float64); ok && n >= 1 {
		opts.MaxDecompressed = int64(min(n, gelf.DefaultMaxDecompressed))
	}
	g, err := gelf.Decode(raw, opts)
	if errors.Is(err, gelf.ErrInvalid) {
		return messages.Message{}, api.Wrap(api.Invalid, "Could not decode message", err)
	}
	if err != nil {
		return messages.Message{}, err
	}
	id, err := newUUID()
	if err != nil {
		return messages.Message{}, err
	}
	m := messages.Message{ID: id, Timestamp: g.Timestamp, Fields: make([]messages.Field, 0, len(g.Fields)+2)}
	source := g.Source
	if source == "" {
		source = remoteAddress
	}
	if s, ok := config["override_source"].(string); ok && s != "" {
		source = s
	}
	m.Fields = append(m.Fields, messages.Field{Key: messages.FieldMessage, Value: g.Message}, messages.Field{Key: messages.FieldSource, Value: source})
	for _, f := range g.Fields {
		m.Fields = append(m.Fields, messages.Field{Key: f.Key, Value: f.Value})
	}
	return m, nil
}

// newUUID returns a random (version 4) UUID.
func newUUID() (string, error) {
	var b [16]byte
	if _, err := rand.Read(b[:]); err != nil {
		return "", err
	}
	b[6] = b[6]&0x0f | 0x40
	b[8] = b[8]&0x3f | 0x80
	return fmt.Sprintf("%x-%x-%x-%x-%x", b[0:4], b[4:6], b[6:8], b[8:10], b[10:]), nil
}
