package web

import (
	"net"
	"net/http/httptest"
	"testing"
)

// TestClientBehindProxies: the client of a request is its peer, unless the
// peer is a trusted proxy: then the rightmost address of X-Forwarded-For
// that is not a trusted proxy. A header from an untrusted peer (or from
// loopback, not trusted unless named) is ignored, and one a client forged
// before the proxy appended the real address does not count.
func TestClientBehindProxies(t *testing.T) {
	_, lan, _ := net.ParseCIDR("10.0.0.0/24")
	cases := []struct {
		trusted    []*net.IPNet
		peer, xff  string
		wantClient string
	}{
		{nil, "10.0.0.1:5000", "1.2.3.4", "10.0.0.1"},
		{[]*net.IPNet{lan}, "10.0.0.1:5000", "1.2.3.4", "1.2.3.4"},
		{[]*net.IPNet{lan}, "10.0.0.1:5000", "5.6.7.8, 1.2.3.4", "1.2.3.4"},
		{[]*net.IPNet{lan}, "10.0.0.1:5000", "1.2.3.4, 10.0.0.7", "1.2.3.4"},
		{[]*net.IPNet{lan}, "9.9.9.9:5000", "1.2.3.4", "9.9.9.9"},
		{[]*net.IPNet{lan}, "127.0.0.1:5000", "1.2.3.4", "127.0.0.1"},
		{[]*net.IPNet{lan}, "10.0.0.1:5000", "", "10.0.0.1"},
		{[]*net.IPNet{lan}, "10.0.0.1:5000", "not-an-address", "10.0.0.1"},
	}
	for _, c := range cases {
		req := httptest.NewRequest("GET", "/", nil)
		req.RemoteAddr = c.peer
		if c.xff != "" {
			req.Header.Set("X-Forwarded-For", c.xff)
		}
		if got := clientIP(c.trusted)(req); got != c.wantClient {
			t.Errorf("trusted %v, peer %s, X-Forwarded-For %q: client %q, want %q", c.trusted, c.peer, c.xff, got, c.wantClient)
		}
	}
	// The server uses it for the queue's clients.
	s := New(nil, nil, Config{TrustedProxies: []*net.IPNet{lan}})
	req := httptest.NewRequest("GET", "/", nil)
	req.RemoteAddr, req.Header["X-Forwarded-For"] = "10.0.0.1:1", []string{"1.2.3.4"}
	c := s.echo.NewContext(req, httptest.NewRecorder())
	if got := clientOf(c); got != "1.2.3.4" {
		t.Errorf("the server's client behind the proxy: %q", got)
	}
}
