package web

import (
	"context"
	"encoding/csv"
	"io"
	"log/slog"
	"math"
	"net/http"
	"net/http/httptest"
	"path/filepath"
	"runtime"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/labstack/echo/v4"

	"github.com/auditscope/auditscope/data"
	"github.com/auditscope/auditscope/data/demo"
)

// demoStore is the built-in demo, loaded once for the tests of this package
// because loading it takes a moment. It is read-only to them: a test that
// imports makes its own store.
var demoStore = sync.OnceValues(func() (*data.Store, error) {
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
	return store, nil
})

// mustDemo is a server of its own on the shared demo store: its caches,
// limiter and memo start empty, so no test sees what another computed.
func mustDemo(t testing.TB) *Server {
	t.Helper()
	store, err := demoStore()
	if err != nil {
		t.Fatal(err)
	}
	return New(store, slog.New(slog.NewTextHandler(io.Discard, nil)), Config{})
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

// mustStore is an empty in-memory store, closed when the test ends.
func mustStore(t testing.TB) *data.Store {
	t.Helper()
	store, err := data.Open(context.Background(), data.Options{})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { store.Close() })
	return store
}

// within fails the test when ch does not deliver in d: a guard against a
// hang, not a timing measurement.
func within[T any](t *testing.T, ch <-chan T, d time.Duration, what string) T {
	t.Helper()
	select {
	case v := <-ch:
		return v
	case <-time.After(d):
		t.Fatalf("%s: nothing after %s", what, d)
		panic("unreachable")
	}
}

// dataStore is the database behind a test server, for what only the data
// package does (imports, lake writes).
func dataStore(t testing.TB, s *Server) *data.Store {
	t.Helper()
	store, ok := s.store.(*data.Store)
	if !ok {
		t.Fatalf("the server's store is a %T, not a database", s.store)
	}
	return store
}

// pollUntil polls cond until it holds: for state another goroutine makes
// (a request queued), never to decide a result by the clock.
func pollUntil(t *testing.T, what string, cond func() bool) {
	t.Helper()
	deadline := time.Now().Add(10 * time.Second)
	for !cond() {
		if time.Now().After(deadline) {
			t.Fatalf("never: %s", what)
		}
		time.Sleep(time.Millisecond)
	}
}

func csvRows(t testing.TB, body string) []map[string]string {
	t.Helper()
	recs, err := csv.NewReader(strings.NewReader(body)).ReadAll()
	if err != nil {
		t.Fatal(err)
	}
	var out []map[string]string
	for _, r := range recs[1:] {
		m := map[string]string{}
		for i, h := range recs[0] {
			m[h] = r[i]
		}
		out = append(out, m)
	}
	return out
}

func csvNum(t testing.TB, s string) float64 {
	t.Helper()
	if s == "" {
		return math.NaN()
	}
	v, err := strconv.ParseFloat(s, 64)
	if err != nil {
		t.Fatalf("CSV number %q: %v", s, err)
	}
	return v
}

func near(got, want float64) bool { return math.Abs(got-want) <= 1e-9*math.Abs(want)+1e-12 }

// inspectFixtures is the folder of real Inspect logs.
func inspectFixtures(t testing.TB) string {
	_, file, _, _ := runtime.Caller(0)
	return filepath.Join(filepath.Dir(file), "..", "testdata", "fixtures", "inspect")
}
