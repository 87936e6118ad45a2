//go:build !linux

package bench

import "net"

// h1Poll: elsewhere h1Client reads through Go's poller (h1Conn.stream).
const h1Poll = false

func detach(c net.Conn) (net.Conn, error) { return c, nil }
