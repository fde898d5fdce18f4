package explorer

import (
	"math"

	"github.com/auditscope/auditscope/analysis"
)

// Stats is one annotator's agreement with a reference.
type Stats struct {
	Agreement analysis.Agreement
	// KappaUnadjusted is Cohen's kappa (scikit-learn), NaN unless asked
	// for.
	KappaUnadjusted float64
	// Intervals at Confidence, NaN unless asked for. Strength is the paired
	// bootstrap of strength; Relevance and Accuracy are Wilson intervals
	// (their Value is the proportion).
	Strength, Relevance, Accuracy analysis.Estimate
}

// Needs says which of the costlier numbers Compare computes.
type Needs struct {
	KappaUnadjusted bool // Cohen's kappa
	StrengthCI      bool // paired bootstrap of strength
	Wilson          bool // Wilson intervals of relevance and accuracy
}

// Memo returns the strength bootstrap that compute computes, from a cache
// when it holds it. A nil Memo calls compute.
type Memo func(compute func() ([]analysis.Estimate, error)) ([]analysis.Estimate, error)

// Compare compares every row's votes with the reference's on the
// comparisons in keep, which must be the positions where ref is text_a or
// text_b (Decisive; the others are dropped by every metric anyway). The
// strength bootstrap, the costly part, goes through memo; memo must key it
// by everything that determines ref, keep and rows.
func Compare(ref []analysis.Vote, keep []int32, rows [][]analysis.Vote, need Needs, memo Memo) ([]Stats, error) {
	refK := Gather(ref, keep)
	rowsK := make([][]analysis.Vote, len(rows))
	out := make([]Stats, len(rows))
	nan := analysis.Estimate{Value: math.NaN(), Lo: math.NaN(), Hi: math.NaN()}
	for i, row := range rows {
		rowsK[i] = Gather(row, keep)
		st := Stats{Agreement: analysis.AgreementCodes(refK, rowsK[i]), KappaUnadjusted: math.NaN(), Strength: nan, Relevance: nan, Accuracy: nan}
		if need.KappaUnadjusted {
			st.KappaUnadjusted = KappaUnadjusted(refK, rowsK[i])
		}
		if need.Wilson {
			st.Relevance, st.Accuracy = RelevanceInterval(st.Agreement), AccuracyInterval(st.Agreement)
		}
		out[i] = st
	}
	if need.StrengthCI && len(rows) > 0 {
		compute := func() ([]analysis.Estimate, error) { return StrengthIntervals(refK, rowsK) }
		var est []analysis.Estimate
		var err error
		if memo == nil {
			est, err = compute()
		} else {
			est, err = memo(compute)
		}
		if err != nil {
			return nil, err
		}
		for i := range out {
			out[i].Strength = est[i]
		}
	}
	return out, nil
}

// StrengthIntervals is the paired bootstrap of every annotator's strength
// against ref (analysis.StrengthBootstrap) with the explorer's resamples,
// confidence and seed.
func StrengthIntervals(ref []analysis.Vote, anns [][]analysis.Vote) ([]analysis.Estimate, error) {
	return analysis.StrengthBootstrap(ref, anns, Resamples, Confidence, Seed)
}

// RelevanceInterval is the Wilson interval of relevance: the valid votes
// (agree + disagree) out of the kept comparisons. NaN when none is kept.
func RelevanceInterval(g analysis.Agreement) analysis.Estimate {
	return wilson(g.Agree+g.Disagree, g.Kept)
}

// AccuracyInterval is the Wilson interval of accuracy: the agreeing votes
// out of the valid ones. NaN when no vote is valid (accuracy is then 0.5 by
// definition, a convention with no sampling error to speak of).
func AccuracyInterval(g analysis.Agreement) analysis.Estimate {
	return wilson(g.Agree, g.Agree+g.Disagree)
}

// wilson is analysis.Wilson at Confidence, NaN when n is 0.
func wilson(successes, n int) analysis.Estimate {
	if n > 0 {
		if e, err := analysis.Wilson(float64(successes), n, Confidence); err == nil {
			return e
		}
	}
	return analysis.Estimate{Value: math.NaN(), Lo: math.NaN(), Hi: math.NaN()}
}

// KappaUnadjusted is scikit-learn's cohen_kappa_score(ann, ref,
// labels=[text_a, text_b]), the same number as analysis.CohenKappa(ann,
// ref, {text_a, text_b}): pairs in which either vote is not text_a or
// text_b are dropped, and on the rest kappa = 1 - observed/expected
// disagreement; NaN when no pair is left or chance disagreement is 0.
//
// It is kept beside analysis.CohenKappa on purpose: CohenKappa takes
// strings, so calling it would turn every vote of every row (50,000 × 52 on
// a large dataset) into a string on each request. This repeats its
// arithmetic, in the same order, on the 2×2 confusion counts of the coded
// votes, so the two agree exactly (the tests check it).
func KappaUnadjusted(ref, ann []analysis.Vote) float64 {
	var conf [2][2]float64 // [ann's label][ref's label], text_a = 0
	used := 0
	for i, r := range ref {
		x := ann[i]
		if (r != analysis.VoteA && r != analysis.VoteB) || (x != analysis.VoteA && x != analysis.VoteB) {
			continue
		}
		conf[x-analysis.VoteA][r-analysis.VoteA]++
		used++
	}
	if used == 0 {
		return math.NaN()
	}
	n := float64(used)
	annSum := [2]float64{conf[0][0] + conf[0][1], conf[1][0] + conf[1][1]}
	refSum := [2]float64{conf[0][0] + conf[1][0], conf[0][1] + conf[1][1]}
	// CohenKappa's loop over the off-diagonal cells, row-major: (0,1), (1,0).
	var observed, expected float64
	observed += conf[0][1]
	expected += refSum[0] * annSum[1] / n
	observed += conf[1][0]
	expected += refSum[1] * annSum[0] / n
	if expected == 0 {
		return math.NaN()
	}
	return 1 - observed/expected
}

// Spread is the range (largest minus smallest) of the defined values, NaN
// when none is defined: how much a row's metric varies across the columns.
func Spread(values []float64) float64 {
	lo, hi := math.Inf(1), math.Inf(-1)
	for _, v := range values {
		if !math.IsNaN(v) {
			lo, hi = min(lo, v), max(hi, v)
		}
	}
	if lo <= hi {
		return hi - lo
	}
	return math.NaN()
}
