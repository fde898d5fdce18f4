package web

import (
	"context"
	"io"
	"net/http"
	"net/http/httptest"
	"strconv"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/labstack/echo/v4"
	"github.com/labstack/echo/v4/middleware"

	"github.com/auditscope/auditscope/web/app"
)

// TestResponseCache serves a page twice and checks the second answer is
// the same page with the same headers, and that errors are not cached.
func TestResponseCache(t *testing.T) {
	f := handMade()
	s := fakeServer(t, f, Config{})
	a := mustGet(t, s, "/experiments/x", http.StatusOK, "text/html")
	reads := f.reads.Load()
	b := mustGet(t, s, "/experiments/x", http.StatusOK, "text/html")
	if a.Body != b.Body || b.Header.Get("Content-Security-Policy") == "" {
		t.Error("the cached response differs from the first")
	}
	if ok := s.cache.m.Contains(s.cache.key("/experiments/x")); !ok || f.reads.Load() != reads {
		t.Errorf("the page was not cached (in the cache: %v; %d reads of the store for the second)", ok, f.reads.Load()-reads)
	}
	mustGet(t, s, "/experiments/nope", http.StatusNotFound, "text/html")
	if ok := s.cache.m.Contains(s.cache.key("/experiments/nope")); ok {
		t.Error("a 404 was cached")
	}
	c := mustGet(t, s, "/experiments/x/scores.csv", http.StatusOK, "text/csv")
	d := mustGet(t, s, "/experiments/x/scores.csv", http.StatusOK, "text/csv")
	if c.Body != d.Body || d.Header.Get("Content-Disposition") == "" {
		t.Error("cached CSV lost its body or file name")
	}
}

// cacheTestEcho is a bare echo with the response cache in front of h and,
// as in the app, the panic recovery in front of the cache.
func cacheTestEcho(h echo.HandlerFunc) (*echo.Echo, *responseCache) {
	rc := newResponseCache()
	e := echo.New()
	e.Logger.SetOutput(io.Discard) // the recovered panics are the test's own
	e.Use(middleware.Recover())
	e.Use(rc.middleware)
	e.GET("/slow", h)
	return e, rc
}

func serveAsync(h http.Handler, path string) <-chan *httptest.ResponseRecorder {
	ch := make(chan *httptest.ResponseRecorder, 1)
	go func() {
		rec := httptest.NewRecorder()
		h.ServeHTTP(rec, httptest.NewRequest(http.MethodGet, path, nil))
		ch <- rec
	}()
	return ch
}

// TestResponseCacheSingleFlight: ten concurrent requests for one slow URL
// run the handler once, and all get its response.
func TestResponseCacheSingleFlight(t *testing.T) {
	var calls atomic.Int32
	started, release := make(chan struct{}), make(chan struct{})
	e, rc := cacheTestEcho(func(c echo.Context) error {
		if calls.Add(1) == 1 {
			started <- struct{}{}
			<-release
		}
		c.Response().Header().Set("X-Test", "yes")
		return c.String(http.StatusOK, "slow page")
	})
	waiting := make(chan struct{}, 9)
	rc.m.Waiting = func(string) { waiting <- struct{}{} }
	first := serveAsync(e, "/slow?x=1")
	within(t, started, time.Minute, "leader start")
	var rest []<-chan *httptest.ResponseRecorder
	for range 9 {
		rest = append(rest, serveAsync(e, "/slow?x=1"))
	}
	for range 9 {
		within(t, waiting, time.Minute, "request waiting for the leader")
	}
	close(release)
	for i, ch := range append(rest, first) {
		rec := within(t, ch, time.Minute, "request")
		if rec.Code != http.StatusOK || rec.Body.String() != "slow page" || rec.Header().Get("X-Test") != "yes" {
			t.Errorf("request %d: %d %q %v", i, rec.Code, rec.Body.String(), rec.Header())
		}
	}
	if n := calls.Load(); n != 1 {
		t.Errorf("the handler ran %d times, want 1", n)
	}
	if ok := rc.m.Contains(rc.key("/slow?x=1")); !ok {
		t.Error("the response was not cached")
	}
	if rc.m.Loading() != 0 {
		t.Errorf("%d flights left", rc.m.Loading())
	}
}

// TestResponseCacheSingleFlightUncacheable: when the leader's response
// cannot be cached (an error, a body over the limit, a panic), the waiting
// requests run the handler themselves.
func TestResponseCacheSingleFlightUncacheable(t *testing.T) {
	for _, tc := range []struct {
		name string
		resp func(c echo.Context) error
	}{
		{"error", func(c echo.Context) error { return echo.NewHTTPError(http.StatusTeapot, "no") }},
		{"too big", func(c echo.Context) error {
			return c.Blob(http.StatusOK, "text/plain", make([]byte, cacheMaxEntry+1))
		}},
		{"panic", func(c echo.Context) error { panic("boom") }},
	} {
		t.Run(tc.name, func(t *testing.T) {
			var calls atomic.Int32
			started, release := make(chan struct{}), make(chan struct{})
			e, rc := cacheTestEcho(func(c echo.Context) error {
				if calls.Add(1) == 1 {
					started <- struct{}{}
					<-release
				}
				return tc.resp(c)
			})
			waiting := make(chan struct{}, 4)
			rc.m.Waiting = func(string) { waiting <- struct{}{} }
			first := serveAsync(e, "/slow")
			within(t, started, time.Minute, "leader start")
			var rest []<-chan *httptest.ResponseRecorder
			for range 4 {
				rest = append(rest, serveAsync(e, "/slow"))
			}
			for range 4 {
				within(t, waiting, time.Minute, "request waiting for the leader")
			}
			close(release)
			for _, ch := range append(rest, first) {
				within(t, ch, time.Minute, "request")
			}
			if n := calls.Load(); n != 5 {
				t.Errorf("the handler ran %d times, want 5 (once per request)", n)
			}
			if rc.m.Len() != 0 || rc.m.Loading() != 0 {
				t.Errorf("%d cached, %d flights left", rc.m.Len(), rc.m.Loading())
			}
		})
	}
}

// TestResponseCacheByteBound: the cache drops its least recently used
// entries to stay within its byte budget.
func TestResponseCacheByteBound(t *testing.T) {
	e, rc := cacheTestEcho(func(c echo.Context) error {
		return c.Blob(http.StatusOK, "text/plain", make([]byte, 1000))
	})
	rc.m.MaxCost = 10_500
	for i := range 20 {
		if rec := within(t, serveAsync(e, "/slow?i="+strconv.Itoa(i)), time.Minute, "request"); rec.Code != http.StatusOK {
			t.Fatalf("request %d: %d", i, rec.Code)
		}
	}
	if rc.m.Len() != 10 || rc.m.TotalCost() != 10_000 {
		t.Errorf("%d entries, %d bytes; want the 10 most recent, 10000 bytes", rc.m.Len(), rc.m.TotalCost())
	}
	if ok := rc.m.Contains(rc.key("/slow?i=19")); !ok {
		t.Error("the most recent entry was evicted")
	}
	if ok := rc.m.Contains(rc.key("/slow?i=9")); ok {
		t.Error("an old entry was kept")
	}
}

// TestStatsCacheConcurrent: concurrent requests for experiments' statistics
// share one computation each and all get the same value.
func TestStatsCacheConcurrent(t *testing.T) {
	s := fakeServer(t, handMade(), Config{})
	var wg sync.WaitGroup
	got := make([]*app.ExperimentStats, 8)
	for i := range got {
		wg.Go(func() {
			st, err := s.stats.Stats(context.Background(), "x")
			if err != nil {
				t.Error(err)
			}
			got[i] = st
		})
	}
	wg.Wait()
	for i := 1; i < len(got); i++ {
		if got[i] != got[0] {
			t.Errorf("caller %d got another computation than the first", i)
		}
	}
}
