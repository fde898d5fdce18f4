package web

import (
	"errors"
	"fmt"
	"math"
	"net/http"
	"slices"
	"strconv"
	"time"

	"github.com/labstack/echo/v4"

	"github.com/auditscope/auditscope/data/model"
	"github.com/auditscope/auditscope/views"
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
	export, err := s.app.Export(ctx, f)
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
	w := newCSVWriter(resp)
	if err := w.Write(header); err != nil {
		return err
	}
	for rows != nil {
		if err := writeExportRows(w, rows, export.Dims); err != nil {
			return err // the client went away
		}
		resp.Flush()
		if export.Done() {
			return nil // no slot to wait for to learn that nothing is left
		}
		if err := s.nextChunk(c, next); err != nil {
			return &streamError{err: err}
		}
	}
	return nil
}

// writeExportRows writes one chunk of the export and flushes it to the
// response, with the chunk's score columns in the order of dims.
func writeExportRows(w csvWriter, rows []app.ExportRow, dims []string) error {
	for _, r := range rows {
		rec := append(auditCSVRecord(r.AuditRow), r.AuditorName, r.Run, r.RunName, r.BehaviorDescription)
		for i := range dims {
			v := math.NaN() // an audit without scores has no slice
			if i < len(r.Scores) {
				v = r.Scores[i]
			}
			rec = append(rec, csvFloat(v)) // "" for NaN
		}
		if err := w.Write(rec); err != nil {
			return err
		}
	}
	w.Flush()
	return w.Error()
}

func auditCSVRecord(r model.AuditRow) []string {
	return []string{r.Experiment, r.ID, r.Auditor, r.Eval, r.Behavior, r.Split, r.Seed, r.Target, strconv.Itoa(r.Turns), strconv.Itoa(r.Messages),
		nullBool(r.Detected), nullBool(r.FalsePositive), nullFloat(r.Quality), nullFloat(r.ProductionValue),
		r.Strategy, r.Summary, string(views.Path("audits", r.Key))}
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

// nextChunk computes an export's next chunk in a slot. A download that has
// started is not refused halfway: when the scheduler is busy, its request
// waits again (in its turn) until the client goes away.
func (s *Server) nextChunk(c echo.Context, next func() error) error {
	ctx := c.Request().Context()
	for {
		err := s.inSlot(c, next)
		var busy *app.Busy
		if !errors.As(err, &busy) {
			return err
		}
		t := time.NewTimer(100 * time.Millisecond) // not at once: the refusal may be the client's own flood
		select {
		case <-ctx.Done():
			t.Stop()
			return ctx.Err()
		case <-t.C:
		}
	}
}
