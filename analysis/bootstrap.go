package analysis

import (
	"errors"
	"fmt"
	"math"
	"math/bits"
	"math/rand/v2"
	"runtime"
	"slices"
	"sync"
)

// PCG stream constants, one per resampling procedure, so that the same seed
// gives unrelated random streams in different procedures.
const (
	streamBootstrap  = 0x626f6f7473747261 // "bootstra"
	streamStrength   = 0x737472656e677468 // "strength"
	streamDimensions = 0x64696d656e73696f // "dimensio"
)

// newRand returns a PCG generator for the seed and stream.
func newRand(seed, stream uint64) *rand.Rand {
	return rand.New(rand.NewPCG(seed, stream))
}

// Bootstrap returns stat on the original rows with a percentile bootstrap
// interval. Rows are numbered 0..n-1; stat receives the row indices of one
// sample (the identity for the original data, n indices drawn uniformly
// with replacement for a resample) and returns the statistic on those rows.
// Because the caller's stat reads every column of a row through the same
// index, the bootstrap is paired: all variables of a row move together.
//
// The interval is [q(alpha/2), q(1 - alpha/2)] of the resampled statistics,
// with q the linearly interpolated sample quantile (numpy's default,
// Hyndman–Fan type 7). Resamples whose statistic is NaN (for example a
// ratio that is 0/0 on that resample) are skipped; Lo and Hi are NaN when
// every resample is NaN. Value is NaN exactly when stat is NaN on the
// original rows.
//
// The same seed gives the same result. stat must not keep or modify idx,
// whose storage is reused between calls.
//
// Errors: n <= 0, a nil stat, resamples < 1, or a confidence outside (0, 1).
func Bootstrap(n int, stat func(idx []int) float64, resamples int, confidence float64, seed uint64) (Estimate, error) {
	if err := checkBootstrapArgs("Bootstrap", resamples, confidence); err != nil {
		return nanEstimate(), err
	}
	if n <= 0 {
		return nanEstimate(), fmt.Errorf("analysis: Bootstrap: n must be positive, got %d", n)
	}
	if stat == nil {
		return nanEstimate(), errors.New("analysis: Bootstrap: nil statistic")
	}
	idx := make([]int, n)
	for i := range idx {
		idx[i] = i
	}
	est := Estimate{Value: stat(idx)}
	rng := newRand(seed, streamBootstrap)
	vals := make([]float64, 0, resamples)
	for r := 0; r < resamples; r++ {
		for i := range idx {
			idx[i] = rng.IntN(n)
		}
		if v := stat(idx); !math.IsNaN(v) {
			vals = append(vals, v)
		}
	}
	est.Lo, est.Hi = percentileInterval(vals, confidence)
	return est, nil
}

// checkBootstrapArgs validates the arguments shared by the bootstraps.
func checkBootstrapArgs(fn string, resamples int, confidence float64) error {
	if resamples < 1 {
		return fmt.Errorf("analysis: %s: resamples must be at least 1, got %d", fn, resamples)
	}
	return checkConfidence(fn, confidence)
}

// percentileInterval sorts vals in place and returns its alpha/2 and
// 1 - alpha/2 quantiles (type 7); NaN, NaN for no values.
func percentileInterval(vals []float64, confidence float64) (lo, hi float64) {
	if len(vals) == 0 {
		return math.NaN(), math.NaN()
	}
	slices.Sort(vals)
	alpha := 1 - confidence
	return quantile7(vals, alpha/2), quantile7(vals, 1-alpha/2)
}

// quantile7 returns the q-quantile of sorted data by linear interpolation
// between order statistics at position h = (n-1)·q (Hyndman–Fan type 7,
// numpy.quantile's default).
func quantile7(sorted []float64, q float64) float64 {
	h := float64(len(sorted)-1) * q
	lo := int(math.Floor(h))
	if lo >= len(sorted)-1 {
		return sorted[len(sorted)-1]
	}
	frac := h - float64(lo)
	if frac == 0 {
		return sorted[lo]
	}
	return sorted[lo] + frac*(sorted[lo+1]-sorted[lo])
}

// StrengthBootstrap returns, for every annotator in anns, the agreement
// strength against ref (see Agreement) with a paired percentile bootstrap
// interval. Only kept comparisons (ref is text_a or text_b) are resampled,
// and every resample uses the same drawn comparisons for all annotators, so
// differences between annotators are compared on equal footing. Value is
// AgreementCodes(ref, anns[a]).Strength; the interval is as in Bootstrap.
//
// Each resample draws the multiplicity of every kept comparison (kept
// uniform draws with replacement) and sums, per annotator, the
// multiplicities of agreeing and of disagreeing comparisons. The
// multiplicities are held as bit planes over the comparisons, so a resample
// costs kept draws plus about 8·kept/64·len(anns) popcounts and allocates
// nothing. Resamples run in parallel on up to GOMAXPROCS goroutines; the
// same seed gives the same result whatever the number of goroutines.
//
// With no kept comparison every estimate is NaN (nil error). Errors:
// resamples < 1 or a confidence outside (0, 1). It panics when an
// annotator's votes differ in length from ref.
func StrengthBootstrap(ref []Vote, anns [][]Vote, resamples int, confidence float64, seed uint64) ([]Estimate, error) {
	if err := checkBootstrapArgs("StrengthBootstrap", resamples, confidence); err != nil {
		return nil, err
	}
	for a, ann := range anns {
		if len(ann) != len(ref) {
			panic(fmt.Sprintf("analysis: StrengthBootstrap: annotator %d has %d votes, ref has %d", a, len(ann), len(ref)))
		}
	}
	nAnn := len(anns)
	est := make([]Estimate, nAnn)
	var kept []int
	for i, r := range ref {
		if r.decisive() {
			kept = append(kept, i)
		}
	}
	m := len(kept)
	if nAnn == 0 {
		return est, nil
	}
	if m == 0 {
		for a := range est {
			est[a] = nanEstimate()
		}
		return est, nil
	}
	words := (m + 63) / 64
	// masks[(2a)·words:] marks the kept comparisons where annotator a
	// agrees with ref, masks[(2a+1)·words:] where it disagrees.
	masks := make([]uint64, 2*nAnn*words)
	for a, ann := range anns {
		agree := masks[2*a*words : (2*a+1)*words]
		disagree := masks[(2*a+1)*words : (2*a+2)*words]
		for k, i := range kept {
			switch v := ann[i]; {
			case v == ref[i]:
				agree[k>>6] |= 1 << (k & 63)
			case v.decisive():
				disagree[k>>6] |= 1 << (k & 63)
			}
		}
		est[a].Value = AgreementCodes(ref, ann).Strength
	}

	vals := make([]float64, nAnn*resamples) // vals[a·resamples + r]
	// Resamples are spread over the available cores. Each resample seeds
	// its own generator from (seed, r), so the result does not depend on
	// the number of workers.
	workers := min(runtime.GOMAXPROCS(0), resamples)
	var wg sync.WaitGroup
	for wk := 0; wk < workers; wk++ {
		wg.Go(func() {
			// planes[b·words:] holds bit b of every comparison's
			// multiplicity; a multiplicity is at most m, so bits.Len(m)
			// planes suffice.
			planes := make([]uint64, bits.Len(uint(m))*words)
			src := rand.NewPCG(0, 0)
			rng := rand.New(src)
			for r := wk; r < resamples; r += workers {
				src.Seed(resampleSeed(seed, streamStrength, r))
				used := drawPlanes(rng, m, words, planes)
				for a := 0; a < nAnn; a++ {
					agree := masks[2*a*words : (2*a+1)*words]
					disagree := masks[(2*a+1)*words : (2*a+2)*words]
					ag, dg := countPlanes(planes[:used*words], words, agree, disagree)
					vals[a*resamples+r] = AgreementFromCounts(m, ag, dg).Strength
				}
				clear(planes[:used*words])
			}
		})
	}
	wg.Wait()
	for a := range est {
		est[a].Lo, est[a].Hi = percentileInterval(vals[a*resamples:(a+1)*resamples], confidence)
	}
	return est, nil
}

// drawPlanes draws m comparisons uniformly with replacement and adds each to
// the multiplicity counters held as bit planes of words words each. It
// returns the number of planes in use.
func drawPlanes(rng *rand.Rand, m, words int, planes []uint64) (used int) {
	used = 1
	for range m {
		k := rng.IntN(m)
		w, bit := k>>6, uint64(1)<<(k&63)
		// A binary counter spread over the planes: flip bit b and carry
		// into plane b+1 while the bit was already set.
		for b := 0; ; b++ {
			x := planes[b*words+w]
			planes[b*words+w] = x ^ bit
			if x&bit == 0 {
				used = max(used, b+1)
				break
			}
		}
	}
	return used
}

// countPlanes returns Σ_k mult(k)·[k in agree] and the same for disagree,
// where mult(k) is the multiplicity held in the bit planes.
func countPlanes(planes []uint64, words int, agree, disagree []uint64) (ag, dg int) {
	for b := 0; b*words < len(planes); b++ {
		plane := planes[b*words : (b+1)*words]
		agree, disagree := agree[:len(plane)], disagree[:len(plane)]
		var ca, cd int
		for w, p := range plane {
			ca += bits.OnesCount64(p & agree[w])
			cd += bits.OnesCount64(p & disagree[w])
		}
		ag += ca << b
		dg += cd << b
	}
	return ag, dg
}

// resampleSeed derives the PCG seed of resample r from the caller's seed
// and a stream constant with SplitMix64, so that resamples can be drawn in
// any order, on any number of workers, with the same result.
func resampleSeed(seed, stream uint64, r int) (uint64, uint64) {
	return splitMix64(seed + uint64(r)*0x9e3779b97f4a7c15), splitMix64(stream ^ uint64(r))
}

// splitMix64 is the SplitMix64 output function (Steele, Lea and Flood).
func splitMix64(x uint64) uint64 {
	x += 0x9e3779b97f4a7c15
	x = (x ^ (x >> 30)) * 0xbf58476d1ce4e5b9
	x = (x ^ (x >> 27)) * 0x94d049bb133111eb
	return x ^ (x >> 31)
}
