package web

import (
	"fmt"
	"math"
	"net/http"
	"sort"
	"strconv"

	"github.com/labstack/echo/v4"

	"github.com/auditscope/auditscope/analysis/experiment"
	"github.com/auditscope/auditscope/data"
	"github.com/auditscope/auditscope/views"
	"github.com/auditscope/auditscope/views/figures"
	"github.com/auditscope/auditscope/web/app"
)

// runContext loads a run and its experiment's statistics.
func (s *Server) runContext(c echo.Context) (data.Run, *app.ExperimentStats, []app.AuditorScores, error) {
	key := c.Param("run")
	exp, _, ok := data.SplitKey(key)
	if !ok {
		return data.Run{}, nil, nil, notFound(fmt.Sprintf("run %q (run links look like experiment:run)", key))
	}
	run, err := s.store.Run(c.Request().Context(), key)
	if err != nil {
		return run, nil, nil, err
	}
	st, err := s.app.Stats(c.Request().Context(), exp)
	if err != nil {
		return run, nil, nil, err
	}
	var cps []app.AuditorScores
	for _, a := range st.Auditors {
		if a.Auditor.Run == run.ID {
			cps = append(cps, a)
		}
	}
	sort.SliceStable(cps, func(i, j int) bool { return checkpointX(cps[i].Auditor) < checkpointX(cps[j].Auditor) })
	return run, st, cps, nil
}

// checkpointX is a checkpoint's position on a training curve: its step, or
// its epoch when steps are not given.
func checkpointX(a data.Auditor) float64 {
	if a.Step != nil {
		return float64(*a.Step)
	}
	if a.Epoch != nil {
		return float64(*a.Epoch)
	}
	return math.NaN()
}

func (s *Server) showRun(c echo.Context) error {
	ctx := c.Request().Context()
	run, st, cps, err := s.runContext(c)
	if err != nil {
		return err
	}
	vm := views.RunView{Exp: st.Exp, Run: run}
	for _, k := range dimensionKeys {
		vm.Columns = append(vm.Columns, views.Column{Key: k, Title: dimensionTitles[k]})
	}
	for _, a := range cps {
		r := views.ScoreRow{Key: a.Auditor.Key, ID: a.Auditor.ID, Name: a.Auditor.Name, Kind: a.Auditor.Kind, Run: a.Auditor.Run}
		if a.Auditor.Epoch != nil {
			// The run is the page's subject; its checkpoints are its epochs.
			r.Name = "epoch " + strconv.FormatInt(*a.Auditor.Epoch, 10)
		}
		for _, k := range dimensionKeys {
			e := a.Score[k]
			r.Cells = append(r.Cells, views.EstimateCell{Value: e.Value, Lo: e.Lo, Hi: e.Hi, N: a.N[k], Dim: k})
		}
		vm.Checkpoints = append(vm.Checkpoints, views.CheckpointRow{ScoreRow: r, Epoch: nullInt(a.Auditor.Epoch), Step: nullInt(a.Auditor.Step)})
	}
	metrics, err := s.store.RunMetrics(ctx, st.Exp.ID, run.ID)
	if err != nil {
		return err
	}
	seen := map[string]bool{}
	for _, m := range metrics {
		if !seen[m.Name] {
			seen[m.Name] = true
			vm.Metrics = append(vm.Metrics, m.Name)
		}
	}
	counts, err := s.store.StrategyCounts(ctx, st.Exp.ID, run.ID)
	if err != nil {
		return err
	}
	vm.Strategies = strategyTable(counts, cps)
	return render(c, http.StatusOK, views.RunPage(vm))
}

func nullInt(v *int64) string {
	if v == nil {
		return ""
	}
	return strconv.FormatInt(*v, 10)
}

// strategyTable maps the run's strategy mix (experiment.StrategyShares)
// to the page's table, checkpoints by name.
func strategyTable(counts []data.LabelCount, cps []app.AuditorScores) views.StrategyTable {
	in := make([]experiment.StrategyCount, len(counts))
	for i, c := range counts {
		in[i] = experiment.StrategyCount{Auditor: c.Auditor, Strategy: c.Strategy, N: c.N}
	}
	ids := make([]string, len(cps))
	names := make(map[string]string, len(cps))
	for i, cp := range cps {
		ids[i] = cp.Auditor.ID
		names[cp.Auditor.ID] = cp.Auditor.Name
	}
	mix := experiment.StrategyShares(in, ids)
	t := views.StrategyTable{Strategies: mix.Strategies}
	for _, r := range mix.Rows {
		t.Rows = append(t.Rows, views.StrategyRow{Checkpoint: names[r.Auditor], N: r.N, Shares: r.Shares})
	}
	return t
}

// runCurvesFigure draws the evaluation dimensions over training.
func (s *Server) runCurvesFigure(c echo.Context, _, ext string) error {
	run, st, cps, err := s.runContext(c)
	if err != nil {
		return err
	}
	xLabel := "step"
	for _, a := range cps {
		if a.Auditor.Step == nil {
			xLabel = "epoch"
		}
	}
	var series []figures.Series
	for _, k := range dimensionKeys[:5] {
		s := figures.Series{Name: dimensionTitles[k]}
		for _, a := range cps {
			e := a.Score[k]
			s.Points = append(s.Points, figures.Point{X: checkpointX(a.Auditor), Value: e.Value, Lo: e.Lo, Hi: e.Hi})
		}
		series = append(series, s)
	}
	p, err := figures.Lines(run.Name+": evaluation over training (95% CI)", xLabel, "score (0–100)", series)
	if err != nil {
		return err
	}
	return writeFigure(c, p, figures.ColumnWidth*1.6, figures.ColumnWidth, ext, st.Exp.ID+"-"+run.ID+"-curves")
}

// runMetricFigure draws a training-time scalar over steps.
func (s *Server) runMetricFigure(c echo.Context, metric, ext string) error {
	run, st, _, err := s.runContext(c)
	if err != nil {
		return err
	}
	metrics, err := s.store.RunMetrics(c.Request().Context(), st.Exp.ID, run.ID)
	if err != nil {
		return err
	}
	sr := figures.Series{Name: metric}
	for _, m := range metrics {
		if m.Name == metric {
			sr.Points = append(sr.Points, figures.Point{X: float64(m.Step), Value: m.Value, Lo: math.NaN(), Hi: math.NaN()})
		}
	}
	if len(sr.Points) == 0 {
		return notFound(fmt.Sprintf("metric %q of run %s", metric, run.ID))
	}
	p, err := figures.Lines(run.Name+": "+metric, "step", metric, []figures.Series{sr})
	if err != nil {
		return err
	}
	return writeFigure(c, p, figures.ColumnWidth, figures.ColumnWidth*0.7, ext, st.Exp.ID+"-"+run.ID+"-"+metric)
}
