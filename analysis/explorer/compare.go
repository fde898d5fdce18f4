package explorer

import (
	"fmt"
	"math"

	"github.com/auditscope/auditscope/analysis"
)

// PairedAnnotators compares two annotators against the same reference on
// the same comparisons: those where the reference voted for a response
// (the kept comparisons of analysis.Agreement). Three measures, each with
// both annotators' levels (95% intervals) and the paired difference with
// an interval from the same method as its test:
//
//   - agreement rate: the share of kept comparisons where the annotator
//     votes as the reference does (agree ÷ kept). It counts a comparison the
//     annotator did not vote on as not agreeing, so it mixes how often an
//     annotator votes with how often it is right;
//   - accuracy: agree ÷ valid votes, Feedback Forensics' accuracy (the
//     explorer's), here on the kept comparisons where both annotators cast
//     a valid vote (a or b), so the two are paired on one set;
//   - strength: (agree − disagree) ÷ kept, Feedback Forensics' strength.
//
// The rates are compared with the exact McNemar test and Newcombe's paired
// interval (analysis.PairedRateDiff), strength with the
// paired t on the per-comparison scores (+1 agree, −1 disagree, 0 no
// decisive vote).
type PairedAnnotators struct {
	Kept int
	// A and B are each annotator's counts against the reference.
	A, B analysis.Agreement

	AgreementA, AgreementB analysis.Estimate // Wilson intervals
	Agreement              analysis.Estimate
	AgreementP             float64
	// OnlyA and OnlyB are the discordant kept comparisons of agreement:
	// A agrees with the reference and B does not, or the reverse.
	OnlyA, OnlyB int

	// BothValid is the kept comparisons where both cast a valid vote.
	BothValid                    int
	AccuracyA, AccuracyB         analysis.Estimate // Wilson intervals on BothValid
	Accuracy                     analysis.Estimate
	AccuracyP                    float64
	AccuracyOnlyA, AccuracyOnlyB int

	StrengthA, StrengthB analysis.Estimate // t intervals of the mean score
	Strength             analysis.Estimate
	StrengthP            float64
}

// ComparePaired compares annotators a and b against ref (votes aligned by
// comparison). With no kept comparison everything is NaN. It panics when the
// three differ in length.
func ComparePaired(ref, a, b []analysis.Vote) (PairedAnnotators, error) {
	if len(a) != len(ref) || len(b) != len(ref) {
		panic(fmt.Sprintf("explorer: ComparePaired: %d, %d and %d votes", len(ref), len(a), len(b)))
	}
	out := PairedAnnotators{A: analysis.AgreementCodes(ref, a), B: analysis.AgreementCodes(ref, b)}
	out.Kept = out.A.Kept
	nan := analysis.Estimate{Value: nanF(), Lo: nanF(), Hi: nanF()}
	out.AgreementA, out.AgreementB, out.Agreement = nan, nan, nan
	out.AccuracyA, out.AccuracyB, out.Accuracy = nan, nan, nan
	out.StrengthA, out.StrengthB, out.Strength = nan, nan, nan
	out.AgreementP, out.AccuracyP, out.StrengthP = nanF(), nanF(), nanF()
	if out.Kept == 0 {
		return out, nil
	}
	valid := func(v analysis.Vote) bool { return v == analysis.VoteA || v == analysis.VoteB }
	score := func(v, r analysis.Vote) float64 {
		switch {
		case v == r:
			return 1
		case valid(v):
			return -1
		}
		return 0
	}
	var agreeA, agreeB, accA, accB int
	sa := make([]float64, 0, out.Kept)
	sb := make([]float64, 0, out.Kept)
	for i, r := range ref {
		if !valid(r) {
			continue
		}
		ga, gb := a[i] == r, b[i] == r
		if ga {
			agreeA++
		}
		if gb {
			agreeB++
		}
		switch {
		case ga && !gb:
			out.OnlyA++
		case gb && !ga:
			out.OnlyB++
		}
		if valid(a[i]) && valid(b[i]) {
			out.BothValid++
			if ga {
				accA++
			}
			if gb {
				accB++
			}
			switch {
			case ga && !gb:
				out.AccuracyOnlyA++
			case gb && !ga:
				out.AccuracyOnlyB++
			}
		}
		sa, sb = append(sa, score(a[i], r)), append(sb, score(b[i], r))
	}
	out.AgreementA, out.AgreementB = wilson(agreeA, out.Kept), wilson(agreeB, out.Kept)
	var err error
	bothAgree := agreeA - out.OnlyA
	if out.Agreement, out.AgreementP, err = analysis.PairedRateDiff(bothAgree, out.OnlyA, out.OnlyB, out.Kept-bothAgree-out.OnlyA-out.OnlyB, Confidence); err != nil {
		return out, err
	}
	if out.BothValid > 0 {
		out.AccuracyA, out.AccuracyB = wilson(accA, out.BothValid), wilson(accB, out.BothValid)
		bothRight := accA - out.AccuracyOnlyA
		neither := out.BothValid - bothRight - out.AccuracyOnlyA - out.AccuracyOnlyB
		if out.Accuracy, out.AccuracyP, err = analysis.PairedRateDiff(bothRight, out.AccuracyOnlyA, out.AccuracyOnlyB, neither, Confidence); err != nil {
			return out, err
		}
	}
	if out.StrengthA, err = analysis.MeanCI(sa, Confidence); err != nil {
		return out, err
	}
	if out.StrengthB, err = analysis.MeanCI(sb, Confidence); err != nil {
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
