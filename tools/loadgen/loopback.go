package main

import (
	"fmt"
	"net"
	"net/http"
	"syscall"
	"time"
)

// The clients' connections, which reach the loopback only.

// newClient is client i's HTTP client: from its own loopback address
// (127.1.x.y) when cfg.Addresses, and i ≥ 0; always to the loopback only.
func newClient(i int, cfg Config) *http.Client {
	d := &net.Dialer{Timeout: 5 * time.Second, Control: loopbackOnly}
	if cfg.Addresses && i >= 0 {
		d.LocalAddr = &net.TCPAddr{IP: net.IPv4(127, 1, byte(i/250), byte(i%250+1))}
	}
	tr := &http.Transport{
		Proxy:               nil, // never through a proxy: the traffic stays on this machine
		DialContext:         d.DialContext,
		MaxIdleConnsPerHost: cfg.Clients + cfg.Slow,
		MaxConnsPerHost:     cfg.Clients + cfg.Slow,
	}
	return &http.Client{Transport: tr, Timeout: cfg.Timeout}
}

// checkLoopback refuses every host that is not on this machine's loopback.
func checkLoopback(host string) error {
	if host == "localhost" {
		return nil
	}
	ip := net.ParseIP(host)
	if ip == nil || !ip.IsLoopback() {
		return fmt.Errorf("refusing %q: loadgen only sends traffic to the loopback (127.0.0.0/8, ::1, localhost)", host)
	}
	return nil
}

// loopbackOnly is the dialer's last check, on the address actually dialled
// (after name resolution and any redirect).
func loopbackOnly(network, address string, _ syscall.RawConn) error {
	host, _, err := net.SplitHostPort(address)
	if err != nil {
		return err
	}
	if ip := net.ParseIP(host); ip == nil || !ip.IsLoopback() {
		return fmt.Errorf("refusing to connect to %s: not a loopback address", address)
	}
	return nil
}
