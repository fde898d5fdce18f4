package web

import (
	"cmp"
	"net/http"
	"time"

	"github.com/labstack/echo/v4"
)

// writeIdle is how long a response may wait on its client: a write that
// makes no progress for this long fails and the connection is dropped. It
// is an idle deadline, moved on by every write, not a deadline for the
// whole response: http.Server's WriteTimeout (60 s) cut the demo's 33 MB
// export mid-row for every client below about 550 KB/s, after the 200 was
// sent. Two minutes, not one: a client reading steadily still looks idle
// to the server while its kernel's receive buffer (grown to megabytes)
// drains far enough to reopen the window, and at 40 KB/s that took over a
// minute (curl --limit-rate 40k was cut at 6.7–8.7 MB with 60 s).
const writeIdle = 2 * time.Minute

// idleWrites gives each response an idle write deadline (Config.WriteIdle,
// by default writeIdle).
func (s *Server) idleWrites(next echo.HandlerFunc) echo.HandlerFunc {
	idle := cmp.Or(s.cfg.WriteIdle, writeIdle)
	return func(c echo.Context) error {
		res := c.Response()
		w := &idleWriter{ResponseWriter: res.Writer, rc: http.NewResponseController(res.Writer), idle: idle}
		// From the start of the request: a connection kept alive carries
		// the deadline of its last response, which may have passed.
		w.extend(time.Now())
		// Not put back after next: the error handler writes after it,
		// through what the middleware after this one (headAsGet) set.
		res.Writer = w
		return next(c)
	}
}

// writePiece is the most one write to the connection carries. The
// deadline is moved before each piece, so it bounds how long the client
// takes to read one piece (64 KiB: 1.6 s at 40 KB/s), not a whole chunk:
// the cache's and a held response's bodies (up to 4 MiB) and an export's
// chunks were written whole, and a client below about 70 KB/s was cut
// mid-row after the 200.
const writePiece = 64 << 10

// idleWriter moves its connection's write deadline on before each piece
// written. It is moved at most every second (at the cost of a deadline up
// to a second early), so the many small writes of a page cost no syscalls.
type idleWriter struct {
	http.ResponseWriter
	rc    *http.ResponseController
	idle  time.Duration
	moved time.Time
	// now is the clock (time.Now; a test's own).
	now func() time.Time
}

func (w *idleWriter) extend(now time.Time) {
	w.moved = now
	// Not every writer has a connection (the export command's recorder):
	// it then has no deadline to move.
	_ = w.rc.SetWriteDeadline(now.Add(w.idle))
}

// touch moves the deadline on if it was last moved a second or more ago.
func (w *idleWriter) touch() {
	now := time.Now()
	if w.now != nil {
		now = w.now()
	}
	// At most every second, or an eighth of the idle time when that is
	// shorter: a deadline moved early leaves a piece that much less time.
	if now.Sub(w.moved) >= min(time.Second, w.idle/8) {
		w.extend(now)
	}
}

func (w *idleWriter) Write(b []byte) (int, error) {
	n := 0
	for len(b) > 0 {
		w.touch()
		k, err := w.ResponseWriter.Write(b[:min(len(b), writePiece)])
		n += k
		if err != nil {
			return n, err
		}
		b = b[k:]
	}
	return n, nil
}

// Flush moves the deadline on and flushes: the flush writes what is
// buffered.
func (w *idleWriter) Flush() {
	w.touch()
	_ = w.rc.Flush()
}

// Unwrap lets http.ResponseController reach the connection.
func (w *idleWriter) Unwrap() http.ResponseWriter { return w.ResponseWriter }
