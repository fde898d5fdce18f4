package web

import (
	"io"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"github.com/labstack/echo/v4"
)

// TestHeavyLimit fills the heavy slots with blocked handlers and checks
// that the next heavy request is refused at once with 503 and Retry-After
// (an HTML page for a page, short text for a CSV), while light pages and
// cached heavy pages still answer.
func TestHeavyLimit(t *testing.T) {
	s := New(mustDemo(t).store, slog.New(slog.NewTextHandler(io.Discard, nil)), Config{})
	slots := cap(s.heavy.slots)
	started, release := make(chan struct{}), make(chan struct{})
	s.echo.GET("/test/block", func(c echo.Context) error {
		started <- struct{}{}
		<-release
		return c.String(http.StatusOK, "done")
	}, s.heavy.middleware)

	// Cached before the slots fill up.
	cached := mustGet(t, s, "/experiments/small/rwr", http.StatusOK, "text/html")

	var blocked []<-chan *httptest.ResponseRecorder
	for i := range slots {
		blocked = append(blocked, serveAsync(s.Handler(), "/test/block?i="+itoa(i)))
		within(t, started, 10*time.Second, "blocked handler start")
	}
	// Every place in the queue taken, as by waiting requests.
	for len(s.heavy.admit) < cap(s.heavy.admit) {
		s.heavy.admit <- struct{}{}
	}

	t0 := time.Now()
	r := get(t, s, "/experiments/small/crux")
	if r.Code != http.StatusServiceUnavailable || r.Header.Get("Retry-After") != "2" || !strings.HasPrefix(r.Header.Get("Content-Type"), "text/html") {
		t.Errorf("heavy page with the queue full: %d Retry-After %q %q, want 503 with Retry-After 2 and the HTML error page", r.Code, r.Header.Get("Retry-After"), r.Header.Get("Content-Type"))
	}
	contains(t, "busy page", r.Body, "Server busy")
	r = get(t, s, "/experiments/small/rwr.csv")
	if r.Code != http.StatusServiceUnavailable || r.Header.Get("Retry-After") == "" || !strings.HasPrefix(r.Header.Get("Content-Type"), "text/plain") || len(r.Body) > 100 {
		t.Errorf("CSV with the queue full: %d Retry-After %q %q %q, want 503 with a short text body", r.Code, r.Header.Get("Retry-After"), r.Header.Get("Content-Type"), r.Body)
	}
	if d := time.Since(t0); d > time.Second {
		t.Errorf("refusals took %s, want them at once", d)
	}
	if mustGet(t, s, "/experiments/small/rwr", http.StatusOK, "text/html").Body != cached.Body {
		t.Error("the cached heavy page changed")
	}
	for _, p := range []string{"/", "/audits?exp=small", "/audits/small:a1", "/static/style.css"} {
		if r := get(t, s, p); r.Code != http.StatusOK {
			t.Errorf("light page %s with the heavy slots full: %d", p, r.Code)
		}
	}

	// With room in the queue but no free slot, a request waits maxWait and
	// is then refused.
	for len(s.heavy.admit) > slots {
		<-s.heavy.admit
	}
	s.heavy.maxWait = 100 * time.Millisecond
	t0 = time.Now()
	if r := get(t, s, "/experiments/small/transfer"); r.Code != http.StatusServiceUnavailable || r.Header.Get("Retry-After") != "1" {
		t.Errorf("heavy page with the slots full: %d Retry-After %q, want 503 after the wait", r.Code, r.Header.Get("Retry-After"))
	}
	if d := time.Since(t0); d < 100*time.Millisecond || d > 5*time.Second {
		t.Errorf("the refused request waited %s, want about 100ms", d)
	}

	close(release)
	for _, ch := range blocked {
		if rec := within(t, ch, 10*time.Second, "blocked handler"); rec.Code != http.StatusOK {
			t.Errorf("blocked handler: %d", rec.Code)
		}
	}
	if len(s.heavy.slots) != 0 || len(s.heavy.admit) != 0 {
		t.Errorf("%d slots and %d places still taken", len(s.heavy.slots), len(s.heavy.admit))
	}
	// Slots free again: heavy pages are served.
	mustGet(t, s, "/experiments/small/transfer", http.StatusOK, "text/html")
}
