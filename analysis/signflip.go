package analysis

import (
	"fmt"
	"math"
	"math/rand/v2"
	"slices"
	"sort"
)

// SignFlipExactMax is the number of pairs up to which SignFlip enumerates
// every sign pattern (2²⁰, about a million); above it, it draws resamples.
const SignFlipExactMax = 20

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
// difference; seed fixes the drawn patterns. Enumerated, the answer does
// not depend on the order of d, so A − B mirrors B − A exactly.
func SignFlip(d []float64, confidence float64, resamples int, seed uint64) (e Estimate, p float64, exact bool, err error) {
	if err := checkConfidence("SignFlip", confidence); err != nil {
		return nanEstimate(), math.NaN(), false, err
	}
	n := len(d)
	if n == 0 {
		return nanEstimate(), math.NaN(), false, fmt.Errorf("analysis: SignFlip: no differences")
	}
	exact = n <= SignFlipExactMax
	var sp *signPatterns
	if exact {
		sp = allPatterns(d)
	} else {
		if resamples < 1 {
			return nanEstimate(), math.NaN(), false, fmt.Errorf("analysis: SignFlip: %d pairs need resamples", n)
		}
		sp = drawnPatterns(d, resamples, seed)
	}
	var total float64
	for _, x := range d {
		total += x
	}
	pAt := func(delta float64) float64 {
		obs := math.Abs(total - delta*float64(n))
		// Sums equal to the observed one up to rounding count as at least
		// as large (scipy compares with a relative tolerance too).
		k := sp.atLeast(delta, obs-1e-9*math.Max(1, obs))
		if exact {
			return float64(k) / float64(sp.count)
		}
		return float64(1+k) / float64(sp.count+1)
	}
	mean := total / float64(n)
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

// SignFlipP is the sign-flip test's p-value alone, exact whenever at most
// SignFlipExactMax differences are not 0, however many there are: a 0
// negated is still 0, so the patterns of the others decide it (90 benign
// seeds of which 5 differ: 2⁵ patterns). Past that, exact is false and p
// is NaN: SignFlip's drawn patterns are the test then.
func SignFlipP(d []float64) (p float64, exact bool) {
	var nz []float64
	for _, x := range d {
		if x != 0 {
			nz = append(nz, x)
		}
	}
	if len(nz) > SignFlipExactMax {
		return math.NaN(), false
	}
	if len(nz) == 0 {
		return 1, true
	}
	var total float64
	for _, x := range nz {
		total += x
	}
	obs := math.Abs(total)
	sp := allPatterns(nz)
	return float64(sp.atLeast(0, obs-1e-9*math.Max(1, obs))) / float64(sp.count), true
}

// signPatterns are sign patterns s of the differences d, each kept as
// Σ sᵢdᵢ under its Σ sᵢ (a pattern enters the statistic at a shift δ only
// through |Σ sᵢdᵢ − δ·Σ sᵢ|), sorted, so that counting the patterns at
// least as extreme as the observed is two binary searches per value of
// Σ sᵢ rather than a pass over a million patterns.
type signPatterns struct {
	n     int
	byS   [][]float64 // [(Σ sᵢ + n)/2]: the sums Σ sᵢdᵢ, sorted
	count int
}

func newSignPatterns(n int) *signPatterns {
	return &signPatterns{n: n, byS: make([][]float64, n+1)}
}

func (sp *signPatterns) add(sum float64, signs int) {
	j := (signs + sp.n) / 2
	sp.byS[j] = append(sp.byS[j], sum)
	sp.count++
}

func (sp *signPatterns) sort() {
	for _, g := range sp.byS {
		slices.Sort(g)
	}
}

// allPatterns enumerates all 2ⁿ patterns, built up one difference at a
// time.
func allPatterns(d []float64) *signPatterns {
	sums, signs := []float64{0}, []int8{0}
	for _, x := range d {
		ns, nsg := make([]float64, 0, 2*len(sums)), make([]int8, 0, 2*len(sums))
		for i, a := range sums {
			ns, nsg = append(ns, a+x, a-x), append(nsg, signs[i]+1, signs[i]-1)
		}
		sums, signs = ns, nsg
	}
	sp := newSignPatterns(len(d))
	for i, a := range sums {
		sp.add(a, int(signs[i]))
	}
	sp.sort()
	return sp
}

// drawnPatterns draws resamples patterns, each sign a fair coin.
func drawnPatterns(d []float64, resamples int, seed uint64) *signPatterns {
	rng := rand.New(rand.NewPCG(seed, 0x7369676e666c6970)) // "signflip"
	sp := newSignPatterns(len(d))
	for range resamples {
		var a float64
		var b int
		for _, x := range d {
			if rng.IntN(2) == 1 {
				a, b = a-x, b-1
			} else {
				a, b = a+x, b+1
			}
		}
		sp.add(a, b)
	}
	sp.sort()
	return sp
}

// atLeast counts the patterns with |Σ sᵢdᵢ − δ·Σ sᵢ| ≥ t.
func (sp *signPatterns) atLeast(delta, t float64) int {
	if t <= 0 {
		return sp.count
	}
	k := 0
	for j, g := range sp.byS {
		if len(g) == 0 {
			continue
		}
		c := delta * float64(2*j-sp.n)
		k += len(g) - sort.SearchFloat64s(g, c+t)                        // ≥ c + t
		k += sort.Search(len(g), func(i int) bool { return g[i] > c-t }) // ≤ c − t
	}
	return k
}
