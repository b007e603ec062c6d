//go:build !linux

package ingest

import "net"

// unreadBytes is not known on this system: a connection's batches end with
// its read buffer.
func unreadBytes(net.Conn) func() int { return nil }

// readable is not known on this system: a waiting connection keeps its read
// buffer.
func readable(net.Conn) func() error { return nil }
