package explorer

import (
	"math"

	"github.com/auditscope/auditscope/analysis"
)

// Overview is the overall statistics of the comparisons whose reference
// vote is text_a or text_b, as Feedback Forensics computes them.
type Overview struct {
	Pairs int // comparisons kept
	// PropA is the share preferring text_a; AvgLenA and AvgLenB the mean
	// lengths of the two responses, AvgLenPreferred and AvgLenRejected of
	// the preferred and the rejected one; PropLonger the share preferring
	// the longer response. NaN when no comparison is kept.
	PropA, AvgLenA, AvgLenB, AvgLenPreferred, AvgLenRejected, PropLonger float64
	// A and Longer count the comparisons behind PropA and PropLonger.
	A, Longer int
}

// Intervals are the Wilson intervals at the given confidence of PropA and
// PropLonger, over the comparisons kept (the unit the votes were cast on);
// NaN bounds when none is kept.
func (o Overview) Intervals(confidence float64) (a, longer analysis.Estimate) {
	a, _ = analysis.Wilson(float64(o.A), o.Pairs, confidence)
	longer, _ = analysis.Wilson(float64(o.Longer), o.Pairs, confidence)
	return a, longer
}

// LengthOverview computes the overall statistics of the reference votes
// ref over comparisons with response lengths lenA and lenB. The longer
// response is text_a when len_a > len_b and text_b otherwise, so equal
// lengths count as text_b (as Feedback Forensics does).
func LengthOverview(ref []analysis.Vote, lenA, lenB []int32) Overview {
	var o Overview
	var nA, longer int
	var sumA, sumB, sumPref, sumRej float64
	for i, r := range ref {
		if r != analysis.VoteA && r != analysis.VoteB {
			continue
		}
		o.Pairs++
		la, lb := float64(lenA[i]), float64(lenB[i])
		sumA += la
		sumB += lb
		longerVote := analysis.VoteB
		if la > lb {
			longerVote = analysis.VoteA
		}
		if r == longerVote {
			longer++
		}
		if r == analysis.VoteA {
			nA++
			sumPref += la
			sumRej += lb
		} else {
			sumPref += lb
			sumRej += la
		}
	}
	if o.Pairs == 0 {
		nan := math.NaN()
		o.PropA, o.AvgLenA, o.AvgLenB, o.AvgLenPreferred, o.AvgLenRejected, o.PropLonger = nan, nan, nan, nan, nan, nan
		return o
	}
	n := float64(o.Pairs)
	o.PropA = float64(nA) / n
	o.AvgLenA, o.AvgLenB = sumA/n, sumB/n
	o.AvgLenPreferred, o.AvgLenRejected = sumPref/n, sumRej/n
	o.PropLonger = float64(longer) / n
	o.A, o.Longer = nA, longer
	return o
}

// LengthBias is the preferred and rejected lengths of the comparisons the
// reference votes text_a or text_b on, in comparison order.
type LengthBias struct {
	Preferred, Rejected []float64
	// Longer counts the pairs whose preferred response is strictly longer,
	// Equal those whose two responses are as long (unlike PropLonger, which
	// counts a tie in length as text_b being longer).
	Longer, Equal int
}

// LengthBiasOf collects the preferred and rejected lengths of ref's
// decisive votes.
func LengthBiasOf(ref []analysis.Vote, lenA, lenB []int32) LengthBias {
	var b LengthBias
	for i, v := range ref {
		var pref, rej int32
		switch v {
		case analysis.VoteA:
			pref, rej = lenA[i], lenB[i]
		case analysis.VoteB:
			pref, rej = lenB[i], lenA[i]
		default:
			continue
		}
		b.Preferred = append(b.Preferred, float64(pref))
		b.Rejected = append(b.Rejected, float64(rej))
		switch {
		case pref > rej:
			b.Longer++
		case pref == rej:
			b.Equal++
		}
	}
	return b
}
