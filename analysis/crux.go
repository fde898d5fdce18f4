package analysis

import (
	"fmt"
	"math"
)

// CruxRates is the number of leading crux features that are the aggregate
// rates (target-focused detection, auditor-view detection, pairwise win
// rate vs the base auditor); the remaining features are the pairwise
// sub-dimension deltas.
const CruxRates = 3

// CruxFit is the crux R² regression of one evaluation dimension across
// checkpoints.
type CruxFit struct {
	// N is the number of checkpoints with a finite target value.
	N int
	// R2Rates and LOORates are the in-sample and leave-one-out R² of the
	// regression on the first CruxRates features.
	R2Rates, LOORates float64
	// R2All and LOOAll are the same for the regression on all features.
	R2All, LOOAll float64
}

// CruxR2 regresses each evaluation dimension on the crux features across
// checkpoints with ordinary least squares (with intercept, see OLS) and
// reports the in-sample R² and the leave-one-out R² (see LOOR2), once on the
// three aggregate crux rates and once on all features (eight in the crux
// suite).
//
// features has one row per checkpoint, the first CruxRates columns being
// the rates; targets maps a dimension name to one value per checkpoint, NaN
// where the checkpoint has no value for that dimension (such rows are left
// out of that dimension's fits). Values that are undefined for the data are
// NaN: all four with no usable row, R² when the target is constant, and the
// leave-one-out R² when N is not larger than the rank of the design (the
// in-sample R² is then trivially 1).
//
// Errors: fewer than CruxRates features, a non-finite feature, or an
// infinite target value. It panics when the rows differ in length or a
// target's length differs from the number of rows.
func CruxR2(features [][]float64, targets map[string][]float64) (map[string]CruxFit, error) {
	n := len(features)
	k := CruxRates
	if n > 0 {
		k = len(features[0])
	}
	if k < CruxRates {
		return nil, fmt.Errorf("analysis: CruxR2: %d features, want at least %d", k, CruxRates)
	}
	for i, row := range features {
		if len(row) != k {
			panic(fmt.Sprintf("analysis: CruxR2: row %d has %d features, row 0 has %d", i, len(row), k))
		}
		for j, v := range row {
			if !isFinite(v) {
				return nil, fmt.Errorf("analysis: CruxR2: feature %d of row %d is %v", j, i, v)
			}
		}
	}
	out := make(map[string]CruxFit, len(targets))
	for name, y := range targets {
		if len(y) != n {
			panic(fmt.Sprintf("analysis: CruxR2: target %q has %d values for %d rows", name, len(y), n))
		}
		var xAll, xRates [][]float64
		var ys []float64
		for i, v := range y {
			if math.IsInf(v, 0) {
				return nil, fmt.Errorf("analysis: CruxR2: target %q row %d is %v", name, i, v)
			}
			if math.IsNaN(v) {
				continue
			}
			xAll = append(xAll, features[i])
			xRates = append(xRates, features[i][:CruxRates])
			ys = append(ys, v)
		}
		fit := CruxFit{N: len(ys)}
		var err error
		if fit.R2Rates, fit.LOORates, err = r2Pair(xRates, ys); err != nil {
			return nil, fmt.Errorf("analysis: CruxR2: %q: %w", name, err)
		}
		if fit.R2All, fit.LOOAll, err = r2Pair(xAll, ys); err != nil {
			return nil, fmt.Errorf("analysis: CruxR2: %q: %w", name, err)
		}
		out[name] = fit
	}
	return out, nil
}

// r2Pair returns the in-sample and leave-one-out R², NaN for no rows.
func r2Pair(x [][]float64, y []float64) (r2, loo float64, err error) {
	if len(y) == 0 {
		return math.NaN(), math.NaN(), nil
	}
	fit, err := OLS(x, y)
	if err != nil {
		return math.NaN(), math.NaN(), err
	}
	loo, err = LOOR2(x, y)
	if err != nil {
		return math.NaN(), math.NaN(), err
	}
	return fit.R2, loo, nil
}

// R2Bootstrap is the in-sample R² of the least-squares fit of y on x (with
// intercept, see OLS) and its percentile bootstrap interval over rows: each
// resample draws len(y) rows with replacement and refits (Bootstrap). For
// the crux regression a row is a checkpoint, the unit that was sampled.
// Resamples the fit cannot make (a constant y) are skipped. The in-sample
// R² of a fit with many features on few rows is biased upward, and so is its
// interval; the leave-one-out R² is the held-out check.
//
// Errors: no rows, rows of different lengths, non-finite values, and
// Bootstrap's argument errors.
func R2Bootstrap(x [][]float64, y []float64, resamples int, confidence float64, seed uint64) (Estimate, error) {
	if len(y) == 0 || len(x) != len(y) {
		return nanEstimate(), fmt.Errorf("analysis: R2Bootstrap: %d rows of features for %d values", len(x), len(y))
	}
	full, err := OLS(x, y)
	if err != nil {
		return nanEstimate(), err
	}
	bx := make([][]float64, len(y))
	by := make([]float64, len(y))
	est, err := Bootstrap(len(y), func(idx []int) float64 {
		for i, j := range idx {
			bx[i], by[i] = x[j], y[j]
		}
		fit, err := OLS(bx, by)
		if err != nil {
			return math.NaN()
		}
		return fit.R2
	}, resamples, confidence, seed)
	est.Value = full.R2
	return est, err
}
