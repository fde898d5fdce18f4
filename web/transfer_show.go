package web

import (
	"net/http"

	"github.com/labstack/echo/v4"

	"github.com/auditscope/auditscope/data/model"
	"github.com/auditscope/auditscope/views"
	"github.com/auditscope/auditscope/views/figures"
	"github.com/auditscope/auditscope/web/app"
)

// transferTitles name the AuditBench investigation approaches
// (app.TransferEvals).
var transferTitles = map[string]string{model.EvalAuditBenchSTC: "STC", model.EvalAuditBenchDefault: "default"}

// transferTable computes AuditBench detection per auditor × approach ×
// behavior with Wilson intervals.
func (s *Server) transferTable(c echo.Context) (views.TransferView, error) {
	st, tr, err := s.analyses.Transfer(c.Request().Context(), c.Param("exp"), c.QueryParam("judge"))
	if err != nil {
		return views.TransferView{}, err
	}
	vm := views.TransferView{Exp: st.Exp, Behaviors: tr.Behaviors, Outcomes: outcomeJudges(c, st)}
	for _, eval := range app.TransferEvals {
		vm.Approaches = append(vm.Approaches, views.Option{Value: eval, Label: transferTitles[eval]})
	}
	cell := func(auditor, eval, behavior string) views.RateCell {
		n, detected, rate := tr.Rate(auditor, eval, behavior)
		return views.RateCell{N: n, Wins: detected, Losses: n - detected, Value: rate.Value, Lo: rate.Lo, Hi: rate.Hi}
	}
	for _, a := range st.Auditors {
		row := views.TransferRow{Auditor: a.Auditor.ID, Name: a.Auditor.Name, Kind: a.Auditor.Kind, Reward: a.Auditor.Reward}
		any := false
		for _, eval := range app.TransferEvals {
			o := cell(a.Auditor.ID, eval, "")
			any = any || o.N > 0
			row.Overall = append(row.Overall, o)
			for _, b := range vm.Behaviors {
				row.ByBehavior = append(row.ByBehavior, cell(a.Auditor.ID, eval, b))
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
func (s *Server) transferFigure(c echo.Context, _, ext string) error {
	vm, err := s.transferTable(c)
	if err != nil {
		return err
	}
	var items []figures.Interval
	for _, r := range vm.Rows {
		for i, eval := range app.TransferEvals {
			o := r.Overall[i]
			items = append(items, figures.Interval{Label: r.Name + " (" + transferTitles[eval] + ")", Group: eval, Value: 100 * o.Value, Lo: 100 * o.Lo, Hi: 100 * o.Hi})
		}
	}
	p, err := figures.IntervalChart("AuditBench detection rate (95% Wilson CI)"+judgedBy(vm.Outcomes.Judge), "detected (%)", items)
	if err != nil {
		return err
	}
	return writeFigure(c, p, figures.ColumnWidth*2, figures.IntervalChartHeight(items), ext, vm.Exp.ID+"-transfer")
}
