package web

import (
	"encoding/csv"
	"math"
	"net/http"
	"net/http/httptest"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/labstack/echo/v4"
)

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

// pollUntil polls cond until it holds: for state another goroutine makes
// (a request queued), never to decide a result by the clock.
func pollUntil(t *testing.T, what string, cond func() bool) {
	t.Helper()
	deadline := time.Now().Add(time.Minute)
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
