// Package ingest runs this node's GELF inputs: it listens on the sockets the
// stored inputs (backend/logs/inputs) describe, decodes what arrives with
// backend/logs/gelf, and appends every accepted message to the journal as a
// messages.Message record. Processing (stream routing, indexing) reads the
// journal; nothing here assigns streams.
//
// A Runner reconciles the inputs it is given with the listeners it has
// (Apply), reports each input's state (STARTING, RUNNING, FAILED) to the
// node's input state registry and keeps Graylog-named metrics per input.
//
// Acknowledgement follows the transport. GELF HTTP answers 202 only once the
// record is durable in the journal, 400 for a message that does not decode,
// and 503 with Retry-After while the journal is full. GELF TCP has no
// acknowledgement: a full journal stops reading from the connection, which
// pushes back on the sender through TCP flow control. GELF UDP cannot push
// back: messages that find the journal full are dropped and counted.
//
// Appends are batched (all frames already buffered on a TCP connection, up to
// 512 datagrams or 5 ms on UDP) because the journal fsyncs every append.
package ingest
