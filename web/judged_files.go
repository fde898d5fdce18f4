package web

import (
	"bytes"
	"strconv"

	"github.com/labstack/echo/v4"

	"github.com/auditscope/auditscope/views/figures"
	"github.com/auditscope/auditscope/web/app"
)

// judgedFor reads the query and computes the overview for the section's
// CSVs and figures; an experiment without judge dimensions is a 404.
func (s *Server) judgedFor(c echo.Context) (judgedQuery, *app.Judged, error) {
	jq, err := parseJudgedQuery(c.QueryParams())
	if err != nil {
		return jq, nil, err
	}
	// The overview only: the page's view model is not needed here.
	j, err := s.judged.JudgedOverview(c.Request().Context(), c.Param("exp"), jq.opts)
	if err != nil {
		return jq, nil, err
	}
	if len(j.Dims) == 0 {
		return jq, nil, notFound("judge dimensions in experiment " + strconv.Quote(c.Param("exp")))
	}
	switch {
	case jq.dim == "":
		jq.dim = defaultDim(j)
	case j.DimIndex(jq.dim) < 0:
		return jq, nil, badRequestf("jdim: the audits have no judge dimension %q", jq.dim)
	}
	return jq, j, nil
}

// dimensionsCSV serves every model × dimension at full precision, with the
// gate's counts.
func (s *Server) dimensionsCSV(c echo.Context) error {
	jq, j, err := s.judgedFor(c)
	if err != nil {
		return err
	}
	o := j.Overview
	excluded := map[string]int{}
	for i, e := range j.Exclusions {
		if e.Reason != "" {
			excluded[j.ModelOf(i)]++
		}
	}
	var buf bytes.Buffer
	w := newCSVWriter(&buf)
	w.Write([]string{"role", "model", "group", "dimension", "audits", "seeds", "mean", "mean_lo", "mean_hi",
		"threshold", "at_or_above", "yield", "yield_lo", "yield_hi", "model_audits_kept", "model_audits_excluded", "excluded_counted", "interval"})
	for _, g := range j.Groups {
		for _, pos := range g.Dims {
			for mi, m := range o.Models {
				cell := o.Cells[mi][pos]
				w.Write([]string{o.Role, m, g.Name, j.DimName(j.Dims[pos]), strconv.Itoa(cell.N), strconv.Itoa(cell.Seeds),
					csvFloat(cell.Mean.Value), csvFloat(cell.Mean.Lo), csvFloat(cell.Mean.Hi), num(jq.opts.Threshold), strconv.Itoa(cell.Hit),
					csvFloat(cell.Yield.Value), csvFloat(cell.Yield.Lo), csvFloat(cell.Yield.Hi),
					strconv.Itoa(o.Audits[mi]), strconv.Itoa(excluded[m]), strconv.FormatBool(jq.opts.Include),
					"mean: t 95% clustered by seed; yield: Wilson 95% on the design effect's n over seeds"})
			}
		}
	}
	w.Flush()
	if err := w.Error(); err != nil {
		return err
	}
	return csvBlob(c, j.Exp.ID+"-dimensions.csv", buf.Bytes())
}

// gateCSV lists every audit with the gate's verdict on it.
func (s *Server) gateCSV(c echo.Context) error {
	jq, j, err := s.judgedFor(c)
	if err != nil {
		return err
	}
	var buf bytes.Buffer
	w := newCSVWriter(&buf)
	w.Write([]string{"audit", "auditor", "target", "seed", "source", "epoch", "target_replies", "judge_output", "excluded", "reason", "detail"})
	for i, e := range j.Exclusions {
		a := &j.Set.Audits[i]
		replies := ""
		if a.TargetReplies >= 0 {
			replies = strconv.Itoa(a.TargetReplies)
		}
		w.Write([]string{a.Key, a.Auditor, a.Target, a.Seed, a.Source, strconv.Itoa(a.Epoch), replies, a.Judge,
			strconv.FormatBool(e.Reason != "" && !jq.opts.Include), e.Reason, e.Detail})
	}
	w.Flush()
	if err := w.Error(); err != nil {
		return err
	}
	return csvBlob(c, j.Exp.ID+"-gate.csv", buf.Bytes())
}

// judgedHeatmap draws the mean of every model on every dimension.
func (s *Server) judgedHeatmap(c echo.Context, _, ext string) error {
	_, j, err := s.judgedFor(c)
	if err != nil {
		return err
	}
	o := j.Overview
	// In the page's order: by group.
	var rows []string
	var values [][]float64
	for _, g := range j.Groups {
		for _, pos := range g.Dims {
			rows = append(rows, j.DimName(j.Dims[pos]))
			row := make([]float64, len(o.Models))
			for mi := range o.Models {
				row[mi] = o.Cells[mi][pos].Mean.Value
			}
			values = append(values, row)
		}
	}
	title := "Mean judge score by " + o.Role + " model (" + gateNote(j) + ")"
	p := figures.HeatMap(title, "mean score (1–10)", rows, o.Models, values, figures.Diverging{Min: 1, Center: 1, Max: 10}, 1)
	return writeFigure(c, p, figures.ColumnWidth*2, figures.HeatMapHeight(len(rows)), ext, j.Exp.ID+"-heatmap")
}

// judgedForest draws one dimension's mean for every model with its
// interval over seeds.
func (s *Server) judgedForest(c echo.Context, _, ext string) error {
	jq, j, err := s.judgedFor(c)
	if err != nil {
		return err
	}
	o := j.Overview
	d := j.DimIndex(jq.dim)
	pos := 0
	for i, x := range j.Dims {
		if x == d {
			pos = i
		}
	}
	var items []figures.Interval
	for mi, m := range o.Models {
		cell := o.Cells[mi][pos]
		items = append(items, figures.Interval{Label: m + " (" + strconv.Itoa(cell.Seeds) + " seeds)", Value: cell.Mean.Value, Lo: cell.Mean.Lo, Hi: cell.Mean.Hi})
	}
	p, err := figures.ForestPlotAt(jq.dim+" by "+o.Role+" model (95% CI over seeds; "+gateNote(j)+")", "mean score (1–10)", items, nanRef)
	if err != nil {
		return err
	}
	return writeFigure(c, p, figures.ColumnWidth*2, figures.IntervalChartHeight(items), ext, j.Exp.ID+"-"+jq.dim)
}

// gateNote says in a figure's title what the gate did.
func gateNote(j *app.Judged) string {
	n := len(j.Exclusions) - j.Counts.Kept
	if j.Opts.Include {
		return strconv.Itoa(len(j.Exclusions)) + " audits, " + strconv.Itoa(n) + " flagged ones counted"
	}
	return strconv.Itoa(j.Counts.Kept) + " audits, " + strconv.Itoa(n) + " excluded"
}
