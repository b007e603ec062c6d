// Package gelf decodes the Graylog Extended Log Format as Graylog 4.0's GELF
// inputs do: payload decompression (zlib, gzip, plain), the lenient JSON
// GelfCodec accepts, its validation and its mapping onto message fields, the
// reassembly of chunked UDP datagrams (Chunker) and the null-byte framing of
// GELF TCP streams (Framer).
//
// The package holds no listeners: the HTTP, UDP and TCP inputs read bytes
// and hand them here. Every failure on outside input wraps ErrInvalid so an
// input can answer 400 or count a dropped message and carry on.
package gelf
