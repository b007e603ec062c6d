package gelf

import "strings"

// DecodeHTTP decodes the body of a GELF HTTP request. Graylog's HTTP
// transport (Netty's HttpContentDecompressor) first undoes a gzip or
// deflate Content-Encoding, then GelfCodec detects a compression of the
// body itself, so a body may be compressed twice. Both layers are capped by
// opts.MaxDecompressed. A declared encoding the body does not carry is
// ignored rather than refused: the magic bytes decide, as they do without
// the header. Other encodings are passed through untouched, as Netty does.
func DecodeHTTP(body []byte, contentEncoding string, opts Options) (Message, error) {
	data, f, err := httpBody(body, contentEncoding, opts)
	if err != nil {
		return Message{}, err
	}
	return decode(data, f, opts)
}

// DecodeHTTP decodes the body of a GELF HTTP request as the package's
// DecodeHTTP does, into a View as Decode does.
func (dec *Decoder) DecodeHTTP(body []byte, contentEncoding string, opts Options) (*View, error) {
	data, f, err := httpBody(body, contentEncoding, opts)
	if err != nil {
		return nil, err
	}
	return dec.decode(data, f, opts)
}

// httpBody undoes the Content-Encoding: it returns the payload, and the
// inflater whose buffer holds it when it was decompressed.
func httpBody(body []byte, contentEncoding string, opts Options) ([]byte, *inflater, error) {
	var c compression
	switch strings.ToLower(strings.TrimSpace(contentEncoding)) {
	case "gzip", "x-gzip":
		if detect(body) != gzipped {
			return body, nil, nil
		}
		c = gzipped
	case "deflate", "x-deflate":
		// HTTP's deflate is zlib-wrapped by the RFC and raw DEFLATE in
		// practice; Netty accepts both (ZlibWrapper.ZLIB_OR_NONE).
		switch {
		case detect(body) == zlibbed:
			c = zlibbed
		case looksLikeJSON(body):
			return body, nil, nil
		default:
			c = deflated
		}
	default:
		return body, nil, nil
	}
	f := inflaters.Get().(*inflater)
	data, err := f.inflate(c, body, opts.maxDecompressed(), opts.Budget)
	if err != nil {
		f.release()
		return nil, nil, err
	}
	return data, f, nil
}

func looksLikeJSON(b []byte) bool {
	for _, c := range b {
		switch c {
		case ' ', '\t', '\n', '\r':
			continue
		case '{':
			return true
		}
		return false
	}
	return false
}
