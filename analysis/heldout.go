package analysis

import (
	"errors"
	"fmt"
	"math"
	"math/rand/v2"
	"slices"

	"gonum.org/v1/gonum/mat"
	"gonum.org/v1/gonum/stat/distuv"
)

// HeldOutR2 is a regression judged on data it was not fitted to, groups at
// a time (a training run's checkpoints together: its epochs share the run's
// features and targets, so leaving one epoch out leaks the others into the
// fit), with how often unrelated targets do as well.
type HeldOutR2 struct {
	// R2 is 1 − PRESS/TSS, each row predicted by the fit on every group but
	// its own (TSS about the mean of all rows). NaN when y is constant, or
	// when leaving a group out leaves no more rows than the design's rank.
	R2 float64
	// P is the permutation p-value of R2: the share of permutations of the
	// targets whose held-out R² is at least as large, (1 + k)/(B + 1).
	// Whole groups' targets are permuted among groups when the groups are
	// the same size (Blocks), rows otherwise.
	P            float64
	Permutations int
	Blocks       bool
	Groups       int
	// Chance is the in-sample R² that k features unrelated to the target
	// give on average, k/(n − 1): an in-sample R² near it is no finding.
	Chance float64
}

// LeaveGroupOutR2 fits y on x by least squares (with intercept, as OLS)
// once per group, leaving that group out and predicting it (sklearn's
// cross_val_predict with LeaveOneGroupOut), and tests the held-out R²
// against permutations of y (seed fixes them). Each fold's prediction is a
// fixed linear map of the other rows' targets, computed once, so a
// permutation costs n² multiplications, not a refit.
func LeaveGroupOutR2(x [][]float64, y []float64, groups []string, permutations int, seed uint64) (HeldOutR2, error) {
	out := HeldOutR2{R2: math.NaN(), P: math.NaN(), Chance: math.NaN()}
	if len(groups) != len(y) {
		return out, fmt.Errorf("analysis: LeaveGroupOutR2: %d groups for %d rows", len(groups), len(y))
	}
	a, err := designMatrix("LeaveGroupOutR2", x, y)
	if err != nil {
		return out, err
	}
	n, p := a.Dims()
	if n > 1 {
		out.Chance = float64(p-1) / float64(n-1)
	}
	var order []string
	members := map[string][]int{}
	for i, g := range groups {
		if _, ok := members[g]; !ok {
			order = append(order, g)
		}
		members[g] = append(members[g], i)
	}
	out.Groups = len(order)
	tss := totalSS(y)
	if tss == 0 || len(order) < 2 {
		return out, nil
	}
	folds, ok, err := heldOutFolds(a, order, members)
	if err != nil || !ok {
		return out, err
	}
	r2 := func(yy []float64) float64 {
		var press float64
		for _, f := range folds {
			for r, i := range f.in {
				var yh float64
				row := f.pred.RawRowView(r)
				for c, j := range f.rest {
					yh += row[c] * yy[j]
				}
				press += (yy[i] - yh) * (yy[i] - yh)
			}
		}
		return 1 - press/tss
	}
	out.R2 = r2(y)
	if permutations < 1 {
		return out, nil
	}
	out.Permutations = permutations
	out.Blocks = true
	for _, g := range order {
		out.Blocks = out.Blocks && len(members[g]) == len(members[order[0]])
	}
	rng := rand.New(rand.NewPCG(seed, 0x6865_6c64_6f75_74)) // "heldout"
	yy := make([]float64, n)
	idx := make([]int, len(order))
	for i := range idx {
		idx[i] = i
	}
	rows := make([]int, n)
	for i := range rows {
		rows[i] = i
	}
	k := 0
	tol := 1e-12 * math.Max(1, math.Abs(out.R2))
	for range permutations {
		if out.Blocks {
			rng.Shuffle(len(idx), func(i, j int) { idx[i], idx[j] = idx[j], idx[i] })
			for g, name := range order {
				for r, i := range members[name] {
					yy[i] = y[members[order[idx[g]]][r]]
				}
			}
		} else {
			rng.Shuffle(n, func(i, j int) { rows[i], rows[j] = rows[j], rows[i] })
			for i, j := range rows {
				yy[i] = y[j]
			}
		}
		if r2(yy) >= out.R2-tol {
			k++
		}
	}
	out.P = float64(1+k) / float64(permutations+1)
	return out, nil
}

// heldOutFold is one group held out: its rows, the others', and the
// predictions of its targets from the others' (|in| × |rest|).
type heldOutFold struct {
	in, rest []int
	pred     *mat.Dense
}

// heldOutFolds fits the design a without each group in turn; ok is false
// when a fit without some group is not determined.
func heldOutFolds(a *mat.Dense, order []string, members map[string][]int) ([]heldOutFold, bool, error) {
	n, p := a.Dims()
	folds := make([]heldOutFold, len(order))
	for f, g := range order {
		in := members[g]
		var rest []int
		for i := range n {
			if !slices.Contains(in, i) {
				rest = append(rest, i)
			}
		}
		ar := mat.NewDense(len(rest), p, nil)
		for r, i := range rest {
			ar.SetRow(r, a.RawRowView(i))
		}
		pinv, rank, err := pseudoInverse(ar)
		if err != nil {
			return nil, false, fmt.Errorf("analysis: LeaveGroupOutR2: %w", err)
		}
		if len(rest) <= rank {
			return nil, false, nil // the fit without this group is not determined
		}
		ai := mat.NewDense(len(in), p, nil)
		for r, i := range in {
			ai.SetRow(r, a.RawRowView(i))
		}
		var pred mat.Dense
		pred.Mul(ai, pinv)
		folds[f] = heldOutFold{in: in, rest: rest, pred: &pred}
	}
	return folds, true, nil
}

// pseudoInverse is the Moore–Penrose pseudo-inverse of a by a thin SVD
// (singular values ≤ rankTol·σmax count as zero, as OLS), with the rank.
func pseudoInverse(a *mat.Dense) (*mat.Dense, int, error) {
	var svd mat.SVD
	if !svd.Factorize(a, mat.SVDThin) {
		return nil, 0, errors.New("SVD did not converge")
	}
	s := svd.Values(nil)
	var u, v mat.Dense
	svd.UTo(&u)
	svd.VTo(&v)
	rank := 0
	for _, sv := range s {
		if sv > rankTol*s[0] {
			rank++
		}
	}
	n, p := a.Dims()
	pinv := mat.NewDense(p, n, nil)
	for k := range rank {
		for j := range p {
			vj := v.At(j, k) / s[k]
			for i := range n {
				pinv.Set(j, i, pinv.At(j, i)+vj*u.At(i, k))
			}
		}
	}
	return pinv, rank, nil
}

// R2GroupBCa is the in-sample R² of the least-squares fit of y on x (with
// intercept) and its BCa bootstrap interval over groups: each resample
// draws as many groups as there are, with replacement, and refits on their
// rows; the bias correction is the share of resamples below the estimate,
// the acceleration the skew of the leave-one-group-out jackknife (Efron;
// scipy's bootstrap(method="BCa") with the groups as the data). The
// percentile interval of the in-sample R² sat almost wholly above the
// estimate (its bias upward); BCa moves it down. Resamples the fit cannot
// make (a constant y) are left out.
func R2GroupBCa(x [][]float64, y []float64, groups []string, resamples int, confidence float64, seed uint64) (Estimate, error) {
	if err := checkBootstrapArgs("R2GroupBCa", resamples, confidence); err != nil {
		return nanEstimate(), err
	}
	if len(groups) != len(y) || len(x) != len(y) || len(y) == 0 {
		return nanEstimate(), fmt.Errorf("analysis: R2GroupBCa: %d rows, %d values, %d groups", len(x), len(y), len(groups))
	}
	var order []string
	members := map[string][]int{}
	for i, g := range groups {
		if _, ok := members[g]; !ok {
			order = append(order, g)
		}
		members[g] = append(members[g], i)
	}
	fitOf := func(picked []int) float64 { // groups by index into order
		var bx [][]float64
		var by []float64
		for _, g := range picked {
			for _, i := range members[order[g]] {
				bx, by = append(bx, x[i]), append(by, y[i])
			}
		}
		f, err := OLS(bx, by)
		if err != nil {
			return math.NaN()
		}
		return f.R2
	}
	all := make([]int, len(order))
	for i := range all {
		all[i] = i
	}
	est := Estimate{Value: fitOf(all), Lo: math.NaN(), Hi: math.NaN()}
	if math.IsNaN(est.Value) || len(order) < 3 {
		return est, nil
	}
	rng := newRand(seed, streamBootstrap)
	vals := make([]float64, 0, resamples)
	picked := make([]int, len(order))
	below := 0
	for range resamples {
		for i := range picked {
			picked[i] = rng.IntN(len(order))
		}
		if v := fitOf(picked); !math.IsNaN(v) {
			vals = append(vals, v)
			if v < est.Value {
				below++
			}
		}
	}
	if len(vals) == 0 {
		return est, nil
	}
	jack := make([]float64, len(order))
	var mean float64
	for g := range order {
		jack[g] = fitOf(slices.Delete(slices.Clone(all), g, g+1))
		mean += jack[g]
	}
	mean /= float64(len(jack))
	var num, den float64
	for _, j := range jack {
		d := mean - j
		num += d * d * d
		den += d * d
	}
	accel := 0.0
	if den > 0 {
		accel = num / (6 * math.Pow(den, 1.5))
	}
	z0 := distuv.UnitNormal.Quantile(float64(below) / float64(len(vals)))
	alpha := (1 - confidence) / 2
	level := func(q float64) float64 {
		z := distuv.UnitNormal.Quantile(q)
		return distuv.UnitNormal.CDF(z0 + (z0+z)/(1-accel*(z0+z)))
	}
	slices.Sort(vals)
	lo, hi := level(alpha), level(1-alpha)
	if math.IsNaN(lo) || math.IsNaN(hi) {
		return est, nil // every resample on one side: no interval
	}
	est.Lo, est.Hi = quantile7(vals, lo), quantile7(vals, hi)
	return est, nil
}
