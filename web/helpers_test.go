package web

import (
	"context"
	"io"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"

	"github.com/auditscope/auditscope/data"
	"github.com/auditscope/auditscope/data/demo"
	"github.com/labstack/echo/v4"
)

// demoServer is one server on the built-in demo, shared by the tests of
// this package because loading the demo takes a moment.
var demoServer = sync.OnceValues(func() (*Server, error) {
	ctx := context.Background()
	store, err := data.Open(ctx, data.Options{})
	if err != nil {
		return nil, err
	}
	if _, err := demo.Load(ctx, store); err != nil {
		return nil, err
	}
	if _, err := store.Import(ctx, "../data/testdata/bundle-small", data.ImportOptions{}); err != nil {
		return nil, err
	}
	if _, err := store.Import(ctx, "../data/testdata/petri", data.ImportOptions{Name: "petri"}); err != nil {
		return nil, err
	}
	return New(store, slog.New(slog.NewTextHandler(io.Discard, nil)), Config{}), nil
})

func mustDemo(t testing.TB) *Server {
	t.Helper()
	s, err := demoServer()
	if err != nil {
		t.Fatal(err)
	}
	return s
}

type response struct {
	Code   int
	Header http.Header
	Body   string
}

func get(t testing.TB, s *Server, path string) response {
	t.Helper()
	req := httptest.NewRequest(http.MethodGet, path, nil)
	rec := httptest.NewRecorder()
	s.Handler().ServeHTTP(rec, req)
	return response{Code: rec.Code, Header: rec.Header(), Body: rec.Body.String()}
}

// mustGet fetches path and checks the status and content type.
func mustGet(t testing.TB, s *Server, path string, status int, contentType string) response {
	t.Helper()
	r := get(t, s, path)
	if r.Code != status {
		t.Fatalf("GET %s: status %d, want %d\n%.400s", path, r.Code, status, r.Body)
	}
	if ct := r.Header.Get("Content-Type"); contentType != "" && !strings.HasPrefix(ct, contentType) {
		t.Fatalf("GET %s: content type %q, want %q", path, ct, contentType)
	}
	return r
}

func contains(t testing.TB, what, body string, wants ...string) {
	t.Helper()
	for _, w := range wants {
		if !strings.Contains(body, w) {
			t.Errorf("%s does not contain %q", what, w)
		}
	}
}

// mustEcho is a bare echo instance for building contexts in tests.
func mustEcho() *echo.Echo { return echo.New() }
