package web

import (
	"net"
	"testing"

	"golang.org/x/sys/unix"
)

// TestLimitUnsent: the server's connections queue at most notSentLowat
// unsent bytes, so a writer blocked by a slow reader wakes as its bytes
// go, not once megabytes of send buffer have half drained.
func TestLimitUnsent(t *testing.T) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer ln.Close()
	client, err := net.Dial("tcp", ln.Addr().String())
	if err != nil {
		t.Fatal(err)
	}
	defer client.Close()
	c, err := ln.Accept()
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	limitUnsent(c)
	raw, err := c.(*net.TCPConn).SyscallConn()
	if err != nil {
		t.Fatal(err)
	}
	var got int
	var gerr error
	raw.Control(func(fd uintptr) { got, gerr = unix.GetsockoptInt(int(fd), unix.IPPROTO_TCP, unix.TCP_NOTSENT_LOWAT) })
	if gerr != nil || got != notSentLowat {
		t.Errorf("TCP_NOTSENT_LOWAT = %d (%v), want %d", got, gerr, notSentLowat)
	}
}
