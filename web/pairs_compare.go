package web

import (
	"bytes"
	"net/http"
	"strconv"

	"github.com/labstack/echo/v4"

	"github.com/auditscope/auditscope/views"
	"github.com/auditscope/auditscope/web/app"
)

// pairsComparison is a pairs compare request's result: the annotators and
// their paired comparison (done is false until both A and B are given).
type pairsComparison struct {
	r          *pairsReq
	ref, a, b  annotatorName
	annotators []views.Option
	done       bool
	kept       int             // comparisons the reference decides
	onlyA      int             // kept comparisons where only A agrees with the reference
	onlyB      int             // and only B
	rows       []app.PairedRow // agreement rate, accuracy, strength
}

// annotatorName is an annotator's key and name.
type annotatorName struct{ Key, Name string }

// pairsCompare reads /pairs/{ds}/compare's query (a, b, ref) and compares,
// for the page and its CSV alike.
func (s *Server) pairsCompare(c echo.Context) (pairsComparison, error) {
	var out pairsComparison
	r, refKey, err := s.refRequest(c)
	if err != nil {
		return out, err
	}
	ref, _ := r.Annotator(refKey)
	out.r, out.ref = r, annotatorName{ref.Key, ref.Name}
	q := c.QueryParams()
	var keys []string
	for _, a := range r.Annotators() {
		keys = append(keys, a.Key)
		out.annotators = append(out.annotators, views.Option{Value: a.Key, Label: a.Name})
	}
	pick := func(param string) (annotatorName, bool, error) {
		key := q.Get(param)
		if key == "" {
			return annotatorName{}, false, nil
		}
		a, ok := r.Annotator(key)
		if !ok {
			return annotatorName{}, false, app.UnknownValue(param, key, keys)
		}
		return annotatorName{a.Key, a.Name}, true, nil
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
	pc, rows, err := r.ComparePaired(ref.Key, a.Key, b.Key)
	if err != nil {
		return out, err
	}
	out.done, out.kept, out.onlyA, out.onlyB, out.rows = true, pc.Kept, pc.OnlyA, pc.OnlyB, rows
	return out, nil
}

// viewRows are the comparison's measures, for the page and the CSV.
func (pc pairsComparison) viewRows() []views.PairsCompareRow {
	out := make([]views.PairsCompareRow, len(pc.rows))
	for i, r := range pc.rows {
		out[i] = views.PairsCompareRow{Metric: r.Metric, Definition: r.Definition, Test: r.Method, N: r.N, OnlyA: r.OnlyA, OnlyB: r.OnlyB,
			A: r.A.Value, ALo: r.A.Lo, AHi: r.A.Hi, B: r.B.Value, BLo: r.B.Lo, BHi: r.B.Hi, Diff: r.Diff.Value, Lo: r.Diff.Lo, Hi: r.Diff.Hi, P: r.P}
	}
	return out
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
	vm := views.PairsCompareView{Dataset: r.DS.ID, DatasetName: r.DS.Name, Synthetic: r.DS.Synthetic, Ref: pc.ref.Key, RefName: pc.ref.Name,
		Annotators: pc.annotators, A: pc.a.Key, B: pc.b.Key, AName: pc.a.Name, BName: pc.b.Name, Query: c.QueryParams()}
	if pc.done {
		vm.Done, vm.Kept, vm.OnlyA, vm.OnlyB, vm.Rows = true, pc.kept, pc.onlyA, pc.onlyB, pc.viewRows()
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
	for _, r := range pc.viewRows() {
		w.Write([]string{pc.r.DS.ID, pc.ref.Key, pc.a.Key, pc.b.Key, r.Metric, r.Definition,
			csvFloat(r.A), csvFloat(r.ALo), csvFloat(r.AHi), csvFloat(r.B), csvFloat(r.BLo), csvFloat(r.BHi),
			csvFloat(r.Diff), csvFloat(r.Lo), csvFloat(r.Hi), csvFloat(r.P), strconv.Itoa(r.N), strconv.Itoa(r.OnlyA), strconv.Itoa(r.OnlyB), r.Test})
	}
	w.Flush()
	if err := w.Error(); err != nil {
		return err
	}
	return csvBlob(c, pc.r.DS.ID+"-compare.csv", buf.Bytes())
}
