package web

import (
	"bytes"
	"math"
	"strconv"

	"github.com/labstack/echo/v4"

	"github.com/auditscope/auditscope/web/app"
)

// annotatorsCSVHeader is the header of annotators.csv.
var annotatorsCSVHeader = []string{"annotator", "name", "kind", "kept", "agree", "disagree", "not_applicable",
	"relevance", "accuracy", "agreement", "kappa", "kappa_unadjusted", "strength", "strength_lo", "strength_hi"}

// overviewCSVHeader is the header of overview.csv.
var overviewCSVHeader = []string{"pairs", "prop_a", "avg_len_a", "avg_len_b", "avg_len_preferred", "avg_len_rejected", "prop_longer"}

// pairsAnnotatorsCSV exports every annotator's metrics against the
// reference (ref, refmodels as on the explorer), strength with its
// bootstrap interval.
func (s *Server) pairsAnnotatorsCSV(c echo.Context) error {
	r, ref, err := s.refRequest(c)
	if err != nil {
		return err
	}
	rows, stats, err := r.AnnotatorStats(ref)
	if err != nil {
		return err
	}
	var buf bytes.Buffer
	w := newCSVWriter(&buf)
	w.Write(annotatorsCSVHeader)
	for i, a := range rows {
		st := stats[i]
		g := st.Agreement
		w.Write([]string{a.Key, a.Name, a.Kind, strconv.Itoa(g.Kept), strconv.Itoa(g.Agree), strconv.Itoa(g.Disagree),
			strconv.Itoa(g.NotApplicable), csvFloat(g.Relevance), csvFloat(g.Accuracy), csvFloat(g.Agreement),
			csvFloat(g.Kappa), csvFloat(st.KappaUnadjusted), csvFloat(g.Strength), csvFloat(st.Strength.Lo), csvFloat(st.Strength.Hi)})
	}
	w.Flush()
	if err := w.Error(); err != nil {
		return err
	}
	return csvBlob(c, r.DS.ID+"-annotators.csv", buf.Bytes())
}

// pairsOverviewCSV exports the overall statistics for the reference.
func (s *Server) pairsOverviewCSV(c echo.Context) error {
	r, ref, err := s.refRequest(c)
	if err != nil {
		return err
	}
	o := r.LengthOverview(ref)
	var buf bytes.Buffer
	w := newCSVWriter(&buf)
	w.Write(overviewCSVHeader)
	w.Write([]string{strconv.Itoa(o.Pairs), csvFloat(o.PropA), csvFloat(o.AvgLenA), csvFloat(o.AvgLenB),
		csvFloat(o.AvgLenPreferred), csvFloat(o.AvgLenRejected), csvFloat(o.PropLonger)})
	w.Flush()
	if err := w.Error(); err != nil {
		return err
	}
	return csvBlob(c, r.DS.ID+"-overview.csv", buf.Bytes())
}

// tableCSVHeader is the header of table.csv.
var tableCSVHeader = []string{"annotator", "name", "kind", "column", "dataset", "reference", "split", "split_value", "metric", "value", "lo", "hi", "pairs", "interval"}

// pairsTableCSV exports the explorer's table as shown, from the same query:
// one row per annotator (or trait) and column, in the table's order, the
// interval filled unless ci=0 when the metric has one.
func (s *Server) pairsTableCSV(c echo.Context) error {
	r, q, err := s.explorerRequest(c)
	if err != nil {
		return err
	}
	t, err := s.explorerTable(c.Request().Context(), r, q, app.ForPage)
	if err != nil {
		return err
	}
	index := make(map[string]int, len(t.Rows))
	for i, a := range t.Rows {
		index[a.Key] = i
	}
	var out [][]string
	for _, row := range t.viewRows(r) {
		i := index[row.Key]
		for j, col := range t.Columns {
			cell := row.Cells[j]
			pairs := strconv.Itoa(t.Stats[j][i].Agreement.Kept)
			if t.Stats[j][i].Absent != "" {
				pairs = ""
			}
			// A column of another dataset (with=) is computed on that
			// dataset's comparisons.
			out = append(out, []string{row.Key, row.Name, row.Kind, col.Label, col.Dataset(r.Pairs).DS.ID, col.Ref.Key, col.Split, col.Value, t.view.metric.Key,
				csvFloat(cell.Value), csvFloat(cell.Lo), csvFloat(cell.Hi), pairs, intervalOf(t.view.metric.Key, cell.Lo)})
		}
	}
	return writeCSV(c, figureStem(r.DS.ID)+"-table.csv", tableCSVHeader, out)
}

// intervalOf names table.csv's interval for a metric: strength's is a
// percentile bootstrap over comparisons, accuracy's and relevance's are
// Wilson's; the others have none (nor has a cell shown without, ci=0).
func intervalOf(metric string, lo float64) string {
	if math.IsNaN(lo) {
		return ""
	}
	switch metric {
	case "strength":
		return "percentile bootstrap 95% over comparisons"
	case "accuracy", "relevance":
		return "Wilson 95%"
	}
	return ""
}
