package web

import (
	"bytes"
	"fmt"
	"math"
	"net/http"
	"net/url"
	"strconv"
	"strings"

	"github.com/labstack/echo/v4"

	"github.com/auditscope/auditscope/views"
	"github.com/auditscope/auditscope/views/figures"
	"github.com/auditscope/auditscope/web/app"
)

// compareQueryOf is the compare page's query as its URL holds it; the
// application layer checks it (app.CheckCompare).
func compareQueryOf(c echo.Context) app.CompareQuery {
	return app.CompareQuery{A: c.QueryParam("a"), B: c.QueryParams()["b"], Judge: c.QueryParam("judge")}
}

// compareValues is a compare query as URL parameters, for the page's links.
func compareValues(cq app.CompareQuery) url.Values {
	v := url.Values{}
	if cq.A != "" {
		v.Set("a", cq.A)
	}
	for _, b := range cq.B {
		v.Add("b", b)
	}
	if cq.Judge != "" {
		v.Set("judge", cq.Judge)
	}
	return v
}

// auditorNames maps auditor ids to names.
func auditorNames(st *app.ExperimentStats) map[string]string {
	m := make(map[string]string, len(st.Auditors))
	for _, a := range st.Auditors {
		m[a.Auditor.ID] = a.Auditor.Name
	}
	return m
}

// compareData is the compare page's one loader, shared by the page, its
// CSV and its figure (app.ComparePage: the query checked before anything
// is computed). needBoth refuses a query without A and a B (the CSV has
// nothing to hold without them; the page then offers the pickers).
func (s *Server) compareData(c echo.Context, needBoth bool) (*app.ComparePage, error) {
	return s.compares.ComparePage(c.Request().Context(), c.Param("exp"), compareQueryOf(c), needBoth)
}

func (s *Server) showCompare(c echo.Context) error {
	if done, err := s.forSamples(c, func(st *app.ExperimentStats) error { return s.showSampleCompare(c, st) }); done || err != nil {
		return err
	}
	p, err := s.compareData(c, false)
	if err != nil {
		return err
	}
	st, cq, cs, swaps := p.Stats, p.Query, p.Comparisons, p.Swaps
	names := auditorNames(st)
	vm := views.CompareView{Exp: st.Exp, Query: compareValues(cq), A: cq.A, B: cq.B, Judge: st.Judge, Judges: st.Judges}
	for _, a := range st.Auditors {
		vm.Auditors = append(vm.Auditors, views.Option{Value: a.Auditor.ID, Label: a.Auditor.Name})
	}
	for _, cmp := range cs {
		blk := views.CompareBlock{A: cmp.A, AName: names[cmp.A], B: cmp.B, BName: names[cmp.B]}
		for _, d := range cmp.Diffs {
			blk.Rows = append(blk.Rows, swapRow(st.Exp.ID, cmp, d, swaps))
		}
		for _, b := range cmp.Behaviors {
			blk.Behaviors = append(blk.Behaviors, views.BehaviorRow{Behavior: b.Behavior, Pairs: b.Pairs,
				Value: b.Value, Lo: b.Lo, Hi: b.Hi, P: b.P, Share: b.Share})
		}
		vm.Blocks = append(vm.Blocks, blk)
	}
	// Without a comparison chosen, the page is the paper's comparisons as
	// one family: each composite difference with its p adjusted over all
	// (computed once per data version); with one, the same list as links.
	if len(cs) == 0 {
		res, err := s.compares.PresetResults(c.Request().Context(), st)
		if err != nil {
			return err
		}
		for _, p := range res {
			d := p.Composite
			vm.Presets = append(vm.Presets, views.PresetLink{Kind: p.Kind, Title: p.Title, URL: views.CompareJudgeURL(st.Exp.ID, st.Judge, p.A, p.B),
				Tested: true, Value: d.Value, Lo: d.Lo, Hi: d.Hi, P: d.P, PBH: p.PBH, PFloor: d.PFloor})
		}
	} else {
		for _, p := range app.Presets(st) {
			vm.Presets = append(vm.Presets, views.PresetLink{Kind: p.Kind, Title: p.Title, URL: views.CompareJudgeURL(st.Exp.ID, st.Judge, p.A, p.B)})
		}
	}
	return render(c, http.StatusOK, views.ComparePage(vm))
}

// compareCSV serves the page's differences:
// a,b,dimension,diff,lo,hi,p,p_holm,n_a,n_b,pairs,method,unit,only_a,only_b,
// p_floor (the method's smallest p: a p at it is "below it", not equal),
// judge (whose outcomes), judges (how many scored the row, this one
// included) and holds (under how many of them the difference holds).
func (s *Server) compareCSV(c echo.Context) error {
	if done, err := s.forSamples(c, func(st *app.ExperimentStats) error { return s.sampleCompareCSV(c, st) }); done || err != nil {
		return err
	}
	p, err := s.compareData(c, true)
	if err != nil {
		return err
	}
	st, cs, swaps := p.Stats, p.Comparisons, p.Swaps
	var buf bytes.Buffer
	w := newCSVWriter(&buf)
	w.Write([]string{"a", "b", "dimension", "diff", "lo", "hi", "p", "p_holm", "n_a", "n_b", "pairs", "method", "unit", "only_a", "only_b", "p_floor", "judge", "judges", "holds"})
	for _, cmp := range cs {
		for _, d := range cmp.Diffs {
			r := swapRow(st.Exp.ID, cmp, d, swaps)
			w.Write([]string{cmp.A, cmp.B, d.Dimension, csvFloat(d.Value), csvFloat(d.Lo), csvFloat(d.Hi), csvFloat(d.P), csvFloat(d.PHolm),
				strconv.Itoa(d.NA), strconv.Itoa(d.NB), strconv.Itoa(d.Pairs), d.Method, d.Unit, strconv.Itoa(d.OnlyA), strconv.Itoa(d.OnlyB), csvFloat(d.PFloor),
				views.JudgeLabel(st.Judge), strconv.Itoa(r.Judged), strconv.Itoa(r.Holds)})
		}
	}
	w.Flush()
	if err := w.Error(); err != nil {
		return err
	}
	return csvBlob(c, st.Exp.ID+"-compare.csv", buf.Bytes())
}

// compareFigure draws the differences as a forest plot, one row per
// comparison and dimension, coloured by B.
func (s *Server) compareFigure(c echo.Context, _, ext string) error {
	if done, err := s.forSamples(c, func(st *app.ExperimentStats) error { return s.sampleCompareFigure(c, st, ext) }); done || err != nil {
		return err
	}
	page, err := s.compareData(c, false)
	if err != nil {
		return err
	}
	st, cq, cs := page.Stats, page.Query, page.Comparisons
	names := auditorNames(st)
	var items []figures.Interval
	for _, cmp := range cs {
		for _, d := range cmp.Diffs {
			if math.IsNaN(d.Value) {
				continue
			}
			label := dimensionTitles[d.Dimension]
			if len(cs) > 1 {
				label += " · vs " + names[cmp.B]
			}
			items = append(items, differenceItem(label, d.Value, d.Lo, d.Hi))
		}
	}
	p, err := figures.ForestPlot(differenceTitle(cq.A, cq.B, names)+judgedBy(st.Judge), "difference (points, 0–100 scale)", items)
	if err != nil {
		return err
	}
	return writeFigure(c, p, figures.ColumnWidth*2, figures.IntervalChartHeight(items), ext, st.Exp.ID+"-compare")
}

// differenceItem is one difference of A − B as a forest plot draws it: an
// interval no data bounds (a permutation test on two or three pairs) has
// no whisker to draw, and its label says so. (The experiment's and the
// Inspect samples' comparisons draw their rows with it.)
func differenceItem(label string, value, lo, hi float64) figures.Interval {
	if math.IsInf(lo, 0) || math.IsInf(hi, 0) {
		lo, hi = math.NaN(), math.NaN()
		label += " (interval unbounded)"
	}
	return figures.Interval{Label: label, Value: value, Lo: lo, Hi: hi}
}

// differenceTitle is a comparison figure's title: A against each B.
func differenceTitle(a string, bs []string, names map[string]string) string {
	if a == "" {
		return "A − B (95% CI)"
	}
	return fmt.Sprintf("%s − %s (95%% CI)", names[a], strings.Join(mapNames(bs, names), ", "))
}

func mapNames(ids []string, names map[string]string) []string {
	out := make([]string, len(ids))
	for i, id := range ids {
		out[i] = names[id]
	}
	return out
}

// swapRow is a comparison's row d with its readings under each other judge.
func swapRow(exp string, cmp app.Comparison, d app.Diff, swaps []app.Under) views.CompareRow {
	r := compareRow(d)
	others := make([]app.Diff, len(swaps))
	for i, u := range swaps {
		o := app.DiffOf(u.Comps, cmp.B, d.Dimension)
		others[i] = o
		r.Swaps = append(r.Swaps, views.SwapCell{Judge: u.Judge, Value: o.Value, Lo: o.Lo, Hi: o.Hi, Reading: app.Swap(d, o),
			URL: views.CompareJudgeURL(exp, u.Judge, cmp.A, cmp.B)})
	}
	r.Holds, r.Judged = app.SwapCount(d, others)
	return r
}
