package views

import (
	"fmt"

	"github.com/a-h/templ"
	"github.com/auditscope/auditscope/data/model"
	"github.com/auditscope/auditscope/views/links"
)

// RunView is the run page.
type RunView struct {
	// Outcomes says whose outcomes the checkpoints' scores read (#51).
	Outcomes    OutcomeJudges
	Exp         model.Experiment
	Run         model.Run
	Columns     []Column
	Checkpoints []CheckpointRow
	Metrics     []string
	Strategies  StrategyTable
	// Judges are the run's checkpoints under the held-out judge beside
	// another judge (the training judge), a table a dimension.
	Judges []RunJudgeView
}

// RunJudgeView is one judge and dimension across the run's checkpoints.
type RunJudgeView struct {
	Judge, Dim string
	Rows       []RunJudgeRowView
	Signature  bool
	Summary    string
	Figure     string // the figure's name (judges-N)
}

// RunJudgeRowView is one checkpoint.
type RunJudgeRowView struct {
	Checkpoint     string
	N, Seeds       int
	HeldOut, Other Est
	Gap            Est
}

// CheckpointRow is one checkpoint of the run.
type CheckpointRow struct {
	ScoreRow
	Epoch, Step string
}

// StrategyTable is the share of each strategy label per checkpoint.
type StrategyTable struct {
	Strategies []string
	Rows       []StrategyRow
}

// StrategyRow is one checkpoint's strategy shares.
type StrategyRow struct {
	Checkpoint string
	N          int
	Shares     []float64
	Lo, Hi     []float64 // each share's 95% Wilson interval
}

// PctCI formats a share's interval in percent: "[23, 29]".
func PctCI(lo, hi float64) string { return fmt.Sprintf("[%.0f, %.0f]", 100*lo, 100*hi) }

// Key is the run's URL key.
func (v RunView) Key() string { return v.Exp.ID + ":" + v.Run.ID }

// FigureURL is a run figure.
func (v RunView) FigureURL(base, format string) templ.SafeURL {
	return links.RunFigure(v.Key(), base+"."+format, judgeQuery(v.Outcomes.Judge))
}

// CheckpointsCSV is the checkpoints table's CSV twin.
func (v RunView) CheckpointsCSV() templ.SafeURL {
	return links.Run(v.Key(), links.CheckpointsCSV, judgeQuery(v.Outcomes.Judge))
}

// JudgeLink is the run's page under judge j.
func (v RunView) JudgeLink(j string) templ.SafeURL {
	return links.Run(v.Key(), links.RunOverview, judgeQuery(j))
}

// AuditsURL lists the run's audits, or one checkpoint's.
func (v RunView) AuditsURL(auditor string) templ.SafeURL {
	q := judgeQuery(v.Outcomes.Judge)
	q.Set("exp", v.Exp.ID)
	q.Set("run", v.Run.ID)
	if auditor != "" {
		q.Set("auditor", auditor)
	}
	return links.Audits(q)
}

// Refresh describes the reference refresh interval.
func (v RunView) Refresh() string {
	if v.Run.RefreshSteps == nil {
		return "never"
	}
	return fmt.Sprintf("every %d steps", *v.Run.RefreshSteps)
}

// Pct formats a share as a percentage.
func Pct(x float64) string { return fmt.Sprintf("%.0f%%", 100*x) }
