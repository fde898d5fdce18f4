package web

import (
	"strconv"
	"strings"

	"github.com/labstack/echo/v4"

	"github.com/auditscope/auditscope/views"
	"github.com/auditscope/auditscope/views/figures"
	"github.com/auditscope/auditscope/web/app"
)

// runJudges are the run page's tables of another judge beside the held-out
// judge (issue #51), each with its figure judges-N (N from 1).
func (s *Server) runJudges(c echo.Context, p *app.RunPage) ([]views.RunJudgeView, error) {
	js, err := s.runs.RunJudges(c.Request().Context(), p)
	if err != nil {
		return nil, err
	}
	var out []views.RunJudgeView
	for i, j := range js {
		v := views.RunJudgeView{Judge: j.Judge, Dim: j.Dim, Signature: j.Signature, Summary: j.Summary, Figure: "judges-" + strconv.Itoa(i+1)}
		for _, r := range j.Rows {
			name := r.Auditor.Name
			if r.Auditor.Epoch != nil {
				// The run is the page's subject; its checkpoints are its epochs.
				name = "epoch " + strconv.FormatInt(*r.Auditor.Epoch, 10)
			}
			v.Rows = append(v.Rows, views.RunJudgeRowView{Checkpoint: name, N: r.N, Seeds: r.Seeds,
				HeldOut: views.Est(r.HeldOut), Other: views.Est(r.Other), Gap: views.Est(r.Gap)})
		}
		out = append(out, v)
	}
	return out, nil
}

// runJudgesFigure draws the N-th judge and dimension of the run page
// (judges-N): both judges' means across checkpoints with intervals.
func (s *Server) runJudgesFigure(c echo.Context, name, ext string) error {
	p, err := s.runContext(c)
	if err != nil {
		return err
	}
	js, err := s.runs.RunJudges(c.Request().Context(), p)
	if err != nil {
		return err
	}
	n, err := strconv.Atoi(strings.TrimPrefix(name, "judges-"))
	if err != nil || n < 1 || n > len(js) {
		return echo.ErrNotFound
	}
	j := js[n-1]
	held, other := figures.Series{Name: "held-out judge"}, figures.Series{Name: j.Judge}
	xLabel := "step"
	for _, r := range j.Rows {
		if r.Auditor.Step == nil {
			xLabel = "epoch" // CheckpointX's unit when a step is missing
		}
		x := app.CheckpointX(r.Auditor)
		held.Points = append(held.Points, figures.Point{X: x, Value: r.HeldOut.Value, Lo: r.HeldOut.Lo, Hi: r.HeldOut.Hi})
		other.Points = append(other.Points, figures.Point{X: x, Value: r.Other.Value, Lo: r.Other.Lo, Hi: r.Other.Hi})
	}
	pl, err := figures.Lines(p.Run.Name+": "+j.Dim+" under two judges (95% CI)", xLabel, j.Dim+" (1–10)", []figures.Series{held, other})
	if err != nil {
		return err
	}
	return writeFigure(c, pl, figures.ColumnWidth*1.6, figures.ColumnWidth, ext, p.Stats.Exp.ID+"-"+p.Run.ID+"-"+name)
}
