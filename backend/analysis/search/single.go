package search

import (
	"context"
	"net/http"
	"regexp"

	"github.com/loggate/loggate/backend/logs/messages"
	"github.com/loggate/loggate/backend/logs/messages/embedded"
	"github.com/loggate/loggate/router/api"
)

// Parser decodes a raw message with a codec for POST /messages/parse
// (inputs.ParseRaw): an api.NotFound error for an unknown codec, an
// api.Invalid one for a message it cannot decode.
type Parser func(codec string, config map[string]any, raw []byte, remoteAddress string) (messages.Message, error)

// SetParser gives the handler the codecs of POST /messages/parse; without
// it every codec is unknown.
func (h *Handler) SetParser(p Parser) *Handler {
	h.parser = p
	return h
}

// bean is a message as Graylog's Message bean serializes.
func bean(m messages.Message) messageBean {
	fields := m.Map()
	names := make([]string, 0, len(fields))
	for k := range fields {
		names = append(names, k)
	}
	streams := m.Streams
	if streams == nil {
		streams = []string{}
	}
	return messageBean{
		ID: m.ID, Fields: fields, Timestamp: m.Timestamp.UTC().Format(messages.TimeLayout),
		Streams: streams, StreamIDs: streams, Source: fields[messages.FieldSource], Message: fields[messages.FieldMessage],
		FieldCount: len(fields), FieldNames: names,
	}
}

// parseRequest is Graylog's MessageParseRequest.
type parseRequest struct {
	Message       *string        `json:"message"`
	Codec         *string        `json:"codec"`
	RemoteAddress string         `json:"remote_address"`
	Configuration map[string]any `json:"configuration"`
}

// parsedMessage is Graylog's ResultMessage of a message that was never
// stored: no index, and no highlight ranges (left out when null).
type parsedMessage struct {
	Message messageBean `json:"message"`
	Index   *string     `json:"index"`
}

const parseExample = `{"message": "{\"version\":\"1.1\",\"host\":\"web-1\",\"short_message\":\"GET / 200\",\"_took_ms\":12}", "codec": "gelf", "remote_address": "127.0.0.1", "configuration": {}}`

func (h *Handler) parse(r *http.Request) (any, error) {
	var req parseRequest
	if err := api.Decode(r, &req, false); err != nil {
		return nil, err
	}
	if req.Message == nil || req.Codec == nil {
		return nil, api.Errorf(api.Invalid, "message and codec are required")
	}
	if h.parser == nil {
		return nil, api.Errorf(api.NotFound, "Codec type %s does not exist.", *req.Codec)
	}
	m, err := h.parser(*req.Codec, req.Configuration, []byte(*req.Message), req.RemoteAddress)
	if err != nil {
		return nil, err
	}
	return parsedMessage{Message: bean(m)}, nil
}

// messageTokens is Graylog's MessageTokens.
type messageTokens struct {
	Tokens []string `json:"tokens"`
}

// indexName is an index of an index set: its prefix, "_" and its number.
var indexName = regexp.MustCompile(`^(.+)_[0-9]+$`)

// analyze cuts a string as the message field of index is analyzed:
// Elasticsearch's standard analyzer, which is the one the embedded store
// indexes message and full_message with.
func (h *Handler) analyze(r *http.Request) (any, error) {
	q := r.URL.Query()
	s := q.Get("string")
	if s == "" {
		return nil, api.Errorf(api.Invalid, "Missing required parameter `string`")
	}
	if a := q.Get("analyzer"); a != "" && a != "standard" {
		return nil, api.Errorf(api.Invalid, "Unknown analyzer %q: loggate analyzes with the standard analyzer only", a)
	}
	index := api.Var(r, "index")
	ok, err := h.knownIndex(r.Context(), index)
	if err != nil {
		return nil, err
	}
	if !ok {
		return nil, api.Errorf(api.NotFound, "Index %s does not exist.", index)
	}
	toks := embedded.Tokens(s)
	if toks == nil {
		toks = []string{}
	}
	return messageTokens{Tokens: toks}, nil
}

// knownIndex reports whether index belongs to an index set.
func (h *Handler) knownIndex(ctx context.Context, index string) (bool, error) {
	m := indexName.FindStringSubmatch(index)
	if m == nil {
		return false, nil
	}
	sets, err := h.svc.sets.All(ctx)
	if err != nil {
		return false, err
	}
	for _, set := range sets {
		if set.IndexPrefix == m[1] {
			return true, nil
		}
	}
	return false, nil
}
