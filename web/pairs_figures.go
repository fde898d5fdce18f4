package web

import (
	"fmt"
	"math"
	"strings"
	"unicode/utf8"

	"github.com/a-h/templ"
	"github.com/labstack/echo/v4"
	"gonum.org/v1/plot/vg"

	"github.com/auditscope/auditscope/views"
	"github.com/auditscope/auditscope/views/figures"
	"github.com/auditscope/auditscope/views/links"
	"github.com/auditscope/auditscope/web/app"
)

// The explorer's figures take the explorer's query (mode, ref, refmodels,
// split, values, metric, sort, dir) and draw what the page shows.
const (
	pairsFigureLabel  = 32   // longest row label, in characters, before it is cut
	pairsLengthPoints = 5000 // most dots the length figure draws
)

// figureStem is a dataset id made safe for a file name.
func figureStem(id string) string {
	return strings.Map(func(r rune) rune {
		if r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z' || r >= '0' && r <= '9' || r == '-' || r == '_' || r == '.' {
			return r
		}
		return '_'
	}, id)
}

// shortLabel cuts a label to pairsFigureLabel characters.
func shortLabel(s string) string {
	if utf8.RuneCountInString(s) <= pairsFigureLabel {
		return s
	}
	r := []rune(s)
	return string(r[:pairsFigureLabel-1]) + "…"
}

// figureTitle says what the table compares.
func (t explorerTable) figureTitle(what string) string {
	switch {
	case t.q.Models:
		return what + " of each trait against each model"
	case t.Split != "":
		return what + " against " + t.Ref.Name + " by " + t.Split
	case len(t.Refs) > 1 && len(t.With) > 0:
		return what + " against each reference and dataset"
	case len(t.Refs) > 1:
		return what + " against each reference"
	case len(t.With) > 0:
		return what + " against " + t.Ref.Name + " across datasets"
	default:
		return what + " against " + t.Ref.Name
	}
}

// pairsStrengthFigure draws every row's strength with its bootstrap interval
// in each column, rows sorted by the sort column (the first column when the
// table is sorted by name or spread), largest at the top.
func (s *Server) pairsStrengthFigure(c echo.Context, _, ext string) error {
	r, q, err := s.explorerRequest(c)
	if err != nil {
		return err
	}
	t, err := s.explorerTable(c.Request().Context(), r, q, app.ForStrength)
	if err != nil {
		return err
	}
	v := t.view
	v.metric, _ = app.LookupMetric("strength")
	v.ci = true
	if (v.sort == "name" || v.sort == "spread") && len(t.Columns) > 0 {
		v.sort = t.Columns[0].Key
	}
	v.desc = true
	rows := t.rowsAs(r, v)

	title := t.figureTitle("Strength") + " (95% CI)"
	const xLabel = "strength: (agree − disagree) / pairs"
	w := figures.ColumnWidth
	if len(t.Columns) == 1 {
		items := make([]figures.Interval, len(rows))
		kinds := map[string]bool{}
		for i, row := range rows {
			cell := row.Cells[0]
			items[i] = figures.Interval{Label: shortLabel(row.Name), Group: row.Kind, Value: cell.Value, Lo: cell.Lo, Hi: cell.Hi}
			kinds[row.Kind] = true
		}
		fig, err := figures.DotWhisker(title, xLabel, items)
		if err != nil {
			return err
		}
		return writeFigure(c, fig, w, figures.DotWhiskerHeight(len(items), 1, len(kinds)), ext, figureStem(r.DS.ID)+"-strength")
	}
	labels := make([]string, len(rows))
	for i, row := range rows {
		labels[i] = shortLabel(row.Name)
	}
	series := make([]figures.Series, len(t.Columns))
	for j, col := range t.Columns {
		series[j].Name = shortLabel(col.Label)
		for _, row := range rows {
			cell := row.Cells[j]
			series[j].Points = append(series[j].Points, figures.Point{Value: cell.Value, Lo: cell.Lo, Hi: cell.Hi})
		}
	}
	fig, err := figures.DotWhiskerSeries(title, xLabel, labels, series)
	if err != nil {
		return err
	}
	if len(t.Columns) > 4 {
		w = 2 * figures.ColumnWidth
	}
	return writeFigure(c, fig, w, figures.DotWhiskerHeight(len(rows), len(series), len(series)), ext, figureStem(r.DS.ID)+"-strength")
}

// metricScale is the colour scale of a metric: centred like the table's
// shading (kappa-like metrics around 0, accuracy around its chance level
// 0.5, shares and counts from 0 up), but reaching only as far as the values
// do, rounded up (figures.NiceBound), so small differences stay visible; the
// colour bar shows the range. It returns the digits to print too.
func metricScale(m app.Metric, values [][]float64) (figures.Diverging, int) {
	center, digits, oneSided := 0.0, 2, false
	switch m.Key {
	case "strength", "kappa", "kappa_unadjusted":
	case "accuracy":
		center = 0.5
	case "relevance", "agreement":
		oneSided = true
	default: // counts
		digits, oneSided = 0, true
	}
	var reach float64
	for _, row := range values {
		for _, v := range row {
			if !math.IsNaN(v) {
				reach = math.Max(reach, math.Abs(v-center))
			}
		}
	}
	b := figures.NiceBound(reach)
	if digits == 0 {
		b = math.Max(reach, 1) // counts: up to the largest
	}
	switch {
	case oneSided:
		return figures.Diverging{Min: center, Center: center, Max: center + b}, digits
	case center == 0.5:
		b = math.Min(b, 0.5)
	default:
		b = math.Min(b, 1)
	}
	return figures.Diverging{Min: center - b, Center: center, Max: center + b}, digits
}

// pairsHeatmapFigure draws the table as a heat map of the chosen metric, in
// the table's row order.
func (s *Server) pairsHeatmapFigure(c echo.Context, _, ext string) error {
	r, q, err := s.explorerRequest(c)
	if err != nil {
		return err
	}
	t, err := s.explorerTable(c.Request().Context(), r, q, app.ForHeatMap)
	if err != nil {
		return err
	}
	t.view.ci = false
	rows := t.viewRows(r)
	labels := make([]string, len(rows))
	values := make([][]float64, len(rows))
	for i, row := range rows {
		labels[i] = shortLabel(row.Name)
		values[i] = make([]float64, len(row.Cells))
		for j, cell := range row.Cells {
			values[i][j] = cell.Value
		}
	}
	cols := make([]string, len(t.Columns))
	for j, col := range t.Columns {
		cols[j] = col.Label
	}
	scale, digits := metricScale(t.view.metric, values)
	fig := figures.HeatMap(t.figureTitle(t.view.metric.Label), t.view.metric.Label, labels, cols, values, scale, digits)
	w, h := figures.ColumnWidth, figures.HeatMapHeight(len(rows))
	if len(cols) > 4 {
		w, h = 2*figures.ColumnWidth, h+vg.Points(30)
	}
	return writeFigure(c, fig, w, h, ext, figureStem(r.DS.ID)+"-heatmap")
}

// pairsLengthFigure draws the length-bias view: each comparison the
// reference decides as (rejected length, preferred length), with the share
// of pairs above y = x (the longer response preferred) in the title.
func (s *Server) pairsLengthFigure(c echo.Context, _, ext string) error {
	r, refKey, err := s.refRequest(c)
	if err != nil {
		return err
	}
	ref, _ := r.Annotator(refKey)
	if !r.DS.Texts {
		return writeFigure(c, figures.Empty("Length bias of "+ref.Name, "No response texts in this file (annotation only): no lengths"),
			figures.ColumnWidth, figures.ColumnWidth*0.5, ext, figureStem(r.DS.ID)+"-length")
	}
	b, o := r.LengthBias(ref.Key)
	n := len(b.Preferred)
	title := "Length bias of " + ref.Name + ": no text_a or text_b vote"
	x, y := b.Rejected, b.Preferred
	if n > 0 {
		// The share is the overview card's, computed and rounded the same
		// way (equal lengths count text_b as the longer, as Feedback
		// Forensics does), so the page and its figure agree.
		title = fmt.Sprintf("Length bias of %s: the longer response preferred\nin %s%% of %d pairs (equal lengths: %s%%)",
			ref.Name, views.Num(100*o.PropLonger, 1), n, views.Num(100*float64(b.Equal)/float64(n), 1))
		if n > pairsLengthPoints {
			// Every k-th pair, so the figure stays small; the shares above
			// count every pair.
			k := (n + pairsLengthPoints - 1) / pairsLengthPoints
			x, y = nil, nil
			for i := 0; i < n; i += k {
				x, y = append(x, b.Rejected[i]), append(y, b.Preferred[i])
			}
			title += fmt.Sprintf("; every %d. pair drawn", k)
		}
	}
	fig, err := figures.PairedLengths(title, "rejected response (characters)", "preferred response (characters)", x, y)
	if err != nil {
		return err
	}
	return writeFigure(c, fig, figures.ColumnWidth, figures.ColumnWidth, ext, figureStem(r.DS.ID)+"-length")
}

// explorerFigures are the explorer page's figures, drawn from the page's
// own query.
func explorerFigures(r *pairsReq, t explorerTable) []views.PairsFigure {
	q := t.query(r)
	fig := func(name, title, alt string) views.PairsFigure {
		u := func(format string) templ.SafeURL {
			return links.PairsFigure(r.DS.ID, name+"."+format, q)
		}
		return views.PairsFigure{Title: title, Alt: alt, TestID: "figure-" + name, PNG: u("png"), SVG: u("svg"), PDF: u("pdf")}
	}
	out := []views.PairsFigure{
		fig("strength", "Strength with 95% intervals", "dot-and-whisker chart of each row's strength with its bootstrap interval, sorted by value"),
		fig("heatmap", "Heat map: "+t.view.metric.Label, "heat map of the table's metric, rows by columns, on a diverging colour scale"),
	}
	if !t.q.Models {
		lq := r.base()
		lq.Set("ref", t.Ref.Key)
		u := func(format string) templ.SafeURL {
			return links.PairsFigure(r.DS.ID, "length."+format, lq)
		}
		out = append(out, views.PairsFigure{Title: "Length bias: preferred against rejected length", TestID: "figure-length",
			Alt: "scatter of the rejected and the preferred response's length per comparison, with the line y = x",
			PNG: u("png"), SVG: u("svg"), PDF: u("pdf")})
	}
	return out
}
