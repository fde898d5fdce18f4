package web

import (
	"net/http"
	"testing"
	"time"
)

// TestIdleWriterPieces: one large write (a cached or held body, an export
// chunk) reaches the connection in pieces of at most writePiece bytes, the
// deadline moved on before each, so a slow client that keeps reading is
// never cut while a large write is under way.
func TestIdleWriterPieces(t *testing.T) {
	clock := time.Unix(1_000_000, 0)
	rec := &deadlineRecorder{clock: &clock}
	w := &idleWriter{ResponseWriter: rec, rc: http.NewResponseController(rec), idle: 5 * time.Second, now: func() time.Time { return clock }}
	w.extend(clock)
	body := make([]byte, 4<<20+123)
	n, err := w.Write(body)
	if n != len(body) || err != nil {
		t.Fatalf("Write = %d, %v; want %d, nil", n, err, len(body))
	}
	if want := (len(body) + writePiece - 1) / writePiece; len(rec.sizes) != want {
		t.Fatalf("%d writes reached the connection, want %d pieces", len(rec.sizes), want)
	}
	at := time.Unix(1_000_000, 0)
	for i, size := range rec.sizes {
		if size > writePiece {
			t.Errorf("piece %d is %d bytes, want at most %d", i, size, writePiece)
		}
		// Piece i starts when the client has read the i before it.
		if left := rec.writes[i].Sub(at); left != w.idle {
			t.Errorf("piece %d started with %s left before its deadline, want the whole %s", i, left, w.idle)
		}
		at = at.Add(2 * time.Second)
	}
}

// deadlineRecorder is a connection's writer that records each write's size
// and the deadline in force when it was made.
type deadlineRecorder struct {
	http.ResponseWriter
	deadline time.Time
	writes   []time.Time
	sizes    []int
	clock    *time.Time
}

func (d *deadlineRecorder) SetWriteDeadline(t time.Time) error { d.deadline = t; return nil }

func (d *deadlineRecorder) Write(b []byte) (int, error) {
	d.writes = append(d.writes, d.deadline)
	d.sizes = append(d.sizes, len(b))
	// Each piece takes the client two seconds to read.
	*d.clock = d.clock.Add(2 * time.Second)
	return len(b), nil
}
