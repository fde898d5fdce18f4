package web

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"math"
	"net/http"
	"slices"
	"strconv"
	"time"

	"github.com/labstack/echo/v4"

	"github.com/auditscope/auditscope/data/model"
	"github.com/auditscope/auditscope/views/links"
	"github.com/auditscope/auditscope/web/app"
)

// The audit browser's export: every audit a filter selects, as CSV.

var auditsCSVHeader = []string{"experiment", "id", "auditor", "eval", "behavior", "split", "seed", "target", "turns", "messages", "detected", "false_positive", "quality", "production_value", "strategy", "summary", "url"}

// auditsCSV exports every audit the filter selects (not one page). It
// writes each chunk the service reads as it comes, flushing it to the
// client, so memory stays bounded however many audits match (a
// 100,000-audit export is tens of MB).
func (s *Server) auditsCSV(c echo.Context) error {
	f, err := parseAuditFilter(c.QueryParams())
	if err != nil {
		return err
	}
	ctx := c.Request().Context()
	export, err := s.audits.Export(ctx, f)
	if err != nil {
		return err
	}
	// One column per judge dimension of the selection, after the fixed ones.
	header := append(slices.Clone(auditsCSVHeader), "auditor_name", "run", "run_name", "behavior_description")
	for _, d := range export.Dims {
		header = append(header, "score:"+d)
	}
	// Each chunk is computed in a slot of the heavy work, which it gives
	// back before the chunk is written: a slow client holds a connection
	// and a chunk, not a slot. The first chunk is read before anything is
	// sent, so a failing query (or a refusal) still gets an error page.
	var rows []app.ExportRow
	next := func() error {
		var err error
		rows, err = export.Next(ctx)
		return err
	}
	if err := s.inSlot(c, next); err != nil {
		return err
	}
	resp := c.Response()
	resp.Header().Set("Content-Disposition", `attachment; filename="audits.csv"`)
	resp.Header().Set(echo.HeaderContentType, "text/csv; charset=utf-8")
	resp.WriteHeader(http.StatusOK)
	w := newExportWriter(resp)
	if err := w.csv.Write(header); err != nil {
		return err
	}
	return s.streamExport(ctx, clientOf(c), w, resp, export, rows)
}

// streamExport writes an export's first chunk, rows, and the chunks after
// it. The next chunk is read while this one is written: the query runs on
// DuckDB's threads and the writing on this one, which took the full
// export's time from their sum to about the larger of the two. One chunk
// is read ahead at most, so memory stays two chunks.
func (s *Server) streamExport(ctx context.Context, client string, w *exportWriter, resp http.Flusher, export *app.Export, rows []app.ExportRow) error {
	if export.Done() {
		return w.rows(rows, export.Dims)
	}
	ahead := make(chan exportChunk, 1)
	rctx, stop := context.WithCancel(ctx)
	done := make(chan struct{})
	go func() {
		defer close(done)
		s.readAhead(rctx, client, export, ahead)
	}()
	// The handler returns (and its echo.Context goes back to echo's pool)
	// only once the reader has stopped.
	defer func() { stop(); <-done }()
	for {
		if err := w.rows(rows, export.Dims); err != nil {
			return err // the client went away
		}
		resp.Flush()
		next, ok := <-ahead
		if !ok {
			return nil
		}
		if next.err != nil {
			return &streamError{err: next.err}
		}
		rows = next.rows
	}
}

// exportChunk is a chunk of an export read ahead, or the error that ended
// the reading.
type exportChunk struct {
	rows []app.ExportRow
	err  error
}

// readAhead reads an export's chunks after the first and sends them on
// out, which it closes at the end (after an error, sent as a chunk).
func (s *Server) readAhead(ctx context.Context, client string, export *app.Export, out chan<- exportChunk) {
	defer close(out)
	for !export.Done() {
		rows, err := s.chunkInSlot(ctx, client, export)
		select {
		case out <- exportChunk{rows, err}:
		case <-ctx.Done():
			return
		}
		if err != nil {
			return
		}
	}
}

// chunkInSlot reads an export's next chunk in a slot of the heavy work. A
// download that has started is not refused halfway: when the scheduler is
// busy, the chunk waits again (in its turn) until the client goes away.
func (s *Server) chunkInSlot(ctx context.Context, client string, export *app.Export) ([]app.ExportRow, error) {
	for {
		release, err := s.sched.Acquire(ctx, client)
		if err == nil {
			defer release()
			// Each chunk is read under the store's view, as a page is: an
			// import's commit is not read halfway (a read between its
			// commit and its marking saw the new rows' strings as garbage,
			// data's TestReadsUnderViewDuringImports).
			defer s.store.View()()
			return export.Next(ctx)
		}
		if !errors.As(err, new(*busyError)) {
			return nil, err
		}
		t := time.NewTimer(100 * time.Millisecond) // not at once: the refusal may be the client's own flood
		select {
		case <-ctx.Done():
			t.Stop()
			return nil, ctx.Err()
		case <-t.C:
		}
	}
}

// exportWriter writes an export's rows to out, a chunk at a time: the
// audit's own cells through the CSV writer, and its packed score cells
// straight into the buffer (ExportRow.Packed: digits and commas, which
// need neither quotes nor the formula guard).
type exportWriter struct {
	out io.Writer
	buf *bytes.Buffer
	csv csvWriter // into buf
}

func newExportWriter(out io.Writer) *exportWriter {
	buf := new(bytes.Buffer)
	return &exportWriter{out: out, buf: buf, csv: newCSVWriter(buf)}
}

// rows writes one chunk of the export to out, with the chunk's score
// columns in the order of dims.
func (w *exportWriter) rows(rows []app.ExportRow, dims []string) error {
	for _, r := range rows {
		rec := append(auditCSVRecord(r.AuditRow), r.AuditorName, r.Run, r.RunName, r.BehaviorDescription)
		if r.Scores == nil && len(dims) > 0 {
			// The record, then its line end replaced by the score cells.
			if err := w.csv.Write(rec); err != nil {
				return err
			}
			w.csv.Flush()
			w.buf.Truncate(w.buf.Len() - 1)
			for i := range dims {
				w.buf.WriteByte(',')
				w.buf.WriteString(scoreCell[model.PackedScore(r.Packed, i)])
			}
			w.buf.WriteByte('\n')
			continue
		}
		for i := range dims {
			v := math.NaN() // a reader may give fewer scores than dims
			if i < len(r.Scores) {
				v = r.Scores[i]
			}
			rec = append(rec, csvFloat(v)) // "" for NaN
		}
		if err := w.csv.Write(rec); err != nil {
			return err
		}
	}
	w.csv.Flush()
	if err := w.csv.Error(); err != nil {
		return err
	}
	_, err := w.out.Write(w.buf.Bytes())
	w.buf.Reset()
	return err
}

func auditCSVRecord(r model.AuditRow) []string {
	return []string{r.Experiment, r.ID, r.Auditor, r.Eval, r.Behavior, r.Split, r.Seed, r.Target, strconv.Itoa(r.Turns), strconv.Itoa(r.Messages),
		nullBool(r.Detected), nullBool(r.FalsePositive), nullFloat(r.Quality), nullFloat(r.ProductionValue),
		r.Strategy, r.Summary, string(links.Audit(r.Key, nil))}
}

func nullBool(v *bool) string {
	if v == nil {
		return ""
	}
	return fmt.Sprint(*v)
}

func nullFloat(v *float64) string {
	if v == nil {
		return ""
	}
	return csvFloat(*v)
}

// scoreCell are the cells of the packed scores 0 (none) to 15: each as
// csvFloat writes a whole number, "" for none.
var scoreCell = [16]string{"", "1", "2", "3", "4", "5", "6", "7", "8", "9", "10", "11", "12", "13", "14", "15"}
