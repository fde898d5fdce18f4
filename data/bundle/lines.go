package bundle

import (
	"bufio"
	"bytes"
	"context"
	"fmt"
	"io"
	"runtime"
	"sync"

	"golang.org/x/sync/semaphore"

	"github.com/auditscope/auditscope/data/internal/jsonin"
)

// The audits file is most of a bundle (766 MB of the 100,000-audit demo's
// 767). eachLineParallel reads it the way eachLine reads the small files,
// but decodes on every core: one goroutine only splits the file into lines,
// workers decode batches of them, and fn sees the records in file order on
// the caller's goroutine. Errors come in file order too: a line's read or
// decode error is returned only after fn has seen every line before it.
const (
	linesPerBatch = 256
	bytesPerBatch = 4 << 20
	// linesInFlight bounds the bytes of lines read but not yet handed to fn
	// (a single longer line, up to the limit on one value, goes alone).
	linesInFlight = 64 << 20
)

// lineBatch is a run of consecutive non-empty lines and what they decode to.
type lineBatch[T any] struct {
	items jsonin.Items // the bound on one line's items
	pos   []Pos
	raw   [][]byte
	vals  []*T
	errs  []error
	bytes int64
	// end is the error that stopped the reading after these lines (nil at
	// the end of the file).
	end  error
	done chan struct{}
}

func (b *lineBatch[T]) decode() {
	b.vals = make([]*T, len(b.raw))
	b.errs = make([]error, len(b.raw))
	for i, line := range b.raw {
		if j := jsonin.FirstInvalidUTF8(line); j >= 0 {
			b.errs[i] = &Error{Pos: b.pos[i], Msg: fmt.Sprintf("not valid UTF-8 (byte %d of the line)", j+1)}
			continue
		}
		if err := jsonin.CheckItems(line, b.items); err != nil {
			b.errs[i] = &Error{Pos: b.pos[i], Msg: err.Error()}
			continue
		}
		v, err := jsonin.Decode[T](line, decodeStrict)
		if err != nil {
			b.errs[i] = &Error{Pos: b.pos[i], Msg: describeJSONErr(err)}
			continue
		}
		b.vals[i] = v
	}
	b.raw = nil // decoded: the values hold what fn needs
}

// eachLineParallel decodes a required JSONL file line by line into a fresh
// T, like eachLine, decoding on every core.
func eachLineParallel[T any](s *dirSource, name string, fn func(Pos, *T) error) error {
	f, err := s.open(name)
	if err != nil {
		return &Error{Pos: Pos{File: name}, Msg: err.Error()}
	}
	defer f.Close()
	workers := runtime.GOMAXPROCS(0)
	work := make(chan *lineBatch[T], workers)
	ordered := make(chan *lineBatch[T], workers+1)
	inFlight := semaphore.NewWeighted(linesInFlight)
	ctx, stop := context.WithCancel(context.Background())
	defer stop()

	var wg sync.WaitGroup
	for range workers {
		wg.Go(func() {
			for b := range work {
				b.decode()
				close(b.done)
			}
		})
	}
	wg.Go(func() { readBatches(ctx, f, name, s.max, inFlight, ordered, work) })
	defer wg.Wait()
	defer stop()

	for b := range ordered {
		<-b.done
		for i, v := range b.vals {
			if err := b.errs[i]; err != nil {
				return err
			}
			if err := fn(b.pos[i], v); err != nil {
				return err
			}
			b.vals[i] = nil
		}
		inFlight.Release(b.bytes)
		if b.end != nil {
			return b.end
		}
	}
	return nil
}

// readBatches reads file name's lines from f into batches of lines, each
// sent to ordered (for fn, in order) and to work (for a decoding worker),
// until the end, a read error (the last batch's end) or ctx's; the lines
// in flight are bounded by inFlight. It closes both channels.
func readBatches[T any](ctx context.Context, f io.Reader, name string, limit int64, inFlight *semaphore.Weighted, ordered, work chan<- *lineBatch[T]) {
	defer close(work)
	defer close(ordered)
	// send queues b for fn (in order) and for a worker; false when fn
	// has stopped.
	send := func(b *lineBatch[T]) bool {
		select {
		case ordered <- b:
		case <-ctx.Done():
			return false
		}
		select {
		case work <- b:
			return true
		case <-ctx.Done():
			close(b.done) // nobody waits for it now
			return false
		}
	}
	items := jsonin.ItemsFor(limit)
	newBatch := func() *lineBatch[T] { return &lineBatch[T]{items: items, done: make(chan struct{})} }
	b := newBatch()
	br := bufio.NewReaderSize(f, 1<<20)
	for line := 1; ; line++ {
		line += skipNewlines(br)
		raw, err := readLine(br, limit)
		if err == io.EOF {
			break
		}
		if err != nil {
			b.end = &Error{Pos: Pos{File: name, Line: line}, Msg: describeReadErr(err)}
			break
		}
		raw = bytes.TrimSpace(raw)
		if line == 1 {
			raw = bytes.TrimPrefix(raw, jsonin.BOM)
		}
		if len(raw) == 0 {
			continue
		}
		n := min(int64(len(raw)), linesInFlight)
		if !inFlight.TryAcquire(n) {
			// The batch being filled holds part of the budget and is
			// not sent until it is full: send it first, or a long line
			// would wait for room only fn's release of it can make.
			if len(b.raw) > 0 {
				if !send(b) {
					return
				}
				b = newBatch()
			}
			if err := inFlight.Acquire(ctx, n); err != nil {
				return
			}
		}
		b.pos = append(b.pos, Pos{File: name, Line: line})
		b.raw = append(b.raw, raw)
		b.bytes += n
		if len(b.raw) == linesPerBatch || b.bytes >= bytesPerBatch {
			if !send(b) {
				return
			}
			b = newBatch()
		}
	}
	send(b)
}
