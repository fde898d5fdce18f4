package web

import (
	"net"

	"golang.org/x/sys/unix"
)

// notSentLowat is the most unsent bytes a connection's socket queues
// before a write waits. Linux wakes a writer blocked on a full send buffer
// only once half of it has drained, and loopback and fast links grow the
// buffer to megabytes: at 40 KB/s one blocked write of a 64 KiB piece
// waited 50–75 s for its wake-up, past the 60 s idle deadline, and a slow
// reader's export was cut at 8.7 MB. With at most 128 KiB unsent, a
// writer wakes within seconds at any rate a person reads at, while the
// buffer still grows for the bytes in flight on a long, fast link.
const notSentLowat = 128 << 10

// limitUnsent sets TCP_NOTSENT_LOWAT on a new connection (ConnState).
func limitUnsent(c net.Conn) {
	tc, ok := c.(*net.TCPConn)
	if !ok {
		return
	}
	raw, err := tc.SyscallConn()
	if err != nil {
		return
	}
	raw.Control(func(fd uintptr) {
		_ = unix.SetsockoptInt(int(fd), unix.IPPROTO_TCP, unix.TCP_NOTSENT_LOWAT, notSentLowat)
	})
}
