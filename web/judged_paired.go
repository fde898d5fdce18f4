package web

import (
	"bytes"
	"net/http"
	"strconv"

	"github.com/labstack/echo/v4"

	"github.com/auditscope/auditscope/views"
	"github.com/auditscope/auditscope/views/figures"
	"github.com/auditscope/auditscope/web/app"
)

// pairedQuery is the paired comparison's state: the overview's, the two
// models and the correction.
type pairedQuery struct {
	judgedQuery
	a, b string
}

func parsePairedQuery(c echo.Context) (pairedQuery, error) {
	q := c.QueryParams()
	jq, err := parseJudgedQuery(q)
	if err != nil {
		return pairedQuery{}, err
	}
	pq := pairedQuery{judgedQuery: jq}
	for _, p := range []struct {
		name string
		dst  *string
	}{{"a", &pq.a}, {"b", &pq.b}} {
		if *p.dst, err = oneValue(q, p.name); err != nil {
			return pq, err
		}
		if *p.dst == "" {
			return pq, badRequestf("%s: name a model to compare", p.name)
		}
		pq.raw.Set(p.name, *p.dst)
	}
	corr, err := oneValue(q, "corr")
	if err != nil {
		return pq, err
	}
	switch corr {
	case "", app.CorrectBH:
	case app.CorrectHolm:
		pq.opts.Correction = corr
		pq.raw.Set("corr", corr)
	default:
		return pq, badRequestf("corr: want bh (Benjamini–Hochberg) or holm, found %q", corr)
	}
	pq.raw.Del("jdim")
	return pq, nil
}

// correctionName is a correction in words.
func correctionName(c string) string {
	if c == app.CorrectHolm {
		return "Holm's step-down method (family-wise error)"
	}
	return "Benjamini–Hochberg (false discovery rate)"
}

func (s *Server) paired(c echo.Context) (pairedQuery, *app.Judged, app.Paired, error) {
	pq, err := parsePairedQuery(c)
	if err != nil {
		return pq, nil, app.Paired{}, err
	}
	j, p, err := s.judged.JudgedCompare(c.Request().Context(), c.Param("exp"), pq.a, pq.b, pq.opts)
	return pq, j, p, err
}

func (s *Server) showPaired(c echo.Context) error {
	pq, j, p, err := s.paired(c)
	if err != nil {
		return err
	}
	v := views.PairedView{Exp: j.Exp, Query: pq.raw, Role: p.Role, A: p.A, B: p.B, Correction: correctionName(p.Correction),
		Seeds: len(p.Seeds), GateNote: "Audits: " + gateNote(j)}
	if pq.opts.Judge != "" {
		v.GateNote += ". Scores by " + pq.opts.Judge + ", on the audits it judged"
	}
	byDim := map[int]app.PairedDim{}
	for _, r := range p.Rows {
		byDim[r.Dim] = r
		if r.Pairs > 0 {
			v.Dims++
			if r.Adjusted < 0.05 {
				v.Significant++
			}
		}
	}
	for _, g := range j.Groups {
		pg := views.PairedGroup{Name: g.Name}
		for _, pos := range g.Dims {
			r := byDim[j.Dims[pos]]
			name := j.DimName(r.Dim)
			pg.Rows = append(pg.Rows, views.PairedRow{Dim: name, Desc: j.Descriptions[name], Pairs: r.Pairs, MeanA: r.MeanA, MeanB: r.MeanB,
				Diff: r.Diff.Value, Lo: r.Diff.Lo, Hi: r.Diff.Hi, P: r.P, Adjusted: r.Adjusted, Exact: r.Exact})
		}
		v.Groups = append(v.Groups, pg)
	}
	for _, sp := range p.Seeds {
		a, b := j.Set.Audits[sp.A[0]].Key, j.Set.Audits[sp.B[0]].Key
		v.Matched = append(v.Matched, views.MatchedSeed{Seed: sp.Seed, A: len(sp.A), B: len(sp.B), SideBySide: views.SideBySideURL(a, b)})
	}
	return render(c, http.StatusOK, views.Paired(v))
}

// pairedCSV serves the comparison at full precision.
func (s *Server) pairedCSV(c echo.Context) error {
	pq, j, p, err := s.paired(c)
	if err != nil {
		return err
	}
	var buf bytes.Buffer
	w := newCSVWriter(&buf)
	w.Write([]string{"role", "a", "b", "dimension", "pairs", "mean_a", "mean_b", "diff", "diff_lo", "diff_hi", "p", "p_adjusted", "correction", "exact", "audits_kept", "audits_excluded", "excluded_counted", "interval"})
	kept, excl := strconv.Itoa(j.Counts.Kept), strconv.Itoa(len(j.Exclusions)-j.Counts.Kept)
	for _, r := range p.Rows {
		w.Write([]string{p.Role, p.A, p.B, j.DimName(r.Dim), strconv.Itoa(r.Pairs), csvFloat(r.MeanA), csvFloat(r.MeanB),
			csvFloat(r.Diff.Value), csvBound(r.Diff.Lo), csvBound(r.Diff.Hi), csvFloat(r.P), csvFloat(r.Adjusted), p.Correction,
			strconv.FormatBool(r.Exact), kept, excl, strconv.FormatBool(pq.opts.Include), "the sign-flip test inverted (exact: every sign pattern)"})
	}
	w.Flush()
	if err := w.Error(); err != nil {
		return err
	}
	return csvBlob(c, j.Exp.ID+"-paired.csv", buf.Bytes())
}

// csvBound writes an interval's bound, an unbounded one as inf or -inf.
func csvBound(v float64) string {
	switch {
	case v > 0 && v > 1e308:
		return "inf"
	case v < 0 && v < -1e308:
		return "-inf"
	}
	return csvFloat(v)
}

// pairedFigure draws A − B on every dimension.
func (s *Server) pairedFigure(c echo.Context, _, ext string) error {
	_, j, p, err := s.paired(c)
	if err != nil {
		return err
	}
	byDim := map[int]app.PairedDim{}
	for _, r := range p.Rows {
		byDim[r.Dim] = r
	}
	// In the page's order: by group.
	var items []figures.Interval
	for _, g := range j.Groups {
		for _, pos := range g.Dims {
			r := byDim[j.Dims[pos]]
			grp := "not distinguishable"
			if r.Adjusted < 0.05 {
				grp = "differs"
			}
			items = append(items, figures.Interval{Label: j.DimName(r.Dim), Group: grp, Value: r.Diff.Value, Lo: r.Diff.Lo, Hi: r.Diff.Hi})
		}
	}
	title := p.A + " − " + p.B + " by dimension (" + strconv.Itoa(len(p.Seeds)) + " seeds; 95% CI)"
	pl, err := figures.ForestPlot(title, "mean difference (judge score)", items)
	if err != nil {
		return err
	}
	return writeFigure(c, pl, figures.ColumnWidth*2, figures.IntervalChartHeight(items), ext, j.Exp.ID+"-paired")
}
