package explorer

import (
	"fmt"
	"math"

	"github.com/auditscope/auditscope/analysis"
)

// PairedAnnotators compares two annotators against the same reference on
// the same comparisons: those where the reference voted for a response
// (the kept comparisons of analysis.Agreement).
type PairedAnnotators struct {
	Kept int
	// A and B are each annotator's agreement and strength against the
	// reference.
	A, B analysis.Agreement
	// Agreement is A's agreement minus B's, with Newcombe's interval for
	// paired proportions; its p-value is McNemar's test on the discordant
	// comparisons: OnlyA where A agrees with the reference and B does not,
	// OnlyB the reverse (exact binomial below analysis.McNemarExactBelow).
	Agreement    analysis.Estimate
	OnlyA, OnlyB int
	AgreementP   float64
	McNemarExact bool
	// Strength is A's strength minus B's: the mean over kept comparisons of
	// the difference of their per-comparison scores (+1 agree, −1 disagree,
	// 0 no decisive vote), with the paired t interval and p-value.
	Strength  analysis.Estimate
	StrengthP float64
}

// ComparePaired compares annotators a and b against ref (votes aligned by
// comparison). With no kept comparison everything is NaN.
func ComparePaired(ref, a, b []analysis.Vote) (PairedAnnotators, error) {
	if len(a) != len(ref) || len(b) != len(ref) {
		return PairedAnnotators{}, fmt.Errorf("explorer: ComparePaired: %d, %d and %d votes", len(ref), len(a), len(b))
	}
	out := PairedAnnotators{A: analysis.AgreementCodes(ref, a), B: analysis.AgreementCodes(ref, b)}
	out.Kept = out.A.Kept
	nan := analysis.Estimate{Value: nanF(), Lo: nanF(), Hi: nanF()}
	out.Agreement, out.Strength, out.AgreementP, out.StrengthP = nan, nan, nanF(), nanF()
	if out.Kept == 0 {
		return out, nil
	}
	score := func(v, r analysis.Vote) float64 {
		switch {
		case v == r:
			return 1
		case v == analysis.VoteA || v == analysis.VoteB:
			return -1
		}
		return 0
	}
	var both, neither int
	sa := make([]float64, 0, out.Kept)
	sb := make([]float64, 0, out.Kept)
	for i, r := range ref {
		if r != analysis.VoteA && r != analysis.VoteB {
			continue
		}
		ga, gb := a[i] == r, b[i] == r
		switch {
		case ga && gb:
			both++
		case ga:
			out.OnlyA++
		case gb:
			out.OnlyB++
		default:
			neither++
		}
		sa, sb = append(sa, score(a[i], r)), append(sb, score(b[i], r))
	}
	var err error
	if out.Agreement, err = analysis.NewcombePaired(both, out.OnlyA, out.OnlyB, neither, Confidence); err != nil {
		return out, err
	}
	if out.AgreementP, out.McNemarExact, err = analysis.McNemar(out.OnlyA, out.OnlyB); err != nil {
		return out, err
	}
	if len(sa) >= 2 {
		if out.Strength, out.StrengthP, err = analysis.PairedT(sa, sb, Confidence); err != nil {
			return out, err
		}
	} else {
		out.Strength = analysis.Estimate{Value: sa[0] - sb[0], Lo: nanF(), Hi: nanF()}
	}
	return out, nil
}

func nanF() float64 { return math.NaN() }
