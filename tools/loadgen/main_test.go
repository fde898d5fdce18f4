package main

import (
	"bytes"
	"context"
	"net"
	"net/http"
	"net/http/httptest"
	"os"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"
)

func TestLoadLoopbackOnly(t *testing.T) {
	for _, h := range []string{"http://10.0.0.1:80", "http://example.com", "http://192.168.1.2:8080", "https://127.0.0.1:1"} {
		if _, err := Load(context.Background(), Config{Base: h, Light: []string{"/"}, Clients: 1, Duration: time.Second, MaxRequests: 1}); err == nil {
			t.Errorf("%s: want a refusal", h)
		}
	}
}

// TestLoadRedirectStaysLocal: a redirect to another host is not followed
// off the machine; it counts as an error.
func TestLoadRedirectStaysLocal(t *testing.T) {
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		http.Redirect(w, r, "http://192.0.2.1/", http.StatusFound)
	}))
	defer srv.Close()
	res, err := Load(context.Background(), Config{Base: srv.URL, Light: []string{"/"}, Clients: 1, Duration: 5 * time.Second, MaxRequests: 2})
	if err != nil {
		t.Fatal(err)
	}
	if res.Errors != 2 {
		t.Errorf("%d errors, want 2", res.Errors)
	}
}

func TestLoad(t *testing.T) {
	var busted atomic.Int32
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.URL.Query().Get("loadgen") != "" {
			busted.Add(1)
		}
		switch r.URL.Path {
		case "/bad":
			http.Error(w, "no", http.StatusInternalServerError)
		case "/busy":
			w.Header().Set("Retry-After", "2")
			http.Error(w, "busy", http.StatusServiceUnavailable)
		default:
			w.Write([]byte("ok"))
		}
	}))
	defer srv.Close()
	res, err := Load(context.Background(), Config{Base: srv.URL, Light: []string{"/", "/bad"}, Heavy: []string{"/heavy", "/busy"}, HeavyShare: 0.5,
		Clients: 4, Duration: 5 * time.Second, MaxRequests: 40, Bust: true})
	if err != nil {
		t.Fatal(err)
	}
	if res.Requests != 40 || res.Light.Requests != 20 || res.Heavy.Requests != 20 {
		t.Errorf("requests %d (light %d, heavy %d), want 40 split evenly", res.Requests, res.Light.Requests, res.Heavy.Requests)
	}
	if res.Errors != 10 || res.Light.Errors != 10 || res.Heavy.Errors != 0 || res.Refused != 10 || res.Heavy.Refused != 10 {
		t.Errorf("errors %d (light %d, heavy %d), refused %d (heavy %d): want 10 errors, all light, and 10 refusals, all heavy",
			res.Errors, res.Light.Errors, res.Heavy.Errors, res.Refused, res.Heavy.Refused)
	}
	if n := busted.Load(); n != 20 {
		t.Errorf("%d requests bypassed the cache, want the 20 heavy ones", n)
	}
	if res.P99 < res.P50 || res.Max < res.P99 || res.Heavy.ServedP99 == 0 {
		t.Errorf("percentiles out of order: %+v", res)
	}
}

// TestRunReportsMemory runs the command against a local server with this
// process as the "server" whose memory is sampled.
func TestRunReportsMemory(t *testing.T) {
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) { w.Write([]byte("ok")) }))
	defer srv.Close()
	var out bytes.Buffer
	err := run(context.Background(), []string{"-base", srv.URL, "-c", "2", "-d", "2s", "-n", "20", "-paths", "/a", "-heavy", "/b",
		"-pid", strconv.Itoa(os.Getpid()), "-after", "10ms"}, &out)
	if err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{"requests 20 errors 0 refused(503) 0", "light: requests 16", "heavy: requests 4", "server RSS during the run: max ", "server RSS 10ms after the run: "} {
		if !strings.Contains(out.String(), want) {
			t.Errorf("output lacks %q:\n%s", want, out.String())
		}
	}
}

// TestLoadAddressesAndSlow: with -addresses each client comes from its own
// loopback address; slow clients each read the slow path once, to its end,
// even past the run.
func TestLoadAddressesAndSlow(t *testing.T) {
	var mu sync.Mutex
	addrs := map[string]bool{}
	light := map[string]bool{}
	// Light requests wait until all three clients have asked: on a busy
	// machine one client's goroutine could otherwise send all 30 before
	// the others are first scheduled (it did once in CI), and the test
	// would be about the scheduler, not the addresses.
	allIn := make(chan struct{})
	body := bytes.Repeat([]byte("x"), 64<<10)
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		host, _, _ := net.SplitHostPort(r.RemoteAddr)
		mu.Lock()
		addrs[host] = true
		if r.URL.Path != "/export" && !light[host] {
			light[host] = true
			if len(light) == 3 {
				close(allIn)
			}
		}
		mu.Unlock()
		if r.URL.Path == "/export" {
			w.Write(body)
			return
		}
		select {
		case <-allIn:
		case <-time.After(3 * time.Second):
		}
		w.Write([]byte("ok"))
	}))
	defer srv.Close()
	res, err := Load(context.Background(), Config{Base: srv.URL, Light: []string{"/"}, Clients: 3, Duration: 5 * time.Second,
		MaxRequests: 30, Addresses: true, Slow: 2, SlowPath: "/export", SlowRate: 256 << 10})
	if err != nil {
		t.Fatal(err)
	}
	if res.Slow.Started != 2 || res.Slow.Complete != 2 || res.Slow.Bytes != 2*int64(len(body)) || res.Slow.Max < 200*time.Millisecond {
		t.Errorf("slow downloads %+v: want 2 complete, each 64 KiB at 256 KiB/s (about 250 ms)", res.Slow)
	}
	if len(addrs) != 5 {
		t.Errorf("requests came from %d addresses (%v), want 5: 3 clients and 2 slow ones", len(addrs), addrs)
	}
}

// TestLoadRetryAfter: with RetryAfter, a refused client waits the 503's
// Retry-After before it asks again, and the served counts are per client.
func TestLoadRetryAfter(t *testing.T) {
	var calls atomic.Int32
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if calls.Add(1) == 1 {
			w.Header().Set("Retry-After", "1")
			http.Error(w, "busy", http.StatusServiceUnavailable)
			return
		}
		w.Write([]byte("ok"))
	}))
	defer srv.Close()
	start := time.Now()
	res, err := Load(context.Background(), Config{Base: srv.URL, Light: []string{"/"}, Clients: 1, Duration: 5 * time.Second, MaxRequests: 3, RetryAfter: true})
	if err != nil {
		t.Fatal(err)
	}
	if res.Refused != 1 || res.Requests != 3 || time.Since(start) < time.Second {
		t.Errorf("refused %d of %d requests in %s: want 1 of 3, the second a second after the first", res.Refused, res.Requests, time.Since(start))
	}
	if res.Served.Min != 2 || res.Served.Max != 2 {
		t.Errorf("served per client %+v, want 2", res.Served)
	}
}
