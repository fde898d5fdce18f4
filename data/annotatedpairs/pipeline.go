package annotatedpairs

import (
	"context"
	"errors"
	"runtime"
	"strconv"
	"strings"
	"sync"

	"github.com/go-json-experiment/json/jsontext"
	"golang.org/x/sync/semaphore"

	"github.com/auditscope/auditscope/data/internal/jsonin"
	"github.com/auditscope/auditscope/data/internal/limit"
	"github.com/auditscope/auditscope/data/model"
)

// comparisons reads the comparisons array. The reader only splits the
// stream into values (jsontext checks the syntax as it goes); workers on every
// core decode them into rows; the rows are appended in file order on this
// goroutine's connection. At most a few batches, and inFlightBytes of JSON,
// are in flight, so memory stays bounded however long the file is.
func (in *decoder) comparisons(ctx context.Context, dec *jsontext.Decoder) error {
	workers := runtime.GOMAXPROCS(0)
	p := &pipeline{ctx: ctx, dec: dec, file: in.file, in: in,
		work: make(chan *batch, workers), ordered: make(chan *batch, 2*workers), stop: make(chan struct{}),
		budget: inFlightBytes}
	if in.bound != nil {
		p.budget = max(p.budget, in.bound.Max+in.bound.Slack)
	}
	p.inFlight = semaphore.NewWeighted(p.budget)
	v2, haveMeta := strings.HasPrefix(in.meta.Version, "2"), in.haveMeta
	// The annotators declared before the comparisons, for the workers to
	// encode votes with (a copy: the appender adds those first named later).
	ann := in.sink.Annotators()
	var maxValue int64
	if in.bound != nil {
		maxValue = in.bound.Max
	}
	items := jsonin.ItemsFor(limit.Or(maxValue))
	var wg sync.WaitGroup
	for range workers {
		wg.Add(1)
		go func() {
			defer wg.Done()
			var fast fastDecoder // one a worker: it keeps the names it has seen
			for b := range p.work {
				b.decode(&fast, in.file, v2, haveMeta, ann, items)
				close(b.done)
			}
		}()
	}
	appendErr := make(chan error, 1)
	go func() { appendErr <- p.appendInOrder() }()
	readErr := p.read()
	wg.Wait()
	if err := <-appendErr; err != nil {
		return err
	}
	return readErr
}

// batch is a run of comparisons decoded by one worker.
type batch struct {
	start int      // index of the first comparison
	raws  [][]byte // the comparisons' JSON, parts of buf
	buf   []byte   // the batch's JSON, one allocation rather than one a comparison
	ends  []int    // where each comparison ends in buf
	held  int64    // bytes of raws held against the in-flight budget
	offs  []int64  // their byte offsets in the file
	rows  []Row
	err   error
	done  chan struct{}
}

const (
	// batchSize and batchBytes end a batch: comparisons, and bytes of
	// their JSON.
	batchSize  = 64
	batchBytes = 4 << 20
	// inFlightBytes bounds the JSON of comparisons read but not yet
	// appended, whatever their sizes (at least one value at the limit).
	inFlightBytes = 32 << 20
)

// pipeline is one comparisons array on its way from the reader through
// the decoding workers to the appender.
type pipeline struct {
	ctx           context.Context
	dec           *jsontext.Decoder
	file          string
	in            *decoder
	work, ordered chan *batch   // to the workers; to the appender, in file order
	stop          chan struct{} // closed by the appender at its first error
	inFlight      *semaphore.Weighted
	budget        int64
	cur           *batch // the batch being filled
}

// appendInOrder appends the batches' rows in file order and stops at the
// first error, draining the rest so the reader and workers can end.
func (p *pipeline) appendInOrder() error {
	var err error
	for b := range p.ordered {
		<-b.done
		p.inFlight.Release(b.held)
		if err != nil {
			continue // drain
		}
		if err = b.err; err == nil {
			for _, r := range b.rows {
				if err = p.in.sink.Add(r); err != nil {
					break
				}
			}
		}
		if err != nil {
			close(p.stop)
		}
	}
	return err
}

// read splits the array into comparisons and hands them on in batches.
func (p *pipeline) read() error {
	defer func() {
		close(p.work)
		close(p.ordered)
	}()
	p.cur = &batch{done: make(chan struct{})}
	for i := 0; p.dec.PeekKind() != ']'; i++ {
		if i%4096 == 0 {
			if err := p.ctx.Err(); err != nil {
				return err
			}
		}
		start := p.dec.InputOffset()
		p.in.markValue(p.dec)
		raw, err := p.dec.ReadValue()
		if err != nil {
			return p.in.overLimit(err, "comparisons["+strconv.Itoa(i)+"]", start, func(err error) error { return jsonin.Err(p.file, p.dec, err) })
		}
		// Where the value starts, past the whitespace before it, so that an
		// error in it names the comparison's line.
		off := p.dec.InputOffset() - int64(len(raw))
		if ok, err := p.hold(int64(len(raw))); err != nil || !ok {
			return err
		}
		// ReadValue's bytes are only valid until the next read.
		b := p.cur
		b.buf = append(b.buf, raw...)
		b.ends = append(b.ends, len(b.buf))
		b.raws = append(b.raws, nil) // set by send
		b.offs = append(b.offs, off)
		if (len(b.raws) == batchSize || b.held >= batchBytes) && !p.send() {
			return nil
		}
	}
	if len(p.cur.raws) > 0 {
		p.send()
	}
	return nil
}

// send hands the batch being filled to the appender and a worker and
// starts the next; false once the appender has stopped.
func (p *pipeline) send() bool {
	b := p.cur
	prev := 0
	for j, end := range b.ends {
		b.raws[j] = b.buf[prev:end:end]
		prev = end
	}
	// Read before the batch is handed on: the worker clears it.
	n, size := len(b.raws), cap(b.buf)
	select {
	case p.ordered <- b:
	case <-p.stop:
		return false
	}
	select {
	case p.work <- b:
	case <-p.stop:
		close(b.done)
		return false
	}
	// The next batch's buffer starts at this one's size: most batches
	// then need no growing.
	p.cur = &batch{start: b.start + n, done: make(chan struct{}), buf: make([]byte, 0, min(size, batchBytes))}
	return true
}

// hold takes n bytes of the in-flight budget. The batch being filled is
// sent first when the budget is short, so that what is held can always be
// released.
func (p *pipeline) hold(n int64) (bool, error) {
	n = min(n, p.budget)
	if !p.inFlight.TryAcquire(n) {
		if len(p.cur.raws) > 0 && !p.send() {
			return false, nil
		}
		if err := p.inFlight.Acquire(p.ctx, n); err != nil {
			return false, err
		}
	}
	p.cur.held += n
	return true, nil
}

// decode turns the batch's JSON into rows, or the first error with its
// place in the file.
func (b *batch) decode(fast *fastDecoder, file string, v2, haveMeta bool, ann map[string]int, items jsonin.Items) {
	// The rows hold copies: the JSON can go before the batch is appended
	// (the in-flight budget still counts it until then).
	defer func() {
		b.buf, b.raws = nil, nil
		fast.release()
	}()
	b.rows = make([]Row, 0, len(b.raws))
	for j, raw := range b.raws {
		if err := jsonin.CheckItems(raw, items); err != nil {
			var ie *jsonin.ItemsError
			errors.As(err, &ie)
			b.err = &model.InputError{File: file, Offset: b.offs[j], Line: jsonin.LineAt(file, b.offs[j]),
				Path: jsonin.JoinPath("comparisons["+strconv.Itoa(b.start+j)+"]", ie.Path), Msg: ie.Msg()}
			return
		}
		row, ok := fast.row(raw, v2, haveMeta)
		if !ok {
			var err error
			if row, err = fullRow(raw, v2, haveMeta); err != nil {
				b.err = placeErr(file, "comparisons["+strconv.Itoa(b.start+j)+"]", b.offs[j], err)
				return
			}
		}
		row.prepare(ann)
		b.rows = append(b.rows, row)
	}
}
