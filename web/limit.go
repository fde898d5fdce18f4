package web

import (
	"math"
	"net/http"
	"path"
	"runtime"
	"strings"
	"time"

	"github.com/labstack/echo/v4"
)

// heavyWait is how long a heavy request may wait for a slot before it is
// refused: a client is better served by a quick 503 and a retry than by a
// page that arrives after half a minute in a queue.
const heavyWait = 2 * time.Second

// heavyQueueFactor sizes the wait queue as a multiple of the slots.
const heavyQueueFactor = 4

// heavySlots is how many heavy computations run at once: one per core, and
// at least two so a slow one does not hold up everything else.
func heavySlots() int { return max(2, runtime.NumCPU()) }

// limiter bounds the heavy computations (figures, explorer tables,
// statistics, full CSV exports) running at once, so they cannot take every
// core and all the memory from the light pages, and bounds how many wait.
// Requests beyond the queue, or that wait longer than maxWait, are refused
// with an *overloaded error. It runs after the response cache, so a cache
// hit never takes a slot.
type limiter struct {
	slots   chan struct{} // a token per running request
	admit   chan struct{} // a token per running or waiting request
	maxWait time.Duration
}

func newLimiter(slots int, maxWait time.Duration) *limiter {
	return &limiter{
		slots:   make(chan struct{}, slots),
		admit:   make(chan struct{}, slots*(1+heavyQueueFactor)),
		maxWait: maxWait,
	}
}

// overloaded is the error of a request the limiter refused; handleError
// answers it with 503 and Retry-After.
type overloaded struct{ retryAfter time.Duration }

func (e *overloaded) Error() string { return "server busy: too many heavy requests" }

// retryAfterSeconds is the Retry-After header's value, at least 1.
func (e *overloaded) retryAfterSeconds() int {
	return max(1, int(math.Ceil(e.retryAfter.Seconds())))
}

func (l *limiter) middleware(next echo.HandlerFunc) echo.HandlerFunc {
	return func(c echo.Context) error {
		select {
		case l.admit <- struct{}{}:
		default: // the queue is full: waiting would not end within maxWait
			return &overloaded{retryAfter: l.maxWait}
		}
		defer func() { <-l.admit }()
		select {
		case l.slots <- struct{}{}:
		default:
			t := time.NewTimer(l.maxWait)
			defer t.Stop()
			select {
			case l.slots <- struct{}{}:
			case <-t.C:
				return &overloaded{retryAfter: l.maxWait}
			case <-c.Request().Context().Done():
				return c.Request().Context().Err()
			}
		}
		defer func() { <-l.slots }()
		return next(c)
	}
}

// wantsText reports whether a refusal should be short text rather than the
// HTML error page: for files (CSV, figures), and for clients that do not
// take HTML.
func wantsText(r *http.Request) bool {
	switch path.Ext(r.URL.Path) {
	case ".csv", ".json", ".svg", ".png", ".pdf":
		return true
	}
	accept := r.Header.Get("Accept")
	return accept != "" && !strings.Contains(accept, "text/html") && !strings.Contains(accept, "*/*")
}
