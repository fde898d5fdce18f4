package web

import (
	"bytes"
	"fmt"
	"net/http"
	"strconv"

	"github.com/labstack/echo/v4"

	"github.com/auditscope/auditscope/analysis"
	"github.com/auditscope/auditscope/analysis/explorer"
	"github.com/auditscope/auditscope/views"
)

// pairsComparison is a pairs compare request's result: the annotators and
// their paired comparison (done is false until both A and B are given).
type pairsComparison struct {
	r          *pairsReq
	ref, a, b  explorer.Annotator
	annotators []views.Option
	done       bool
	pc         explorer.PairedAnnotators
}

// pairsCompare reads /pairs/{ds}/compare's query (a, b, ref) and compares,
// for the page and its CSV alike.
func (s *Server) pairsCompare(c echo.Context) (pairsComparison, error) {
	var out pairsComparison
	r, ref, err := s.refRequest(c)
	if err != nil {
		return out, err
	}
	out.r, out.ref = r, ref
	q := c.QueryParams()
	var keys []string
	for _, a := range r.d.Annotators() {
		keys = append(keys, a.Key)
		out.annotators = append(out.annotators, views.Option{Value: a.Key, Label: a.Name})
	}
	pick := func(param string) (explorer.Annotator, bool, error) {
		key := q.Get(param)
		if key == "" {
			return explorer.Annotator{}, false, nil
		}
		a, ok := r.d.Lookup(key)
		if !ok {
			return a, false, unknownValue(param, key, keys)
		}
		return a, true, nil
	}
	a, okA, err := pick("a")
	if err != nil {
		return out, err
	}
	b, okB, err := pick("b")
	if err != nil {
		return out, err
	}
	out.a, out.b = a, b
	if !okA || !okB {
		return out, nil
	}
	if a.Key == b.Key {
		return out, badRequestf("b: %q is A itself; choose another annotator", b.Key)
	}
	out.pc, err = explorer.ComparePaired(r.votesOf(ref), r.votesOf(a), r.votesOf(b))
	out.done = err == nil
	return out, err
}

// rows are the comparison's measures, for the page and the CSV.
func (pc pairsComparison) rows() []views.PairsCompareRow {
	p := pc.pc
	mcnemar := func(onlyA, onlyB, n int, set string) string {
		return fmt.Sprintf("exact McNemar test with its Clopper–Pearson interval on the %d %s (A only %d, B only %d)", n, set, onlyA, onlyB)
	}
	row := func(metric, def, method string, n int, a, b, d analysis.Estimate, pv float64, onlyA, onlyB int) views.PairsCompareRow {
		return views.PairsCompareRow{Metric: metric, Definition: def, Test: method, N: n, OnlyA: onlyA, OnlyB: onlyB,
			A: a.Value, ALo: a.Lo, AHi: a.Hi, B: b.Value, BLo: b.Lo, BHi: b.Hi, Diff: d.Value, Lo: d.Lo, Hi: d.Hi, P: pv}
	}
	return []views.PairsCompareRow{
		row("agreement rate", "agree ÷ kept", mcnemar(p.OnlyA, p.OnlyB, p.Kept, "kept comparisons"), p.Kept,
			p.AgreementA, p.AgreementB, p.Agreement, p.AgreementP, p.OnlyA, p.OnlyB),
		row("accuracy", "agree ÷ valid votes, where both voted", mcnemar(p.AccuracyOnlyA, p.AccuracyOnlyB, p.BothValid, "kept comparisons both voted on"), p.BothValid,
			p.AccuracyA, p.AccuracyB, p.Accuracy, p.AccuracyP, p.AccuracyOnlyA, p.AccuracyOnlyB),
		row("strength", "(agree − disagree) ÷ kept", fmt.Sprintf("paired t on the %d kept comparisons' scores (+1 agree, −1 disagree, 0 no valid vote)", p.Kept), p.Kept,
			p.StrengthA, p.StrengthB, p.Strength, p.StrengthP, 0, 0),
	}
}

// showPairsCompare compares two annotators' agreement, accuracy and
// strength against one reference on the same comparisons
// (/pairs/{ds}/compare?a=&b=&ref=).
func (s *Server) showPairsCompare(c echo.Context) error {
	pc, err := s.pairsCompare(c)
	if err != nil {
		return err
	}
	r := pc.r
	vm := views.PairsCompareView{Dataset: r.ds.ID, DatasetName: r.ds.Name, Synthetic: r.ds.Synthetic, Ref: pc.ref.Key, RefName: pc.ref.Name,
		Annotators: pc.annotators, A: pc.a.Key, B: pc.b.Key, AName: pc.a.Name, BName: pc.b.Name, Query: c.QueryParams()}
	if pc.done {
		vm.Done, vm.Kept, vm.OnlyA, vm.OnlyB, vm.Rows = true, pc.pc.Kept, pc.pc.OnlyA, pc.pc.OnlyB, pc.rows()
	}
	return render(c, http.StatusOK, views.PairsComparePage(vm))
}

// pairsCompareCSV is the page's table with every number at full precision:
// dataset,ref,a,b,metric,definition,a_value,a_lo,a_hi,b_value,b_lo,b_hi,
// diff,lo,hi,p,n,only_a,only_b,method.
func (s *Server) pairsCompareCSV(c echo.Context) error {
	pc, err := s.pairsCompare(c)
	if err != nil {
		return err
	}
	if !pc.done {
		return badRequestf("a and b: give the two annotators to compare")
	}
	var buf bytes.Buffer
	w := newCSVWriter(&buf)
	w.Write([]string{"dataset", "ref", "a", "b", "metric", "definition", "a_value", "a_lo", "a_hi", "b_value", "b_lo", "b_hi",
		"diff", "lo", "hi", "p", "n", "only_a", "only_b", "method"})
	for _, r := range pc.rows() {
		w.Write([]string{pc.r.ds.ID, pc.ref.Key, pc.a.Key, pc.b.Key, r.Metric, r.Definition,
			csvFloat(r.A), csvFloat(r.ALo), csvFloat(r.AHi), csvFloat(r.B), csvFloat(r.BLo), csvFloat(r.BHi),
			csvFloat(r.Diff), csvFloat(r.Lo), csvFloat(r.Hi), csvFloat(r.P), strconv.Itoa(r.N), strconv.Itoa(r.OnlyA), strconv.Itoa(r.OnlyB), r.Test})
	}
	w.Flush()
	if err := w.Error(); err != nil {
		return err
	}
	return csvBlob(c, pc.r.ds.ID+"-compare.csv", buf.Bytes())
}
