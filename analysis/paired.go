package analysis

import (
	"fmt"
	"math"
	"slices"

	"gonum.org/v1/gonum/stat/distuv"
)

// Tests for the difference between two configurations: paired where the
// data pairs (the same behavior and seed audited by both), independent
// otherwise. Every function returns the difference first − second.

// PairedT returns the mean of a[i] − b[i] with its two-sided Student t
// interval and the two-sided p-value of the paired t-test (scipy's
// ttest_rel and t.interval). One pair has a difference but no interval or
// p-value (NaN). When every difference is the same the interval collapses
// to it and the p-value is NaN (the t statistic is undefined), as in
// MeanCI.
//
// Errors: no pairs, a non-finite value, or a confidence outside (0, 1). It
// panics when a and b differ in length.
func PairedT(a, b []float64, confidence float64) (Estimate, float64, error) {
	if len(a) != len(b) {
		panic(fmt.Sprintf("analysis: PairedT: %d and %d values", len(a), len(b)))
	}
	d := make([]float64, len(a))
	for i := range a {
		d[i] = a[i] - b[i]
	}
	e, err := MeanCI(d, confidence)
	if err != nil {
		return e, math.NaN(), fmt.Errorf("analysis: PairedT: %w", err)
	}
	n := len(d)
	_, sem, constant := meanSEM(d)
	if n < 2 || constant {
		return e, math.NaN(), nil
	}
	return e, tTestP(e.Value/sem, n-1), nil
}

// tTestP is the two-sided p-value of a t statistic with df degrees of
// freedom.
func tTestP(t float64, df int) float64 {
	dist := distuv.StudentsT{Mu: 0, Sigma: 1, Nu: float64(df)}
	return 2 * dist.Survival(math.Abs(t))
}

// Holm adjusts p-values for multiple comparisons with Holm's step-down
// method (statsmodels' multipletests(method="holm")): sorted ascending,
// the i-th (from 0) of m becomes max over j ≤ i of min(1, (m − j)·p(j)).
// NaN p-values are left NaN and not counted in m.
func Holm(p []float64) []float64 {
	out := make([]float64, len(p))
	idx := sortedFinite(p, out)
	m := len(idx)
	running := 0.0
	for k, i := range idx {
		running = math.Max(running, math.Min(1, float64(m-k)*p[i]))
		out[i] = running
	}
	return out
}

// BootstrapP is the two-sided p-value of a bootstrap distribution of a
// difference: twice the share of resamples on the smaller side of 0, each
// share counted as (1 + k)/(B + 1) so that B resamples never give less than
// 2/(B + 1) (a resampling p-value is never 0), at most 1. NaN for no
// resamples.
func BootstrapP(diffs []float64) float64 {
	if len(diffs) == 0 {
		return math.NaN()
	}
	var le, ge int
	for _, d := range diffs {
		if d <= 0 {
			le++
		}
		if d >= 0 {
			ge++
		}
	}
	return math.Min(1, 2*float64(1+min(le, ge))/float64(len(diffs)+1))
}

// PercentileInterval is the percentile interval of bootstrap values (type
// 7 quantiles, as Bootstrap gives); it sorts vals.
func PercentileInterval(vals []float64, confidence float64) (lo, hi float64) {
	return percentileInterval(vals, confidence)
}

// WelchT returns mean(a) − mean(b) for independent samples with Welch's
// t interval (Welch–Satterthwaite degrees of freedom) and the two-sided
// p-value (scipy's ttest_ind(equal_var=False)). Each sample needs two
// values; with no spread in either the interval collapses and p is NaN.
func WelchT(a, b []float64, confidence float64) (Estimate, float64, error) {
	if err := checkConfidence("WelchT", confidence); err != nil {
		return nanEstimate(), math.NaN(), err
	}
	if len(a) < 2 || len(b) < 2 {
		return nanEstimate(), math.NaN(), fmt.Errorf("analysis: WelchT: need two values each, have %d and %d", len(a), len(b))
	}
	ma, sa, _ := meanSEM(a)
	mb, sb, _ := meanSEM(b)
	d := ma - mb
	se2 := sa*sa + sb*sb
	if se2 == 0 {
		return Estimate{Value: d, Lo: d, Hi: d}, math.NaN(), nil
	}
	na, nb := float64(len(a)), float64(len(b))
	df := se2 * se2 / (math.Pow(sa, 4)/(na-1) + math.Pow(sb, 4)/(nb-1))
	dist := distuv.StudentsT{Mu: 0, Sigma: 1, Nu: df}
	h := dist.Quantile((1+confidence)/2) * math.Sqrt(se2)
	return Estimate{Value: d, Lo: d - h, Hi: d + h}, 2 * dist.Survival(math.Abs(d)/math.Sqrt(se2)), nil
}

// sortedFinite returns the indexes of p's non-NaN values, ascending by
// value (stable), and sets out to NaN everywhere.
func sortedFinite(p, out []float64) []int {
	idx := make([]int, 0, len(p))
	for i, v := range p {
		out[i] = math.NaN()
		if !math.IsNaN(v) {
			idx = append(idx, i)
		}
	}
	slices.SortStableFunc(idx, func(i, j int) int {
		switch {
		case p[i] < p[j]:
			return -1
		case p[i] > p[j]:
			return 1
		}
		return 0
	})
	return idx
}
