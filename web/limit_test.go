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
	"time"

	"github.com/labstack/echo/v4"
)

// serveFrom serves path to a client at addr, in the background.
func serveFrom(h http.Handler, addr, path string) <-chan *httptest.ResponseRecorder {
	ch := make(chan *httptest.ResponseRecorder, 1)
	go func() {
		rec := httptest.NewRecorder()
		req := httptest.NewRequest(http.MethodGet, path, nil)
		req.RemoteAddr = addr
		h.ServeHTTP(rec, req)
		ch <- rec
	}()
	return ch
}

// TestHeavyScheduler fills the heavy slots with blocked handlers: a
// client with its share of the queue taken is refused at once (503,
// Retry-After, a busy page that reloads itself; short text for a CSV),
// another client waits and is served, light and cached pages still answer,
// and a request past the wait is refused.
func TestHeavyScheduler(t *testing.T) {
	s := fakeServer(t, handMade(), Config{Slots: 2, ClientQueue: 2, Wait: 10 * time.Second})
	// Each blocked handler says it started and waits for its own release.
	started := make(chan string)
	var mu sync.Mutex
	release := map[string]chan struct{}{}
	gate := func(id string) chan struct{} {
		mu.Lock()
		defer mu.Unlock()
		if release[id] == nil {
			release[id] = make(chan struct{})
		}
		return release[id]
	}
	s.echo.GET("/test/block", func(c echo.Context) error {
		id := c.QueryParam("id")
		started <- id
		<-gate(id)
		return c.String(http.StatusOK, "done")
	}, s.heavy)

	// Cached before the slots fill up.
	cached := mustGet(t, s, "/experiments/x", http.StatusOK, "text/html")

	const flooder, other = "192.0.2.1:1000", "192.0.2.2:1000"
	var running []<-chan *httptest.ResponseRecorder
	for i := range 2 {
		running = append(running, serveFrom(s.Handler(), flooder, "/test/block?id=run"+itoa(i)))
		within(t, started, time.Minute, "blocked handler start")
	}
	// The flooder's next two wait; its third is refused at once.
	var waiting []<-chan *httptest.ResponseRecorder
	for i := range 2 {
		waiting = append(waiting, serveFrom(s.Handler(), flooder, "/test/block?id=wait"+itoa(i)))
		pollUntil(t, "queued", func() bool { return s.sched.Waiting() == i+1 })
	}
	t0 := time.Now()
	r := getFrom(s, flooder, "/experiments/x/crux")
	// Retry-After is the time the queued work takes, at least a second:
	// nothing has finished yet, so no hold time is known.
	if r.Code != http.StatusServiceUnavailable || r.Header().Get("Retry-After") != "1" || !strings.HasPrefix(r.Header().Get("Content-Type"), "text/html") {
		t.Errorf("the flooder's third: %d Retry-After %q %q, want 503 with Retry-After 1 and the busy page", r.Code, r.Header().Get("Retry-After"), r.Header().Get("Content-Type"))
	}
	contains(t, "busy page", r.Body.String(), "Server busy", `<meta http-equiv="refresh" content="1">`)
	r = getFrom(s, flooder, "/experiments/x/scores.csv")
	if r.Code != http.StatusServiceUnavailable || !strings.HasPrefix(r.Header().Get("Content-Type"), "text/plain") || r.Body.Len() > 100 {
		t.Errorf("the flooder's CSV: %d %q %q, want 503 with a short text body", r.Code, r.Header().Get("Content-Type"), r.Body.String())
	}
	if d := time.Since(t0); d > time.Second {
		t.Errorf("refusals took %s, want them at once", d)
	}
	// Another client is not refused: it waits its turn, before the
	// flooder's second.
	otherDone := serveFrom(s.Handler(), other, "/test/block?id=other")
	pollUntil(t, "the other client queued", func() bool { return s.sched.Waiting() == 3 })
	if mustGet(t, s, "/experiments/x", http.StatusOK, "text/html").Body != cached.Body {
		t.Error("the cached heavy page changed")
	}
	for _, p := range []string{"/", "/experiments/x/judgments", "/static/style.css"} {
		if r := get(t, s, p); r.Code != http.StatusOK {
			t.Errorf("light page %s with the heavy slots full: %d", p, r.Code)
		}
	}
	// A freed slot goes to the clients in turn: the flooder's first
	// waiting, then the other client, then the flooder's second.
	close(gate("run0"))
	if id := within(t, started, time.Minute, "the next"); id != "wait0" {
		t.Fatalf("%s started, want the flooder's first waiting", id)
	}
	close(gate("run1"))
	if id := within(t, started, time.Minute, "the next"); id != "other" {
		t.Fatalf("%s started, want the other client before the flooder's second", id)
	}
	close(gate("other"))
	if rec := within(t, otherDone, time.Minute, "the other client"); rec.Code != http.StatusOK || rec.Body.String() != "done" {
		t.Errorf("the other client: %d %q", rec.Code, rec.Body.String())
	}
	if id := within(t, started, time.Minute, "the next"); id != "wait1" {
		t.Fatalf("%s started, want the flooder's second", id)
	}
	close(gate("wait0"))
	close(gate("wait1"))
	for _, ch := range append(running, waiting...) {
		if rec := within(t, ch, time.Minute, "blocked handler"); rec.Code != http.StatusOK {
			t.Errorf("blocked handler: %d", rec.Code)
		}
	}
	if s.sched.Waiting() != 0 {
		t.Errorf("%d still waiting", s.sched.Waiting())
	}
	// Slots free again: heavy pages are served.
	mustGet(t, s, "/experiments/x/transfer", http.StatusOK, "text/html")

	// A request that waits past the deadline is refused.
	checkPastDeadline(t, s, flooder, other)
}

// checkPastDeadline checks that a request that waits past the deadline is
// refused: a server over s's store with one slot and a wait of 100 ms,
// its slot held by a request from flooder, refuses one from other with
// 503. The last phase of TestHeavyScheduler, apart to keep it short.
func checkPastDeadline(t *testing.T, s *Server, flooder, other string) {
	t.Helper()
	short := New(s.store, slog.New(slog.NewTextHandler(io.Discard, nil)), Config{Slots: 1, Wait: 100 * time.Millisecond})
	hold := make(chan struct{})
	short.echo.GET("/test/block", func(c echo.Context) error { <-hold; return c.String(http.StatusOK, "done") }, short.heavy)
	blocked := serveFrom(short.Handler(), flooder, "/test/block")
	pollUntil(t, "the slot taken", func() bool {
		rel, err := short.sched.Acquire(context.Background(), "probe")
		if err == nil {
			rel()
		}
		return err != nil
	})
	if r := getFrom(short, other, "/experiments/x/transfer"); r.Code != http.StatusServiceUnavailable || r.Header().Get("Retry-After") != "1" {
		t.Errorf("past the deadline: %d Retry-After %q, want 503", r.Code, r.Header().Get("Retry-After"))
	}
	close(hold)
	within(t, blocked, time.Minute, "the held request")
}

// getFrom serves path to a client at addr.
func getFrom(s *Server, addr, path string) *httptest.ResponseRecorder {
	rec := httptest.NewRecorder()
	req := httptest.NewRequest(http.MethodGet, path, nil)
	req.RemoteAddr = addr
	s.Handler().ServeHTTP(rec, req)
	return rec
}
