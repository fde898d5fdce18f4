package bucket

import "time"

// ShortenTimeouts sets the HTTP bounds for a test and returns what puts
// them back.
func ShortenTimeouts(d time.Duration) (restore func()) {
	c, f, s, r := connectTimeout, firstByteTimeout, stallTimeout, requestTimeout
	connectTimeout, firstByteTimeout, stallTimeout, requestTimeout = d, d, d, 10*d
	return func() { connectTimeout, firstByteTimeout, stallTimeout, requestTimeout = c, f, s, r }
}
