package analysis

import (
	"fmt"
	"math"
	"math/rand/v2"
	"slices"

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

// SignFlipExactMax is the number of pairs up to which SignFlip enumerates
// every sign pattern; above it, it draws resamples.
const SignFlipExactMax = 16

// SignFlip tests whether paired differences d have mean 0 with a sign-flip
// permutation test, which is exact for any values (ties, half-points,
// n = 20): under the null each difference is as likely negated. The
// statistic is |Σ dᵢ|; the p-value is the share of sign patterns giving a
// statistic at least as large (all 2ⁿ patterns up to SignFlipExactMax
// pairs, as scipy's permutation_test with n_resamples=inf; else resamples
// drawn patterns with the observed one counted, (1 + k)/(resamples + 1)).
//
// The interval is the test inverted: the shifts δ that the same test, on
// dᵢ − δ with the same patterns, does not reject at 1 − confidence. So it
// excludes 0 exactly when p < 1 − confidence. Value is the mean
// difference; seed fixes the drawn patterns.
func SignFlip(d []float64, confidence float64, resamples int, seed uint64) (e Estimate, p float64, exact bool, err error) {
	if err := checkConfidence("SignFlip", confidence); err != nil {
		return nanEstimate(), math.NaN(), false, err
	}
	n := len(d)
	if n == 0 {
		return nanEstimate(), math.NaN(), false, fmt.Errorf("analysis: SignFlip: no differences")
	}
	// Each sign pattern s enters only through Σ sᵢdᵢ and Σ sᵢ: at a shift δ
	// its statistic is |Σ sᵢdᵢ − δ·Σ sᵢ|.
	var sd, ss []float64
	addPattern := func(sign func(i int) bool) {
		var a, b float64
		for i, x := range d {
			if sign(i) {
				a, b = a-x, b-1
			} else {
				a, b = a+x, b+1
			}
		}
		sd, ss = append(sd, a), append(ss, b)
	}
	exact = n <= SignFlipExactMax
	if exact {
		for m := range 1 << n {
			addPattern(func(i int) bool { return m>>i&1 == 1 })
		}
	} else {
		if resamples < 1 {
			return nanEstimate(), math.NaN(), false, fmt.Errorf("analysis: SignFlip: %d pairs need resamples", n)
		}
		rng := rand.New(rand.NewPCG(seed, 0x7369676e666c6970)) // "signflip"
		for range resamples {
			addPattern(func(int) bool { return rng.IntN(2) == 1 })
		}
	}
	var total float64
	for _, x := range d {
		total += x
	}
	pAt := func(delta float64) float64 {
		obs := math.Abs(total - delta*float64(n))
		// Sums equal to the observed one up to rounding count as at least
		// as large (scipy compares with a relative tolerance too).
		tol := 1e-9 * math.Max(1, obs)
		k := 0
		for j, a := range sd {
			if math.Abs(a-delta*ss[j]) >= obs-tol {
				k++
			}
		}
		if exact {
			return float64(k) / float64(len(sd))
		}
		return float64(1+k) / float64(len(sd)+1)
	}
	mean := 0.0
	for _, x := range d {
		mean += x
	}
	mean /= float64(n)
	p = pAt(0)
	alpha := 1 - confidence
	// The bounds: from the mean (p = 1) outward to a shift the test
	// rejects, then bisection to the edge of what it does not.
	// With few pairs no shift may be rejected (2 of 2³ patterns are as
	// extreme as any: p ≥ 0.25): the bound is then infinite.
	span := math.Max(math.Abs(slices.Max(d)), math.Abs(slices.Min(d))) + 1
	bound := func(dir float64) float64 {
		in, out := mean, mean+dir*span
		for i := 0; pAt(out) >= alpha; i++ {
			if i == 40 {
				return dir * math.Inf(1)
			}
			in, out = out, out+dir*span*math.Exp2(float64(i))
		}
		for range 60 {
			mid := (in + out) / 2
			if pAt(mid) >= alpha {
				in = mid
			} else {
				out = mid
			}
			if math.Abs(out-in) <= 1e-12*math.Max(1, math.Abs(mean)) {
				break
			}
		}
		return in
	}
	return Estimate{Value: mean, Lo: bound(-1), Hi: bound(1)}, p, exact, nil
}
