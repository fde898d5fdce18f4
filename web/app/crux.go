package app

import (
	"context"
	"math"

	"github.com/auditscope/auditscope/analysis"
	"github.com/auditscope/auditscope/analysis/experiment"
	"github.com/auditscope/auditscope/data/model"
)

// Crux is the crux evaluation of an experiment's checkpoints: each
// checkpoint's eight crux features beside its dimension values, and how
// well the features predict each dimension across checkpoints.
type Crux struct {
	Stats    *ExperimentStats
	Names    []string // checkpoint names, in auditor order
	Features [][]float64
	Targets  map[string][]float64 // per SuiteDimensions key, a value per checkpoint (NaN: none)
	// Fits are the regressions' R² per dimension (analysis.CruxR2); nil
	// without a checkpoint.
	Fits map[string]analysis.CruxFit
}

// Crux pairs each checkpoint's crux features with its dimension values and
// fits the regressions. The regression runs across checkpoints, as in the
// paper: baselines are left out.
func (s *Service) Crux(ctx context.Context, exp string) (*Crux, error) {
	st, err := s.Stats(ctx, exp)
	if err != nil {
		return nil, err
	}
	rows, err := s.r.Crux(ctx, st.Exp.ID)
	if err != nil {
		return nil, err
	}
	byID := map[string]AuditorScores{}
	for _, a := range st.Auditors {
		byID[a.Auditor.ID] = a
	}
	d := &Crux{Stats: st, Targets: map[string][]float64{}}
	for _, r := range rows {
		a, ok := byID[r.Auditor]
		if !ok || a.Auditor.Kind != model.AuditorCheckpoint {
			continue
		}
		d.Names = append(d.Names, a.Auditor.Name)
		d.Features = append(d.Features, append([]float64(nil), r.Features[:]...))
		for _, k := range SuiteDimensions {
			d.Targets[k] = append(d.Targets[k], a.Score[k].Value)
		}
	}
	if len(d.Features) > 0 {
		if d.Fits, err = analysis.CruxR2(d.Features, d.Targets); err != nil {
			return nil, err
		}
	}
	return d, nil
}

// CruxPoint is one checkpoint's observed value of a dimension against the
// value its eight crux features predict.
type CruxPoint struct {
	Name                string
	Predicted, Observed float64
}

// Predictions fits dim on all eight features by ordinary least squares and
// returns each checkpoint with a value, predicted against observed. A fit
// the data cannot determine is a QueryError that says why.
func (d *Crux) Predictions(dim string) ([]CruxPoint, error) {
	var x [][]float64
	var y []float64
	var names []string
	for i, v := range d.Targets[dim] {
		if !math.IsNaN(v) {
			x, y, names = append(x, d.Features[i]), append(y, v), append(names, d.Names[i])
		}
	}
	if len(y) == 0 {
		return nil, nil
	}
	fit, err := analysis.OLS(x, y)
	if err != nil {
		return nil, Queryf("crux regression for %s: %v", dim, err)
	}
	pts := make([]CruxPoint, len(y))
	for i := range y {
		pred := fit.Coef[0]
		for j, v := range x[i] {
			pred += fit.Coef[j+1] * v
		}
		pts[i] = CruxPoint{Name: names[i], Predicted: pred, Observed: y[i]}
	}
	return pts, nil
}

// CruxR2Intervals are one dimension's in-sample R² with their percentile
// bootstrap intervals over checkpoints: on the three rates and on all
// features.
type CruxR2Intervals struct {
	Rates, All analysis.Estimate
}

// R2Intervals bootstraps each dimension's in-sample R² over checkpoints
// (analysis.R2Bootstrap), BootstrapResamples each, seeded by the experiment
// and dimension so a page shows the same interval every time. Without a
// checkpoint there is nothing to bootstrap: nil.
func (d *Crux) R2Intervals() (map[string]CruxR2Intervals, error) {
	if d.Fits == nil {
		return nil, nil
	}
	out := make(map[string]CruxR2Intervals, len(SuiteDimensions))
	for _, dim := range SuiteDimensions {
		var xAll, xRates [][]float64
		var y []float64
		for i, v := range d.Targets[dim] {
			if !math.IsNaN(v) {
				xAll, xRates, y = append(xAll, d.Features[i]), append(xRates, d.Features[i][:analysis.CruxRates]), append(y, v)
			}
		}
		nan := analysis.Estimate{Value: math.NaN(), Lo: math.NaN(), Hi: math.NaN()}
		iv := CruxR2Intervals{Rates: nan, All: nan}
		if len(y) > 0 {
			var err error
			seed := experiment.Seed(d.Stats.Exp.ID, "crux", dim)
			if iv.Rates, err = analysis.R2Bootstrap(xRates, y, BootstrapResamples, 0.95, seed); err != nil {
				return nil, err
			}
			if iv.All, err = analysis.R2Bootstrap(xAll, y, BootstrapResamples, 0.95, seed+1); err != nil {
				return nil, err
			}
		}
		out[dim] = iv
	}
	return out, nil
}
