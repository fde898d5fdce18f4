//go:build !linux

package web

import "net"

// limitUnsent leaves the connection as it is: TCP_NOTSENT_LOWAT is set
// on Linux only (lowat_linux.go).
func limitUnsent(net.Conn) {}
