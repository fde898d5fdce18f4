package app

import (
	"cmp"
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
	Groups   []string // each checkpoint's run (its id when it has none): the unit held out
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
		d.Groups = append(d.Groups, cmp.Or(a.Auditor.Run, a.Auditor.ID))
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

// CruxR2Intervals are one dimension's crux regressions judged: in-sample
// R² with BCa bootstrap intervals over runs, and the R² held out a run at a
// time with its permutation p-value, on the three rates and on all
// features.
type CruxR2Intervals struct {
	Rates, All         analysis.Estimate
	HeldRates, HeldAll analysis.HeldOutR2
}

// CruxResamples is the number of run-level resamples behind an in-sample
// R²'s BCa interval: each is a refit, and 4,000 keep the crux page near a
// second cold (a bound's Monte Carlo error is then about a hundredth).
const CruxResamples = 4000

// CruxPermutations is the number of permutations behind a held-out R²'s
// p-value: the smallest it can be is 1/5,001.
const CruxPermutations = 5000

// R2Intervals judges each dimension's regressions. The unit is the run: a
// run's epochs share its features, so leaving one checkpoint out leaks its
// other epochs into the fit (audit quality's R² fell from 0.17 to 0.03 when
// whole runs were held out), and the bootstrap redraws runs. The in-sample
// R²'s interval is BCa (the percentile interval sat mostly above the
// estimate: the in-sample R² is biased upward). Seeded by the experiment
// and dimension, so a page shows the same numbers every time. Without a
// checkpoint there is nothing to judge: nil.
func (d *Crux) R2Intervals() (map[string]CruxR2Intervals, error) {
	if d.Fits == nil {
		return nil, nil
	}
	out := make(map[string]CruxR2Intervals, len(SuiteDimensions))
	for _, dim := range SuiteDimensions {
		var xAll, xRates [][]float64
		var y []float64
		var groups []string
		for i, v := range d.Targets[dim] {
			if !math.IsNaN(v) {
				xAll, xRates, y = append(xAll, d.Features[i]), append(xRates, d.Features[i][:analysis.CruxRates]), append(y, v)
				groups = append(groups, d.Groups[i])
			}
		}
		nan := analysis.Estimate{Value: math.NaN(), Lo: math.NaN(), Hi: math.NaN()}
		nanHeld := analysis.HeldOutR2{R2: math.NaN(), P: math.NaN(), Chance: math.NaN()}
		iv := CruxR2Intervals{Rates: nan, All: nan, HeldRates: nanHeld, HeldAll: nanHeld}
		if len(y) > 0 {
			var err error
			seed := experiment.Seed(d.Stats.Exp.ID, "crux", dim)
			if iv.Rates, err = analysis.R2GroupBCa(xRates, y, groups, CruxResamples, 0.95, seed); err != nil {
				return nil, err
			}
			if iv.All, err = analysis.R2GroupBCa(xAll, y, groups, CruxResamples, 0.95, seed+1); err != nil {
				return nil, err
			}
			if iv.HeldRates, err = analysis.LeaveGroupOutR2(xRates, y, groups, CruxPermutations, seed+2); err != nil {
				return nil, err
			}
			if iv.HeldAll, err = analysis.LeaveGroupOutR2(xAll, y, groups, CruxPermutations, seed+3); err != nil {
				return nil, err
			}
		}
		out[dim] = iv
	}
	return out, nil
}
