package web

import (
	"fmt"
	"math"
	"net/http"
	"strconv"

	"github.com/labstack/echo/v4"

	"github.com/auditscope/auditscope/data/model"
	"github.com/auditscope/auditscope/views"
	"github.com/auditscope/auditscope/views/figures"
	"github.com/auditscope/auditscope/web/app"
)

// runContext is the run page's one loader, shared by the page, its CSVs
// and its figures: the run, its experiment's statistics and its
// checkpoints in training order.
func (s *Server) runContext(c echo.Context) (*app.RunPage, error) {
	return s.runs.Run(c.Request().Context(), c.Param("run"), c.QueryParam("judge"))
}

func (s *Server) showRun(c echo.Context) error {
	ctx := c.Request().Context()
	p, err := s.runContext(c)
	if err != nil {
		return err
	}
	st, cps := p.Stats, p.Checkpoints
	vm := views.RunView{Exp: st.Exp, Run: p.Run, Outcomes: outcomeJudges(c, st)}
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
	metrics, err := s.runs.Metrics(ctx, p)
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
	counts, err := s.runs.StrategyCounts(ctx, p)
	if err != nil {
		return err
	}
	vm.Strategies = strategyTable(p, counts)
	if vm.Judges, err = s.runJudges(c, p); err != nil {
		return err
	}
	return render(c, http.StatusOK, views.RunPage(vm))
}

func nullInt(v *int64) string {
	if v == nil {
		return ""
	}
	return strconv.FormatInt(*v, 10)
}

// strategyTable maps the run's strategy mix to the page's table,
// checkpoints by name.
func strategyTable(p *app.RunPage, counts []model.LabelCount) views.StrategyTable {
	names := make(map[string]string, len(p.Checkpoints))
	for _, cp := range p.Checkpoints {
		names[cp.Auditor.ID] = cp.Auditor.Name
	}
	mix := p.StrategyShares(counts)
	t := views.StrategyTable{Strategies: mix.Strategies}
	for _, r := range mix.Rows {
		row := views.StrategyRow{Checkpoint: names[r.Auditor], N: r.N, Shares: r.Shares}
		for _, iv := range r.Intervals {
			row.Lo, row.Hi = append(row.Lo, iv.Lo), append(row.Hi, iv.Hi)
		}
		t.Rows = append(t.Rows, row)
	}
	return t
}

// runCurvesFigure draws the evaluation dimensions over training.
func (s *Server) runCurvesFigure(c echo.Context, _, ext string) error {
	rp, err := s.runContext(c)
	if err != nil {
		return err
	}
	xLabel := "step"
	for _, a := range rp.Checkpoints {
		if a.Auditor.Step == nil {
			xLabel = "epoch"
		}
	}
	var series []figures.Series
	for _, k := range app.SuiteDimensions {
		s := figures.Series{Name: dimensionTitles[k]}
		for _, a := range rp.Checkpoints {
			e := a.Score[k]
			s.Points = append(s.Points, figures.Point{X: app.CheckpointX(a.Auditor), Value: e.Value, Lo: e.Lo, Hi: e.Hi})
		}
		series = append(series, s)
	}
	title := rp.Run.Name + ": evaluation over training (95% CI)"
	if j := rp.Stats.Judge; j != "" {
		title = rp.Run.Name + ": evaluation over training, judged by " + j + " (95% CI)"
	}
	p, err := figures.Lines(title, xLabel, "score (0–100)", series)
	if err != nil {
		return err
	}
	return writeFigure(c, p, figures.ColumnWidth*1.6, figures.ColumnWidth, ext, rp.Stats.Exp.ID+"-"+rp.Run.ID+"-curves")
}

// runMetricFigure draws a training-time scalar over steps.
func (s *Server) runMetricFigure(c echo.Context, metric, ext string) error {
	rp, err := s.runContext(c)
	if err != nil {
		return err
	}
	metrics, err := s.runs.Metrics(c.Request().Context(), rp)
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
		return notFound(fmt.Sprintf("metric %q of run %s", metric, rp.Run.ID))
	}
	p, err := figures.Lines(rp.Run.Name+": "+metric, "step", metric, []figures.Series{sr})
	if err != nil {
		return err
	}
	return writeFigure(c, p, figures.ColumnWidth, figures.ColumnWidth*0.7, ext, rp.Stats.Exp.ID+"-"+rp.Run.ID+"-"+metric)
}
