package app

import (
	"cmp"
	"math"

	"github.com/auditscope/auditscope/analysis"
	"github.com/auditscope/auditscope/analysis/experiment"
	"github.com/auditscope/auditscope/data/model"
)

// Composite is the dimension that combines the suite's four.
const Composite = experiment.Composite

// Dimensions are the dimension keys in display order: the four of the
// suite, the composite, and AuditBench's two. They are the overview's
// column keys and the values of scores.csv's dimension column.
var Dimensions = []string{model.EvalAuditQuality, model.EvalFPCalibration, model.EvalProduction, model.EvalRealism,
	Composite, model.EvalAuditBenchSTC, model.EvalAuditBenchDefault}

// SuiteDimensions are the four dimensions of the suite and the composite:
// what the correlations, the crux regressions and the training curves use.
var SuiteDimensions = Dimensions[:5]

// Presets are the paper's comparisons the experiment allows.
func Presets(st *ExperimentStats) []experiment.Preset {
	runs := make([]experiment.RunInfo, len(st.Runs))
	for i, r := range st.Runs {
		runs[i] = experiment.RunInfo{ID: r.ID, Name: r.Name, Reward: r.Reward, BaseModel: r.BaseModel,
			CalibrationFraction: r.CalibrationFraction, MultiTarget: r.MultiTarget}
		if r.RefreshSteps != nil {
			runs[i].RefreshSteps = *r.RefreshSteps
		}
	}
	auds := make([]experiment.AuditorInfo, len(st.Auditors))
	for i, a := range st.Auditors {
		au := a.Auditor
		auds[i] = experiment.AuditorInfo{ID: au.ID, Name: au.Name, Run: au.Run, Baseline: au.Kind == model.AuditorBaseline}
		if au.Epoch != nil {
			auds[i].Epoch = *au.Epoch
		}
		if au.Step != nil {
			auds[i].Step = *au.Step
		}
	}
	return experiment.Presets(runs, auds)
}

// Correlation is the correlation table of the suite's dimensions
// (SuiteDimensions) within one population of auditors.
type Correlation struct {
	R, P [][]float64
	// Population is "checkpoints" or "baselines": never both, whose
	// correlations can run opposite ways (false-positive calibration
	// against production: +0.78 among baselines, −0.73 among checkpoints,
	// −0.65 pooled).
	Population string
	N, Runs    int // auditors; runs among checkpoints (the p-values' units)
}

// Correlations are the Pearson correlations of the suite's dimensions
// across the given auditors of one population: the checkpoints when any
// is given (as the paper), else the baselines. Among checkpoints a p-value
// counts runs, not checkpoints (analysis.CorrelationMatrixClustered). ok is
// false with fewer than three auditors or when the matrix is undefined.
func Correlations(rows []AuditorScores) (Correlation, bool) {
	var pop []AuditorScores
	c := Correlation{Population: "checkpoints"}
	for _, a := range rows {
		if a.Auditor.Kind == model.AuditorCheckpoint {
			pop = append(pop, a)
		}
	}
	if len(pop) == 0 {
		c.Population, pop = "baselines", rows
	}
	c.N = len(pop)
	if len(pop) < 3 {
		return c, false
	}
	cols := make([][]float64, len(SuiteDimensions))
	for i, k := range SuiteDimensions {
		for _, a := range pop {
			cols[i] = append(cols[i], a.Score[k].Value)
		}
	}
	var clusters []int
	if c.Population == "checkpoints" {
		ids := map[string]int{}
		for _, a := range pop {
			run := cmp.Or(a.Auditor.Run, a.Auditor.ID)
			if _, ok := ids[run]; !ok {
				ids[run] = len(ids)
			}
			clusters = append(clusters, ids[run])
		}
		c.Runs = len(ids)
	}
	var err error
	c.R, c.P, err = analysis.CorrelationMatrixClustered(cols, clusters)
	return c, err == nil
}

// CheckpointX is a checkpoint's position on a training curve: its step, or
// its epoch when steps are not given (NaN for neither).
func CheckpointX(a model.Auditor) float64 {
	if a.Step != nil {
		return float64(*a.Step)
	}
	if a.Epoch != nil {
		return float64(*a.Epoch)
	}
	return math.NaN()
}
