package web

import (
	"net/http"
	"testing"
)

// TestResponseCache serves a page twice and checks the second answer is
// the same page with the same headers, and that errors are not cached.
func TestResponseCache(t *testing.T) {
	s := mustDemo(t)
	a := mustGet(t, s, "/experiments/small/rwr", http.StatusOK, "text/html")
	b := mustGet(t, s, "/experiments/small/rwr", http.StatusOK, "text/html")
	if a.Body != b.Body || b.Header.Get("Content-Security-Policy") == "" {
		t.Error("the cached response differs from the first")
	}
	if _, ok := s.cache.lru.Get("/experiments/small/rwr"); !ok {
		t.Error("the page was not cached")
	}
	mustGet(t, s, "/experiments/nope", http.StatusNotFound, "text/html")
	if _, ok := s.cache.lru.Get("/experiments/nope"); ok {
		t.Error("a 404 was cached")
	}
	c := mustGet(t, s, "/experiments/small/rwr.csv", http.StatusOK, "text/csv")
	d := mustGet(t, s, "/experiments/small/rwr.csv", http.StatusOK, "text/csv")
	if c.Body != d.Body || d.Header.Get("Content-Disposition") == "" {
		t.Error("cached CSV lost its body or file name")
	}
}
