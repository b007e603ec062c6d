// Package tcptest serves raw TCP on loopback for tests that need a peer
// net/http would not play: one that answers by hand, stalls or hangs up.
package tcptest

import (
	"net"
	"testing"
)

// Serve accepts connections on a loopback port until the test ends and
// hands each to serve on its own goroutine, closing it when serve returns.
func Serve(tb testing.TB, serve func(net.Conn)) net.Addr {
	tb.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		tb.Fatal(err)
	}
	tb.Cleanup(func() { ln.Close() })
	go func() {
		for {
			c, err := ln.Accept()
			if err != nil {
				return
			}
			go func() {
				defer c.Close()
				serve(c)
			}()
		}
	}()
	return ln.Addr()
}
