package web

import (
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"github.com/labstack/echo/v4"
)

// blockedWriter is a client that stops reading: its first Write signals
// entered and waits for release.
type blockedWriter struct {
	*httptest.ResponseRecorder
	entered chan struct{}
	release chan struct{}
}

func (w *blockedWriter) Write(b []byte) (int, error) {
	select {
	case w.entered <- struct{}{}:
	default:
	}
	<-w.release
	return w.ResponseRecorder.Write(b)
}

// TestLeaderBlockedInWrite: while the leader of a URL is blocked writing
// to its client (a slow reader), a second request for the URL gets the
// whole response, from the leader's computation, without waiting for that
// client. The mechanism tested where it lives, driven by events: the
// end-to-end slow download (TestSlowClientDownload) only times it.
func TestLeaderBlockedInWrite(t *testing.T) {
	calls := 0
	body := strings.Repeat("row,", 10_000)
	e, _ := cacheTestEcho(func(c echo.Context) error {
		calls++
		return c.String(http.StatusOK, body)
	})
	leader := &blockedWriter{ResponseRecorder: httptest.NewRecorder(), entered: make(chan struct{}, 1), release: make(chan struct{})}
	done := make(chan struct{})
	go func() {
		e.ServeHTTP(leader, httptest.NewRequest(http.MethodGet, "/slow?q=1", nil))
		close(done)
	}()
	within(t, leader.entered, time.Minute, "the leader writing to its client")
	follower := within(t, serveAsync(e, "/slow?q=1"), time.Minute, "the second request, while the leader's client does not read")
	if follower.Code != http.StatusOK || follower.Body.String() != body {
		t.Errorf("the second request got %d, %d bytes; want the whole response", follower.Code, follower.Body.Len())
	}
	close(leader.release)
	within(t, done, time.Minute, "the leader, released")
	if leader.Body.String() != body || calls != 1 {
		t.Errorf("the leader got %d bytes; the handler ran %d times, want once", leader.Body.Len(), calls)
	}
}
