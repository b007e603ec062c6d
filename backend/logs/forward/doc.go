// Package forward runs the outputs of /system/outputs: it encodes messages
// as GELF the way Graylog 4.0's GelfOutput does and sends them over TCP,
// TCP+TLS or UDP to the output's destination.
//
// A Forwarder serves one output. Its Send never blocks: messages wait in a
// bounded queue (Graylog's queue_size, 512 by default) for a goroutine that
// keeps a connection open, reconnecting after reconnect_delay whenever it
// fails. A full queue drops the message and counts it. Delivery is at most
// once: a message whose write failed is not sent again, and one written to a
// connection the peer is closing can be lost without an error.
//
// A Router holds the forwarders of every output and the outputs of every
// stream. The message pipeline calls Router.Forward once per stored
// message; Router.Apply (or Sync and Run, which read the stream and output
// services) reconciles the running forwarders with the configuration.
package forward
