package bucket_test

import (
	"context"
	"net"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"github.com/auditscope/auditscope/data/bucket"
)

// fakeCredentials points the AWS settings at endpoint with made-up keys.
func fakeCredentials(t *testing.T, endpoint string) {
	t.Setenv("AWS_ENDPOINT_URL", endpoint)
	t.Setenv("AWS_ACCESS_KEY_ID", "AKIAUNKNOWN")
	t.Setenv("AWS_SECRET_ACCESS_KEY", "secret")
	t.Setenv("AWS_REGION", "us-east-1")
	t.Setenv("AWS_CONFIG_FILE", "/nonexistent")
	t.Setenv("AWS_SHARED_CREDENTIALS_FILE", "/nonexistent")
}

// TestSilentServer: an endpoint that accepts the connection and never
// answers ends a request at the first-byte timeout, the error naming it
// (a lake write hung until it was killed).
func TestSilentServer(t *testing.T) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer ln.Close()
	go func() {
		for {
			c, err := ln.Accept()
			if err != nil {
				return
			}
			defer c.Close() // held open, never answered
		}
	}()
	fakeCredentials(t, "http://"+ln.Addr().String())
	defer bucket.ShortenTimeouts(500 * time.Millisecond)()
	b, err := bucket.Open(context.Background(), "s3://lakes/team")
	if err != nil {
		t.Fatal(err)
	}
	done := make(chan error, 1)
	go func() {
		_, _, err := b.ReadAll(context.Background(), "manifest.json", 1<<20)
		done <- err
	}()
	select {
	case err := <-done:
		if err == nil || !strings.Contains(err.Error(), "first-byte timeout") {
			t.Errorf("a silent server: %v; want the first-byte timeout named", err)
		}
	case <-time.After(2 * time.Minute): // the SDK retries: a bound far above 3 × 0.5 s
		t.Fatal("a request to a silent server never ended")
	}
}

// TestForbiddenIsCredentials: a refusal without a body (a HEAD's 403, as
// for an unknown access key) is reported as the credentials, not as a
// missing object.
func TestForbiddenIsCredentials(t *testing.T) {
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.WriteHeader(http.StatusForbidden)
	}))
	defer srv.Close()
	fakeCredentials(t, srv.URL)
	b, err := bucket.Open(context.Background(), "s3://lakes/team")
	if err != nil {
		t.Fatal(err)
	}
	_, err = b.Head(context.Background(), "manifest.json")
	if err == nil || !strings.Contains(err.Error(), "refused the credentials") || strings.Contains(err.Error(), "not exist") {
		t.Errorf("a 403 without a body: %v; want the credentials named", err)
	}
}
