package web

import (
	"bytes"
	"math"
	"net/http"
	"strconv"
	"strings"

	"github.com/labstack/echo/v4"

	"github.com/auditscope/auditscope/views"
	"github.com/auditscope/auditscope/views/figures"
	"github.com/auditscope/auditscope/views/links"
	"github.com/auditscope/auditscope/web/app"
)

// The compare and units pages of an experiment of plain Inspect samples:
// A and B are models, each row a scorer's metric, each unit a sample of a
// task (its epochs reduced to their mean).

// forSamples runs samples, and reports that it did, when the request's
// experiment holds plain Inspect samples: its compare and units pages are
// by model and sample, not by auditor and evaluation dimension.
// It reads the experiment's header, not its statistics: an experiment of
// audits goes on to its own page's method, which checks the query before
// it computes them.
func (s *Server) forSamples(c echo.Context, samples func(*app.ExperimentStats) error) (bool, error) {
	ctx := c.Request().Context()
	e, err := s.stats.Experiment(ctx, c.Param("exp"))
	if err != nil {
		return false, err
	}
	ok, err := s.samples.IsSamples(ctx, e)
	if err != nil || !ok {
		return false, err
	}
	st, err := s.stats.Stats(ctx, e.ID)
	if err != nil {
		return true, err
	}
	return true, samples(st)
}

// sampleCompareData is the samples' compare page's loader: the query and
// A against each B.
func (s *Server) sampleCompareData(c echo.Context, st *app.ExperimentStats, needBoth bool) (app.CompareQuery, [][]app.SampleDiff, error) {
	q := compareQueryOf(c)
	q.Judge = st.Judge // the samples' scores are their scorers', not a judge's
	ids := make([]string, len(st.Auditors))
	for i, a := range st.Auditors {
		ids[i] = a.Auditor.ID
	}
	cq, err := app.CheckCompare(q, ids, needBoth, "model")
	if err != nil {
		return cq, nil, err
	}
	var out [][]app.SampleDiff
	for _, b := range cq.B {
		ds, err := s.samples.SampleCompare(c.Request().Context(), st.Exp.ID, cq.A, b)
		if err != nil {
			return cq, nil, err
		}
		out = append(out, ds)
	}
	return cq, out, nil
}

func (s *Server) showSampleCompare(c echo.Context, st *app.ExperimentStats) error {
	cq, blocks, err := s.sampleCompareData(c, st, false)
	if err != nil {
		return err
	}
	names := auditorNames(st)
	vm := views.CompareView{Exp: st.Exp, Query: compareValues(cq), A: cq.A, B: cq.B, Samples: true}
	for _, a := range st.Auditors {
		vm.Auditors = append(vm.Auditors, views.Option{Value: a.Auditor.ID, Label: a.Auditor.Name})
	}
	for i, ds := range blocks {
		blk := views.CompareBlock{A: cq.A, AName: names[cq.A], B: cq.B[i], BName: names[cq.B[i]]}
		for _, d := range ds {
			blk.Rows = append(blk.Rows, sampleRow(d))
		}
		vm.Blocks = append(vm.Blocks, blk)
	}
	return render(c, http.StatusOK, views.ComparePage(vm))
}

func sampleRow(d app.SampleDiff) views.CompareRow {
	return views.CompareRow{Dim: d.Metric, Title: d.Metric, Value: d.Value, Lo: d.Lo, Hi: d.Hi, P: d.P, PHolm: d.PHolm,
		NA: d.NA, NB: d.NB, Pairs: d.Pairs, Method: d.Method, Unit: "sample", OnlyA: d.OnlyA, OnlyB: d.OnlyB, Samples: true}
}

// sampleCompareCSV is compare.csv of a samples experiment, in its columns.
func (s *Server) sampleCompareCSV(c echo.Context, st *app.ExperimentStats) error {
	cq, blocks, err := s.sampleCompareData(c, st, true)
	if err != nil {
		return err
	}
	var buf bytes.Buffer
	w := newCSVWriter(&buf)
	w.Write([]string{"a", "b", "dimension", "diff", "lo", "hi", "p", "p_holm", "n_a", "n_b", "pairs", "method", "unit", "only_a", "only_b"})
	for i, ds := range blocks {
		for _, d := range ds {
			w.Write([]string{cq.A, cq.B[i], d.Metric, csvFloat(d.Value), csvFloat(d.Lo), csvFloat(d.Hi), csvFloat(d.P), csvFloat(d.PHolm),
				strconv.Itoa(d.NA), strconv.Itoa(d.NB), strconv.Itoa(d.Pairs), d.Method, "sample", strconv.Itoa(d.OnlyA), strconv.Itoa(d.OnlyB)})
		}
	}
	w.Flush()
	if err := w.Error(); err != nil {
		return err
	}
	return csvBlob(c, st.Exp.ID+"-compare.csv", buf.Bytes())
}

// sampleUnitsData is the samples' units page's loader: the query (dim is
// a metric), A against B on every metric (the page's row and its picker),
// and the samples of dim the filter shows.
func (s *Server) sampleUnitsData(c echo.Context, st *app.ExperimentStats) (unitsQuery, []app.SampleDiff, []app.SampleUnit, error) {
	ctx := c.Request().Context()
	metrics, err := s.samples.SampleMetrics(ctx, st.Exp.ID)
	if err != nil {
		return unitsQuery{}, nil, nil, err
	}
	uq, err := parseUnitsQuery(c.QueryParams(), st, metrics)
	if err != nil {
		return uq, nil, nil, err
	}
	all, err := s.samples.SampleUnits(ctx, st.Exp.ID, uq.A, uq.B, uq.Dim)
	if err != nil {
		return uq, nil, nil, err
	}
	ds, err := s.samples.SampleCompare(ctx, st.Exp.ID, uq.A, uq.B)
	if err != nil {
		return uq, nil, nil, err
	}
	var shown []app.SampleUnit
	for _, u := range all {
		if uq.keepSample(u) {
			shown = append(shown, u)
		}
	}
	switch uq.Sort {
	case "signed":
		app.SampleBySignedDifference(shown)
	case "diff":
		app.SampleByDifference(shown)
	}
	return uq, ds, shown, nil
}

// keepSample is keep for a sample.
func (uq unitsQuery) keepSample(u app.SampleUnit) bool {
	switch uq.Show {
	case "discordant":
		return u.Paired && u.Diff != 0
	case "ahead-a":
		return u.Paired && u.Diff > 0
	case "ahead-b":
		return u.Paired && u.Diff < 0
	case "tied":
		return u.Paired && u.Diff == 0
	case "a":
		return u.A.Has() && !u.B.Has()
	case "b":
		return u.B.Has() && !u.A.Has()
	}
	return true
}

func (s *Server) showSampleUnits(c echo.Context, st *app.ExperimentStats) error {
	uq, ds, shown, err := s.sampleUnitsData(c, st)
	if err != nil {
		return err
	}
	if past, err := pastLastPage(c, c.Request().URL.Path, c.Request().URL.Query(), uq.Page, len(shown), unitsPerPage); past {
		return err
	}
	var row app.SampleDiff
	names := auditorNames(st)
	vm := views.UnitsView{Exp: st.Exp, Query: uq.values(), A: uq.A, AName: names[uq.A], B: uq.B, BName: names[uq.B],
		Dim: uq.Dim, Title: uq.Dim, Unit: "sample", Show: uq.Show, Sort: uq.Sort, Total: len(shown), Page: uq.Page, Per: unitsPerPage, Samples: true}
	for _, d := range ds {
		vm.Dims = append(vm.Dims, views.Option{Value: d.Metric, Label: d.Metric})
		if d.Metric == uq.Dim {
			row = d
		}
	}
	vm.Row, vm.Binary = sampleRow(row), row.Binary
	vm.NA, vm.NB, vm.Pairs, vm.OnlyA, vm.OnlyB = row.NA, row.NB, row.Pairs, row.OnlyA, row.OnlyB
	for _, u := range shown[min(len(shown), (uq.Page-1)*unitsPerPage):min(len(shown), uq.Page*unitsPerPage)] {
		vm.Rows = append(vm.Rows, sampleUnitRow(st.Exp.ID, u))
	}
	return render(c, http.StatusOK, views.UnitsPage(vm))
}

func sampleUnitRow(exp string, u app.SampleUnit) views.UnitRow {
	side := func(s app.Side) views.UnitSideView {
		v := views.UnitSideView{Value: s.Value}
		for i, id := range s.Audits {
			v.Audits = append(v.Audits, views.UnitAudit{ID: id, URL: links.Audit(exp+":"+id, nil), Value: s.Values[i]})
		}
		return v
	}
	r := views.UnitRow{Behavior: u.Task, Seed: u.Sample, A: side(u.A), B: side(u.B), Paired: u.Paired, Diff: u.Diff, Binary: u.Binary, Samples: true}
	if u.A.Has() && u.B.Has() {
		r.SideBySide = views.SideBySideURL(exp+":"+u.A.Audits[0], exp+":"+u.B.Audits[0])
	}
	return r
}

// sampleUnitsCSV is units.csv of a samples experiment: one row per sample
// of a task, each side's records (epochs) and their mean.
func (s *Server) sampleUnitsCSV(c echo.Context, st *app.ExperimentStats) error {
	uq, _, shown, err := s.sampleUnitsData(c, st)
	if err != nil {
		return err
	}
	var buf bytes.Buffer
	w := newCSVWriter(&buf)
	w.Write([]string{"a", "b", "metric", "task", "sample", "a_records", "a_value", "b_records", "b_value", "paired", "diff"})
	for _, u := range shown {
		w.Write([]string{uq.A, uq.B, uq.Dim, u.Task, u.Sample, strings.Join(u.A.Audits, " "), csvFloat(u.A.Value),
			strings.Join(u.B.Audits, " "), csvFloat(u.B.Value), strconv.FormatBool(u.Paired), csvFloat(u.Diff)})
	}
	w.Flush()
	if err := w.Error(); err != nil {
		return err
	}
	return csvBlob(c, st.Exp.ID+"-units.csv", buf.Bytes())
}

// sampleCompareFigure draws the metrics' differences as a forest plot.
func (s *Server) sampleCompareFigure(c echo.Context, st *app.ExperimentStats, ext string) error {
	cq, blocks, err := s.sampleCompareData(c, st, false)
	if err != nil {
		return err
	}
	names := auditorNames(st)
	var items []figures.Interval
	for i, ds := range blocks {
		for _, d := range ds {
			if math.IsNaN(d.Value) {
				continue
			}
			label := d.Metric
			if len(blocks) > 1 {
				label += " · vs " + names[cq.B[i]]
			}
			items = append(items, differenceItem(label, d.Value, d.Lo, d.Hi))
		}
	}
	p, err := figures.ForestPlot(differenceTitle(cq.A, cq.B, names), "difference (the scorer's units)", items)
	if err != nil {
		return err
	}
	return writeFigure(c, p, figures.ColumnWidth*2, figures.IntervalChartHeight(items), ext, st.Exp.ID+"-compare")
}
