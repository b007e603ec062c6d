package gelf

import "time"

// Defaults of Options, taken from Graylog 4.0 where it has one.
const (
	// DefaultMaxDecompressed is GelfCodec's decompress_size_limit default.
	DefaultMaxDecompressed = 8 << 20
	// DefaultChunkTimeout is GelfChunkAggregator's VALIDITY_PERIOD: every
	// chunk of a message must arrive within it, counted from the first.
	DefaultChunkTimeout = 5 * time.Second
	// DefaultMaxChunkedMessages bounds the messages being reassembled at
	// once. Graylog has no bound; loggate adds one so a flood of first
	// chunks cannot exhaust memory.
	DefaultMaxChunkedMessages = 4096
	// DefaultMaxChunkedBytes bounds the chunk bytes buffered at once.
	DefaultMaxChunkedBytes = 64 << 20
	// DefaultMaxMessageSize is the GELF TCP input's max_message_size default.
	DefaultMaxMessageSize = 2 << 20
	// MaxChunks is the largest sequence count a chunked message may have.
	MaxChunks = 128
)

// Options configures decoding and chunk reassembly. The zero value uses the
// defaults above and the wall clock.
type Options struct {
	// MaxDecompressed caps the size of a zlib or gzip payload after
	// decompression (Graylog's decompress_size_limit).
	MaxDecompressed int64
	// Now returns the receive time, used when a message has no usable
	// timestamp, and drives chunk expiry.
	Now func() time.Time
	// ChunkTimeout is how long the chunks of one message may take to arrive.
	ChunkTimeout time.Duration
	// MaxChunkedMessages bounds the messages being reassembled at once; when
	// full, the oldest incomplete message is evicted.
	MaxChunkedMessages int
	// MaxChunkedBytes bounds the chunk payload bytes held at once; when full,
	// the oldest incomplete messages are evicted.
	MaxChunkedBytes int64
	// Budget, when set, is asked before decoding takes memory in
	// proportion to the payload: for each growth of a decompression
	// buffer, and for the JSON text of the message. Its error stops the
	// decoding and is returned as is, not wrapping ErrInvalid: the payload
	// was not judged, only refused for now.
	Budget Budget
}

// Budget bounds the memory decoding may take.
type Budget interface {
	// Grow reserves n more bytes, or says why not.
	Grow(n int) error
}

func (o Options) maxDecompressed() int64 {
	if o.MaxDecompressed <= 0 {
		return DefaultMaxDecompressed
	}
	return o.MaxDecompressed
}

func (o Options) now() time.Time {
	if o.Now == nil {
		return time.Now()
	}
	return o.Now()
}

func (o Options) chunkTimeout() time.Duration {
	if o.ChunkTimeout <= 0 {
		return DefaultChunkTimeout
	}
	return o.ChunkTimeout
}

func (o Options) maxChunkedMessages() int {
	if o.MaxChunkedMessages <= 0 {
		return DefaultMaxChunkedMessages
	}
	return o.MaxChunkedMessages
}

func (o Options) maxChunkedBytes() int64 {
	if o.MaxChunkedBytes <= 0 {
		return DefaultMaxChunkedBytes
	}
	return o.MaxChunkedBytes
}
