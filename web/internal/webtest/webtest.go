// Package webtest holds the helpers web's tests and the end-to-end tests
// (web/e2e) share: a request served in memory, checks of a page's text, a
// CSV's rows and numbers, and waits that guard against a hang. It is for
// tests only and links no store.
package webtest

import (
	"encoding/csv"
	"math"
	"net/http"
	"net/http/httptest"
	"strconv"
	"strings"
	"testing"
	"time"
)

// Response is a response served in memory.
type Response struct {
	Code   int
	Header http.Header
	Body   string
}

// Get serves a GET of path by h in memory.
func Get(t testing.TB, h http.Handler, path string) Response {
	t.Helper()
	req := httptest.NewRequest(http.MethodGet, path, nil)
	rec := httptest.NewRecorder()
	h.ServeHTTP(rec, req)
	return Response{Code: rec.Code, Header: rec.Header(), Body: rec.Body.String()}
}

// MustGet fetches path and checks the status and content type.
func MustGet(t testing.TB, h http.Handler, path string, status int, contentType string) Response {
	t.Helper()
	r := Get(t, h, path)
	if r.Code != status {
		t.Fatalf("GET %s: status %d, want %d\n%.400s", path, r.Code, status, r.Body)
	}
	if ct := r.Header.Get("Content-Type"); contentType != "" && !strings.HasPrefix(ct, contentType) {
		t.Fatalf("GET %s: content type %q, want %q", path, ct, contentType)
	}
	return r
}

// Contains fails the test for each of wants that body (named what) lacks.
func Contains(t testing.TB, what, body string, wants ...string) {
	t.Helper()
	for _, w := range wants {
		if !strings.Contains(body, w) {
			t.Errorf("%s does not contain %q", what, w)
		}
	}
}

// Within fails the test when ch does not deliver in d: a guard against a
// hang, not a timing measurement.
func Within[T any](t *testing.T, ch <-chan T, d time.Duration, what string) T {
	t.Helper()
	select {
	case v := <-ch:
		return v
	case <-time.After(d):
		t.Fatalf("%s: nothing after %s", what, d)
		panic("unreachable")
	}
}

// PollUntil polls cond until it holds: for state another goroutine makes
// (a request queued), never to decide a result by the clock.
func PollUntil(t *testing.T, what string, cond func() bool) {
	t.Helper()
	deadline := time.Now().Add(time.Minute)
	for !cond() {
		if time.Now().After(deadline) {
			t.Fatalf("never: %s", what)
		}
		time.Sleep(time.Millisecond)
	}
}

// CSVRows are a CSV's rows after its header, keyed by the header's names.
func CSVRows(t testing.TB, body string) []map[string]string {
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

// CSVNum is a CSV cell's number, NaN for an empty cell.
func CSVNum(t testing.TB, s string) float64 {
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

// Near reports whether got is want to 1e-9 (relative), or 1e-12.
func Near(got, want float64) bool { return math.Abs(got-want) <= 1e-9*math.Abs(want)+1e-12 }
