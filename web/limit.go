package web

import (
	"net"
	"net/http"
	"path"
	"runtime"
	"strings"
	"time"

	"github.com/labstack/echo/v4"
)

// The heavy work's defaults (serve's --slots, --wait, --client-queue and
// --queue set them).
const (
	// DefaultWait is how long a heavy request may wait for a slot: long
	// enough for a cold page behind others under load.
	DefaultWait = 10 * time.Second
	// DefaultClientQueue is how many heavy requests one client may have
	// waiting: a browser opening a page with its figures asks for a few at
	// once; more than this is a flood, refused before the others wait.
	DefaultClientQueue = 8
	// QueuePerSlot sizes the default queue: this many waiting requests per
	// slot is well under a second of the demo's cold pages (about 18 a
	// second per slot), so an admitted request is answered within about two
	// seconds even behind the slow ones, and the requests past it are
	// refused at once rather than after the wait.
	QueuePerSlot = 12
)

// DefaultSlots is how many heavy computations run at once: one per core,
// and at least two so a slow one does not hold up everything else.
func DefaultSlots() int { return max(2, runtime.NumCPU()) }

// newScheduler sizes the heavy work's scheduler from the config, each
// limit its default when unset.
func newScheduler(cfg Config) *scheduler {
	c := schedulerConfig{Slots: cfg.Slots, PerClient: cfg.ClientQueue, MaxQueued: cfg.Queue, MaxWait: cfg.Wait}
	if c.Slots <= 0 {
		c.Slots = DefaultSlots()
	}
	if c.PerClient <= 0 {
		c.PerClient = DefaultClientQueue
	}
	if c.MaxQueued <= 0 {
		c.MaxQueued = QueuePerSlot * c.Slots
	}
	if c.MaxWait <= 0 {
		c.MaxWait = DefaultWait
	}
	return newSchedulerOf(c)
}

// clientOf names the client a request comes from: its address without the
// port. (Behind a proxy every request is the proxy's: the share is then the
// proxy's, which is safe, if not fair.)
func clientOf(c echo.Context) string { return c.RealIP() }

// clientIP is how a request's client is found (echo's extractors): the
// peer's address, or, when the peer is one of the trusted proxies, the
// rightmost address of X-Forwarded-For that is not one (so a client cannot
// name itself another by writing the header: an untrusted peer is always
// itself). Only the given ranges are trusted, not echo's default of every
// loopback and private address.
func clientIP(trusted []*net.IPNet) echo.IPExtractor {
	if len(trusted) == 0 {
		return echo.ExtractIPDirect()
	}
	opts := []echo.TrustOption{echo.TrustLoopback(false), echo.TrustLinkLocal(false), echo.TrustPrivateNet(false)}
	for _, n := range trusted {
		opts = append(opts, echo.TrustIPRange(n))
	}
	return echo.ExtractIPFromXFFHeader(opts...)
}

// heavy runs a heavy route (statistics, explorer tables, figures) in a
// slot of the scheduler. As route middleware it comes after the response
// cache, so a cache hit never takes a slot. A refusal is the *busyError
// that handleError answers with 503 and Retry-After.
func (s *Server) heavy(next echo.HandlerFunc) echo.HandlerFunc {
	return func(c echo.Context) error {
		release, err := s.sched.Acquire(c.Request().Context(), clientOf(c))
		if err != nil {
			return err
		}
		defer release()
		return next(c)
	}
}

// inSlot runs one piece of a long response's work (a chunk of an export)
// in a slot, so that the response holds no slot while it waits on a slow
// client.
func (s *Server) inSlot(c echo.Context, work func() error) error {
	release, err := s.sched.Acquire(c.Request().Context(), clientOf(c))
	if err != nil {
		return err
	}
	defer release()
	return work()
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
