package web

import (
	"net/http"
	"sort"

	"github.com/auditscope/auditscope/analysis"
	"github.com/auditscope/auditscope/data/bundle"
	"github.com/auditscope/auditscope/views"
	"github.com/auditscope/auditscope/views/figures"
	"github.com/labstack/echo/v4"
)

// transferApproaches are the AuditBench investigation approaches, in order.
var transferApproaches = []struct{ Eval, Title string }{
	{bundle.EvalAuditBenchSTC, "STC"},
	{bundle.EvalAuditBenchDefault, "default"},
}

// transferTable computes AuditBench detection per auditor × approach ×
// behavior with Wilson intervals.
func (s *Server) transferTable(c echo.Context) (views.TransferView, error) {
	ctx := c.Request().Context()
	st, err := s.stats.get(ctx, s.store, c.Param("exp"))
	if err != nil {
		return views.TransferView{}, err
	}
	audits := st.Audits
	type key struct{ auditor, eval, behavior string }
	det := map[key][]bool{}
	behaviors := map[string]bool{}
	for _, a := range audits {
		if (a.Eval != bundle.EvalAuditBenchSTC && a.Eval != bundle.EvalAuditBenchDefault) || !a.Detected.Valid {
			continue
		}
		det[key{a.Auditor, a.Eval, ""}] = append(det[key{a.Auditor, a.Eval, ""}], a.Detected.Bool)
		det[key{a.Auditor, a.Eval, a.Behavior}] = append(det[key{a.Auditor, a.Eval, a.Behavior}], a.Detected.Bool)
		behaviors[a.Behavior] = true
	}
	vm := views.TransferView{Exp: st.Exp}
	for b := range behaviors {
		vm.Behaviors = append(vm.Behaviors, b)
	}
	sort.Strings(vm.Behaviors)
	for _, ap := range transferApproaches {
		vm.Approaches = append(vm.Approaches, views.Option{Value: ap.Eval, Label: ap.Title})
	}
	cell := func(k key) views.RateCell {
		v := det[k]
		n := 0
		for _, d := range v {
			if d {
				n++
			}
		}
		e, _ := analysis.DetectionRate(v, 0.95)
		return views.RateCell{N: len(v), Wins: n, Losses: len(v) - n, Value: e.Value, Lo: e.Lo, Hi: e.Hi}
	}
	for _, a := range st.Auditors {
		row := views.TransferRow{Auditor: a.Auditor.ID, Name: a.Auditor.Name, Kind: a.Auditor.Kind, Reward: a.Auditor.Reward}
		any := false
		for _, ap := range transferApproaches {
			o := cell(key{a.Auditor.ID, ap.Eval, ""})
			any = any || o.N > 0
			row.Overall = append(row.Overall, o)
			for _, b := range vm.Behaviors {
				row.ByBehavior = append(row.ByBehavior, cell(key{a.Auditor.ID, ap.Eval, b}))
			}
		}
		if any {
			vm.Rows = append(vm.Rows, row)
		}
	}
	return vm, nil
}

func (s *Server) showTransfer(c echo.Context) error {
	vm, err := s.transferTable(c)
	if err != nil {
		return err
	}
	return render(c, http.StatusOK, views.TransferPage(vm))
}

// transferFigure draws STC and default detection per auditor.
func (s *Server) transferFigure(c echo.Context, ext string) error {
	vm, err := s.transferTable(c)
	if err != nil {
		return err
	}
	var items []figures.Interval
	for _, r := range vm.Rows {
		for i, ap := range transferApproaches {
			o := r.Overall[i]
			group := "auditbench_stc"
			if i == 1 {
				group = "auditbench_default"
			}
			items = append(items, figures.Interval{Label: r.Name + " (" + ap.Title + ")", Group: group, Value: 100 * o.Value, Lo: 100 * o.Lo, Hi: 100 * o.Hi})
		}
	}
	p, err := figures.IntervalChart("AuditBench detection rate (95% Wilson CI)", "detected (%)", items)
	if err != nil {
		return err
	}
	return writeFigure(c, p, figures.ColumnWidth*2, figures.IntervalChartHeight(len(items)), ext, vm.Exp.ID+"-transfer")
}
