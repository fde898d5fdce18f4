package web

import (
	"context"
	"io"
	"log/slog"
	"net"
	"net/http"
	"testing"
	"time"
)

// TestServeGracefulShutdown starts a slow request, cancels the server's
// context (as SIGTERM does) while it runs, and checks the request still
// completes and Serve returns cleanly.
func TestServeGracefulShutdown(t *testing.T) {
	started, proceed := make(chan struct{}), make(chan struct{})
	h := http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		close(started)
		<-proceed // until the shutdown is under way
		w.Write([]byte("finished"))
	})
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error, 1)
	go func() { done <- Serve(ctx, ln, h, slog.New(slog.NewTextHandler(io.Discard, nil))) }()
	type result struct {
		body string
		err  error
	}
	got := make(chan result, 1)
	go func() {
		resp, err := http.Get("http://" + ln.Addr().String() + "/")
		if err != nil {
			got <- result{err: err}
			return
		}
		b, err := io.ReadAll(resp.Body)
		resp.Body.Close()
		got <- result{string(b), err}
	}()
	<-started
	cancel()
	// The shutdown has begun once the listener refuses connections; only
	// then does the request finish.
	for {
		conn, err := net.Dial("tcp", ln.Addr().String())
		if err != nil {
			break
		}
		conn.Close()
		time.Sleep(time.Millisecond)
	}
	close(proceed)
	r := <-got
	if r.err != nil || r.body != "finished" {
		t.Errorf("in-flight request: %q, %v; want it to finish", r.body, r.err)
	}
	select {
	case err := <-done:
		if err != nil {
			t.Errorf("Serve returned %v", err)
		}
	case <-time.After(time.Minute):
		t.Fatal("Serve did not return after shutdown")
	}
	if _, err := http.Get("http://" + ln.Addr().String() + "/"); err == nil {
		t.Error("the server still accepts requests after shutdown")
	}
}
