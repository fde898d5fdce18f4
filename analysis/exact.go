package analysis

import (
	"fmt"
	"math"

	"gonum.org/v1/gonum/stat/distuv"
)

// McNemarExact compares two paired proportions with the exact McNemar
// test and the interval that goes with it, so that "the interval excludes
// 0" and "p < 1 − confidence" always say the same thing.
//
// Of n pairs, b have only the first side 1 and c only the second. The
// difference of the two proportions is (b − c)/n. Given the d = b + c
// discordant pairs, b ~ Binomial(d, π) and the difference is d(2π − 1)/n;
// the null is π = 1/2. The p-value is the exact test's, min(1, 2·P(X ≤
// min(b, c))) for X ~ Binomial(d, 1/2) (statsmodels' mcnemar(exact=True));
// the interval is the Clopper–Pearson interval for π, central (α/2 in each
// tail), mapped to the difference: its bound is below 1/2 exactly when the
// lower tail at 1/2 is below α/2, which is when the doubled tail is below
// α. With no discordant pairs there is nothing to test: p = 1 and the
// interval is NaN (it is conditional on d).
func McNemarExact(b, c, n int, confidence float64) (Estimate, float64, error) {
	if err := checkConfidence("McNemarExact", confidence); err != nil {
		return nanEstimate(), math.NaN(), err
	}
	if b < 0 || c < 0 || n < b+c || n == 0 {
		return nanEstimate(), math.NaN(), fmt.Errorf("analysis: McNemarExact: %d and %d discordant of %d pairs", b, c, n)
	}
	d := b + c
	diff := float64(b-c) / float64(n)
	if d == 0 {
		return Estimate{Value: 0, Lo: math.NaN(), Hi: math.NaN()}, 1, nil
	}
	p := math.Min(1, 2*distuv.Binomial{N: float64(d), P: 0.5}.CDF(float64(min(b, c))))
	lo, hi := ClopperPearson(b, d, confidence)
	scale := float64(d) / float64(n)
	return Estimate{Value: diff, Lo: scale * (2*lo - 1), Hi: scale * (2*hi - 1)}, p, nil
}

// ClopperPearson is the exact (central) interval for a binomial proportion
// of x successes in n trials: the α/2 and 1 − α/2 quantiles of
// Beta(x, n − x + 1) and Beta(x + 1, n − x), with 0 and 1 at the ends
// (statsmodels' proportion_confint(method="beta")).
func ClopperPearson(x, n int, confidence float64) (lo, hi float64) {
	alpha := 1 - confidence
	lo, hi = 0, 1
	if x > 0 {
		lo = distuv.Beta{Alpha: float64(x), Beta: float64(n - x + 1)}.Quantile(alpha / 2)
	}
	if x < n {
		hi = distuv.Beta{Alpha: float64(x + 1), Beta: float64(n - x)}.Quantile(1 - alpha/2)
	}
	return lo, hi
}
