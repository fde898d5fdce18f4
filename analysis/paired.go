package analysis

import (
	"errors"
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
// Errors: no pairs, slices of different lengths, a non-finite value, or a
// confidence outside (0, 1).
func PairedT(a, b []float64, confidence float64) (Estimate, float64, error) {
	if len(a) != len(b) {
		return nanEstimate(), math.NaN(), fmt.Errorf("analysis: PairedT: %d and %d values", len(a), len(b))
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

// NewcombeDiff returns p1 − p2 for x1 successes of n1 and x2 of n2 from
// independent samples, with Newcombe's hybrid score interval (his method
// 10; statsmodels' confint_proportions_2indep(method="newcomb")): with
// [l1, u1] and [l2, u2] the Wilson intervals of p1 and p2,
//
//	Lo = p1 − p2 − sqrt((p1 − l1)² + (u2 − p2)²)
//	Hi = p1 − p2 + sqrt((u1 − p1)² + (p2 − l2)²)
//
// Successes may be fractional (wins + ties/2). Errors as Wilson's.
func NewcombeDiff(x1 float64, n1 int, x2 float64, n2 int, confidence float64) (Estimate, error) {
	w1, err := Wilson(x1, n1, confidence)
	if err != nil {
		return nanEstimate(), fmt.Errorf("analysis: NewcombeDiff: %w", err)
	}
	w2, err := Wilson(x2, n2, confidence)
	if err != nil {
		return nanEstimate(), fmt.Errorf("analysis: NewcombeDiff: %w", err)
	}
	p1, p2 := w1.Value, w2.Value
	d := p1 - p2
	return Estimate{Value: d,
		Lo: d - math.Sqrt(sq(p1-w1.Lo)+sq(w2.Hi-p2)),
		Hi: d + math.Sqrt(sq(w1.Hi-p1)+sq(p2-w2.Lo))}, nil
}

func sq(x float64) float64 { return x * x }

// NewcombePaired returns p1 − p2 = (b − c)/n for paired binary outcomes
// with Newcombe's interval for paired data (Newcombe 1998, Statistics in
// Medicine 17:2635, method 10): a pairs where both are 1, b where only the
// first is, c where only the second is, d where neither is; n = a+b+c+d.
// With [l1, u1], [l2, u2] the Wilson intervals of p1 = (a+b)/n and
// p2 = (a+c)/n and φ = (ad − bc)/sqrt((a+b)(c+d)(a+c)(b+d)) (0 when that
// product is 0),
//
//	Lo = θ − sqrt((p1−l1)² − 2φ(p1−l1)(u2−p2) + (u2−p2)²)
//	Hi = θ + sqrt((u1−p1)² − 2φ(u1−p1)(p2−l2) + (p2−l2)²)
//
// With φ = 0 it is NewcombeDiff with n1 = n2 = n. Errors: a negative
// count, no pairs, or a confidence outside (0, 1).
func NewcombePaired(a, b, c, d int, confidence float64) (Estimate, error) {
	if a < 0 || b < 0 || c < 0 || d < 0 {
		return nanEstimate(), fmt.Errorf("analysis: NewcombePaired: negative count in %d %d %d %d", a, b, c, d)
	}
	n := a + b + c + d
	if n == 0 {
		return nanEstimate(), errors.New("analysis: NewcombePaired: no pairs")
	}
	w1, err := Wilson(float64(a+b), n, confidence)
	if err != nil {
		return nanEstimate(), fmt.Errorf("analysis: NewcombePaired: %w", err)
	}
	w2, err := Wilson(float64(a+c), n, confidence)
	if err != nil {
		return nanEstimate(), fmt.Errorf("analysis: NewcombePaired: %w", err)
	}
	phi := 0.0
	if den := float64(a+b) * float64(c+d) * float64(a+c) * float64(b+d); den > 0 {
		phi = (float64(a)*float64(d) - float64(b)*float64(c)) / math.Sqrt(den)
	}
	p1, p2 := w1.Value, w2.Value
	theta := float64(b-c) / float64(n)
	dl := sq(p1-w1.Lo) - 2*phi*(p1-w1.Lo)*(w2.Hi-p2) + sq(w2.Hi-p2)
	du := sq(w1.Hi-p1) - 2*phi*(w1.Hi-p1)*(p2-w2.Lo) + sq(p2-w2.Lo)
	return Estimate{Value: theta, Lo: theta - math.Sqrt(math.Max(dl, 0)), Hi: theta + math.Sqrt(math.Max(du, 0))}, nil
}

// McNemarExactBelow is the number of discordant pairs below which McNemar
// uses the exact binomial test; at and above it the chi-square statistic
// with continuity correction, as statsmodels' mcnemar(exact=...) computes
// each.
const McNemarExactBelow = 25

// McNemar returns the two-sided p-value of McNemar's test on b pairs where
// only the first is 1 and c where only the second is, and whether the
// exact binomial test was used: min(1, 2·P(X ≤ min(b, c))) for X ~
// Binomial(b+c, 1/2) when b + c < McNemarExactBelow, else the upper tail of
// χ²(1) at (|b − c| − 1)²/(b + c). No discordant pairs give p = 1.
func McNemar(b, c int) (p float64, exact bool, err error) {
	if b < 0 || c < 0 {
		return math.NaN(), false, fmt.Errorf("analysis: McNemar: negative count %d, %d", b, c)
	}
	n := b + c
	if n == 0 {
		return 1, true, nil
	}
	if n < McNemarExactBelow {
		bin := distuv.Binomial{N: float64(n), P: 0.5}
		return math.Min(1, 2*bin.CDF(float64(min(b, c)))), true, nil
	}
	x := sq(math.Abs(float64(b-c))-1) / float64(n)
	return distuv.ChiSquared{K: 1}.Survival(x), false, nil
}

// TwoProportionZ returns the two-sided p-value of the z-test that two
// independent proportions x1/n1 and x2/n2 are equal, with the pooled
// proportion under the null (statsmodels' proportions_ztest). Successes
// may be fractional. It is NaN when the pooled proportion is 0 or 1 (no
// variance) or a sample is empty.
func TwoProportionZ(x1 float64, n1 int, x2 float64, n2 int) float64 {
	if n1 <= 0 || n2 <= 0 {
		return math.NaN()
	}
	p := (x1 + x2) / float64(n1+n2)
	se := math.Sqrt(p * (1 - p) * (1/float64(n1) + 1/float64(n2)))
	if !(se > 0) {
		return math.NaN()
	}
	z := (x1/float64(n1) - x2/float64(n2)) / se
	return 2 * distuv.UnitNormal.Survival(math.Abs(z))
}

// Holm adjusts p-values for multiple comparisons with Holm's step-down
// method (statsmodels' multipletests(method="holm")): sorted ascending,
// the i-th (from 0) of m becomes max over j ≤ i of min(1, (m − j)·p(j)).
// NaN p-values are left NaN and not counted in m.
func Holm(p []float64) []float64 {
	out := make([]float64, len(p))
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
