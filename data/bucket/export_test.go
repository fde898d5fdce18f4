package bucket

import "time"

// ShortenTimeouts sets the HTTP bounds for a test and returns what puts
// them back.
func ShortenTimeouts(d time.Duration) (restore func()) {
	c, f, s, r := connectTimeout, firstByteTimeout, stallTimeout, requestTimeout
	// In the order of the real bounds (first byte before a stall): equal,
	// the SDK's read timeout and the transport's header timeout raced, and
	// a silent server was named a stall one time in a few.
	connectTimeout, firstByteTimeout, stallTimeout, requestTimeout = d, d, 2*d, 20*d
	return func() { connectTimeout, firstByteTimeout, stallTimeout, requestTimeout = c, f, s, r }
}
