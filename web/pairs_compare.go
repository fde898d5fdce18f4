package web

import (
	"fmt"
	"net/http"

	"github.com/auditscope/auditscope/analysis/explorer"
	"github.com/auditscope/auditscope/views"
	"github.com/labstack/echo/v4"
)

// showPairsCompare compares two annotators' agreement and strength
// against one reference on the same comparisons
// (/pairs/{ds}/compare?a=&b=&ref=).
func (s *Server) showPairsCompare(c echo.Context) error {
	r, ref, err := s.refRequest(c)
	if err != nil {
		return err
	}
	q := c.QueryParams()
	var keys []string
	vm := views.PairsCompareView{Dataset: r.ds.ID, DatasetName: r.ds.Name, Synthetic: r.ds.Synthetic, Ref: ref.Key, RefName: ref.Name}
	for _, a := range r.d.Annotators() {
		keys = append(keys, a.Key)
		vm.Annotators = append(vm.Annotators, views.Option{Value: a.Key, Label: a.Name})
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
		return err
	}
	b, okB, err := pick("b")
	if err != nil {
		return err
	}
	vm.A, vm.B, vm.AName, vm.BName = a.Key, b.Key, a.Name, b.Name
	if okA && okB {
		if a.Key == b.Key {
			return badRequestf("b: %q is A itself; choose another annotator", b.Key)
		}
		pc, err := explorer.ComparePaired(r.votesOf(ref), r.votesOf(a), r.votesOf(b))
		if err != nil {
			return err
		}
		test := "McNemar χ² with continuity correction"
		if pc.McNemarExact {
			test = "McNemar exact"
		}
		vm.Done, vm.Kept, vm.OnlyA, vm.OnlyB = true, pc.Kept, pc.OnlyA, pc.OnlyB
		vm.Rows = []views.PairsCompareRow{
			{Metric: "agreement", Test: fmt.Sprintf("Newcombe paired interval; %s on %d and %d discordant", test, pc.OnlyA, pc.OnlyB),
				A: pc.A.Agreement, B: pc.B.Agreement, Diff: pc.Agreement.Value, Lo: pc.Agreement.Lo, Hi: pc.Agreement.Hi, P: pc.AgreementP},
			{Metric: "strength", Test: fmt.Sprintf("paired t on %d comparisons", pc.Kept),
				A: pc.A.Strength, B: pc.B.Strength, Diff: pc.Strength.Value, Lo: pc.Strength.Lo, Hi: pc.Strength.Hi, P: pc.StrengthP},
		}
	}
	return render(c, http.StatusOK, views.PairsComparePage(vm))
}
