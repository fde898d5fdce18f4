package web

import (
	"net/http"

	"github.com/labstack/echo/v4"

	"github.com/auditscope/auditscope/analysis/experiment"
	"github.com/auditscope/auditscope/data/model"
	"github.com/auditscope/auditscope/views"
	"github.com/auditscope/auditscope/views/figures"
)

// transferApproaches are the AuditBench investigation approaches, in order.
var transferApproaches = []struct{ Eval, Title string }{
	{model.EvalAuditBenchSTC, "STC"},
	{model.EvalAuditBenchDefault, "default"},
}

// transferTable computes AuditBench detection per auditor × approach ×
// behavior with Wilson intervals.
func (s *Server) transferTable(c echo.Context) (views.TransferView, error) {
	ctx := c.Request().Context()
	st, err := s.app.Stats(ctx, c.Param("exp"))
	if err != nil {
		return views.TransferView{}, err
	}
	var ds []experiment.Detection
	for _, a := range st.Audits {
		if (a.Eval != model.EvalAuditBenchSTC && a.Eval != model.EvalAuditBenchDefault) || a.Detected == nil {
			continue
		}
		ds = append(ds, experiment.Detection{Auditor: a.Auditor, Eval: a.Eval, Behavior: a.Behavior, Detected: *a.Detected})
	}
	tr := experiment.TransferRates(ds, 0.95)
	vm := views.TransferView{Exp: st.Exp, Behaviors: tr.Behaviors}
	for _, ap := range transferApproaches {
		vm.Approaches = append(vm.Approaches, views.Option{Value: ap.Eval, Label: ap.Title})
	}
	cell := func(k experiment.DetectionKey) views.RateCell {
		c := tr.Cell(k)
		return views.RateCell{N: c.N, Wins: c.Detected, Losses: c.N - c.Detected, Value: c.Rate.Value, Lo: c.Rate.Lo, Hi: c.Rate.Hi}
	}
	for _, a := range st.Auditors {
		row := views.TransferRow{Auditor: a.Auditor.ID, Name: a.Auditor.Name, Kind: a.Auditor.Kind, Reward: a.Auditor.Reward}
		any := false
		for _, ap := range transferApproaches {
			o := cell(experiment.DetectionKey{Auditor: a.Auditor.ID, Eval: ap.Eval})
			any = any || o.N > 0
			row.Overall = append(row.Overall, o)
			for _, b := range vm.Behaviors {
				row.ByBehavior = append(row.ByBehavior, cell(experiment.DetectionKey{Auditor: a.Auditor.ID, Eval: ap.Eval, Behavior: b}))
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
			group := model.EvalAuditBenchSTC
			if i == 1 {
				group = model.EvalAuditBenchDefault
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
