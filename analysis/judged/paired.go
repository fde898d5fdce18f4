package judged

import (
	"errors"
	"hash/fnv"
	"math"
	"runtime"
	"slices"
	"sync"
	"sync/atomic"

	"github.com/auditscope/auditscope/analysis"
	"github.com/auditscope/auditscope/data/model"
)

// Multiple-comparison corrections across the dimensions.
const (
	CorrectBH   = "bh"
	CorrectHolm = "holm"
)

// resamples is how many sign patterns the test draws for n pairs above
// analysis.SignFlipExactMax: 10,000 (a Monte Carlo error of about 0.002
// near p = 0.05), fewer past 500 pairs so that a comparison costs at most
// about 5 million additions a dimension, never fewer than 2,000 (an error
// of about 0.005 near 0.05). With hundreds of seeds the test's answer is
// rarely near the line, and 38 dimensions of 2,500 seeds took 0.4 s.
func resamples(n int) int {
	return max(2_000, min(10_000, 5_000_000/max(n, 1)))
}

// PairedRow is one dimension of a paired comparison: the seeds both models
// have a score on, each model's mean over those seeds (its audits of a seed
// averaged first), the mean difference A − B with the sign-flip test's
// inverted interval (it excludes 0 exactly when P < 1 − confidence), the
// test's p and the p adjusted across the dimensions.
type PairedRow struct {
	Dim          int
	Pairs        int
	MeanA, MeanB float64
	Diff         analysis.Estimate
	P, Adjusted  float64
	Exact        bool
}

// SeedPair is one seed both models were audited on: each one's audits.
type SeedPair struct {
	Seed string
	A, B []int // indexes into the set's audits
}

// Paired is models A and B compared seed by seed.
type Paired struct {
	Role, A, B string
	Correction string
	Rows       []PairedRow
	Seeds      []SeedPair
}

// Compare compares models a and b (in role) on the kept audits, pairing by
// seed: a seed's audits of one model (rollouts, epochs, several runs) are
// averaged into one value, so the unit is the seed and every seed counts
// once, however often it was run. Each dimension gets a sign-flip test of
// the mean difference; correction (CorrectBH or CorrectHolm) adjusts the
// p-values across the dimensions that have pairs.
func Compare(set model.JudgedSet, keep []bool, role, a, b string, dims []int, correction string, confidence float64) (Paired, error) {
	out := Paired{Role: role, A: a, B: b, Correction: correction}
	bySeed := map[string]*SeedPair{}
	for i := range set.Audits {
		if !keep[i] {
			continue
		}
		au := &set.Audits[i]
		m := Model(au, role)
		if m != a && m != b {
			continue
		}
		sp := bySeed[au.Seed]
		if sp == nil {
			sp = &SeedPair{Seed: au.Seed}
			bySeed[au.Seed] = sp
		}
		if m == a {
			sp.A = append(sp.A, i)
		} else {
			sp.B = append(sp.B, i)
		}
	}
	for _, sp := range bySeed {
		if len(sp.A) > 0 && len(sp.B) > 0 {
			out.Seeds = append(out.Seeds, *sp)
		}
	}
	slices.SortFunc(out.Seeds, func(x, y SeedPair) int { return min(x.A[0], x.B[0]) - min(y.A[0], y.B[0]) })
	// The dimensions are independent: tested on every core.
	out.Rows = make([]PairedRow, len(dims))
	errs := make([]error, len(dims))
	var wg sync.WaitGroup
	next := atomic.Int64{}
	for range runtime.GOMAXPROCS(0) {
		wg.Go(func() {
			for j := int(next.Add(1) - 1); j < len(dims); j = int(next.Add(1) - 1) {
				out.Rows[j], errs[j] = pairedDim(set, out.Seeds, dims[j], confidence)
			}
		})
	}
	wg.Wait()
	if err := errors.Join(errs...); err != nil {
		return out, err
	}
	ps := make([]float64, len(dims))
	for j, r := range out.Rows {
		ps[j] = r.P
	}
	adj := analysis.BenjaminiHochberg(ps)
	if correction == CorrectHolm {
		adj = analysis.Holm(ps)
	}
	for j := range out.Rows {
		out.Rows[j].Adjusted = adj[j]
	}
	return out, nil
}

// pairedDim tests one dimension over the seeds both models have a score
// on.
func pairedDim(set model.JudgedSet, seeds []SeedPair, d int, confidence float64) (PairedRow, error) {
	r := PairedRow{Dim: d, MeanA: math.NaN(), MeanB: math.NaN(), P: math.NaN(), Adjusted: math.NaN(),
		Diff: analysis.Estimate{Value: math.NaN(), Lo: math.NaN(), Hi: math.NaN()}}
	var diffs []float64
	var sa, sb float64
	for _, sp := range seeds {
		ma, mb := seedMean(set, sp.A, d), seedMean(set, sp.B, d)
		if math.IsNaN(ma) || math.IsNaN(mb) {
			continue
		}
		diffs = append(diffs, ma-mb)
		sa, sb = sa+ma, sb+mb
	}
	r.Pairs = len(diffs)
	if r.Pairs == 0 {
		return r, nil
	}
	r.MeanA, r.MeanB = sa/float64(r.Pairs), sb/float64(r.Pairs)
	var err error
	r.Diff, r.P, r.Exact, err = analysis.SignFlip(diffs, confidence, resamples(len(diffs)), dimSeed(set.Dimensions[d]))
	return r, err
}

// seedMean is the mean score on dimension d of the audits idx (NaN when
// none has one).
func seedMean(set model.JudgedSet, idx []int, d int) float64 {
	s, n := 0.0, 0
	for _, i := range idx {
		if v := set.Audits[i].Scores[d]; !math.IsNaN(v) {
			s += v
			n++
		}
	}
	if n == 0 {
		return math.NaN()
	}
	return s / float64(n)
}

// dimSeed fixes a dimension's drawn sign patterns, so the page gives the
// same numbers every time.
func dimSeed(name string) uint64 {
	h := fnv.New64a()
	h.Write([]byte(name))
	return h.Sum64()
}
