package analysis

import (
	"fmt"
	"math"
)

// NewcombePaired is the interval for the difference of two paired
// proportions, A's rate minus B's, from Newcombe's hybrid score method (his
// method 10, Statistics in Medicine 17:2635, 1998): each side's Wilson
// interval, combined with the correlation of the pairs. Of n pairs, both
// have the outcome in both, onlyA and onlyB in one side alone, neither in
// none. Unlike the Clopper–Pearson interval of the discordant split mapped
// to a difference, it is not conditional on the discordant count, so it is
// not capped at ±(onlyA + onlyB)/n, and it covers near its nominal level
// (TestNewcombePairedCovers). It is an interval only: the test that goes
// with it on a page is the exact McNemar test, a different method, and the
// two can disagree near the line.
func NewcombePaired(both, onlyA, onlyB, neither int, confidence float64) (Estimate, error) {
	if err := checkConfidence("NewcombePaired", confidence); err != nil {
		return nanEstimate(), err
	}
	if both < 0 || onlyA < 0 || onlyB < 0 || neither < 0 || both+onlyA+onlyB+neither == 0 {
		return nanEstimate(), fmt.Errorf("analysis: NewcombePaired: counts %d, %d, %d, %d", both, onlyA, onlyB, neither)
	}
	a, b, c, d := float64(both), float64(onlyA), float64(onlyB), float64(neither)
	n := a + b + c + d
	w1, err := Wilson(a+b, int(n), confidence)
	if err != nil {
		return nanEstimate(), err
	}
	w2, err := Wilson(a+c, int(n), confidence)
	if err != nil {
		return nanEstimate(), err
	}
	p1, p2 := w1.Value, w2.Value
	// The correlation of the pairs, with Newcombe's adjustment of a
	// positive one by half a pair in n (his φ*), which keeps the interval
	// from running narrow when the sides agree often.
	phi := 0.0
	if den := (a + b) * (c + d) * (a + c) * (b + d); den > 0 {
		num := a*d - b*c
		if num > 0 {
			num = math.Max(num-n/2, 0)
		}
		phi = num / math.Sqrt(den)
	}
	theta := p1 - p2
	dl := math.Sqrt(sq(p1-w1.Lo) - 2*phi*(p1-w1.Lo)*(w2.Hi-p2) + sq(w2.Hi-p2))
	du := math.Sqrt(sq(w1.Hi-p1) - 2*phi*(w1.Hi-p1)*(p2-w2.Lo) + sq(p2-w2.Lo))
	return Estimate{Value: theta, Lo: theta - dl, Hi: theta + du}, nil
}

// NewcombeIndependent is the interval for the difference of two
// independent proportions, x1 of n1 minus x2 of n2, from Newcombe's hybrid
// score method (method 10 of Statistics in Medicine 17:873, 1998): the two
// Wilson intervals combined. Either n 0 is NaN.
func NewcombeIndependent(x1 float64, n1 int, x2 float64, n2 int, confidence float64) (Estimate, error) {
	if n1 <= 0 || n2 <= 0 {
		if err := checkConfidence("NewcombeIndependent", confidence); err != nil {
			return nanEstimate(), err
		}
		return nanEstimate(), nil
	}
	w1, err := Wilson(x1, n1, confidence)
	if err != nil {
		return nanEstimate(), err
	}
	w2, err := Wilson(x2, n2, confidence)
	if err != nil {
		return nanEstimate(), err
	}
	theta := w1.Value - w2.Value
	return Estimate{
		Value: theta,
		Lo:    theta - math.Sqrt(sq(w1.Value-w1.Lo)+sq(w2.Hi-w2.Value)),
		Hi:    theta + math.Sqrt(sq(w1.Hi-w1.Value)+sq(w2.Value-w2.Lo)),
	}, nil
}

func sq(x float64) float64 { return x * x }

// PairedRateDiff compares two paired proportions, A's rate minus B's: the
// exact McNemar test's p-value (exact where counts are small) and
// Newcombe's paired interval (which covers; McNemarExact's conditional
// interval did not). The two are different methods and can disagree near
// the line: a page that shows both says so, and calls nothing a
// difference that its interval does not exclude 0 for.
func PairedRateDiff(both, onlyA, onlyB, neither int, confidence float64) (Estimate, float64, error) {
	n := both + onlyA + onlyB + neither
	_, p, err := McNemarExact(onlyA, onlyB, n, confidence)
	if err != nil {
		return nanEstimate(), math.NaN(), err
	}
	e, err := NewcombePaired(both, onlyA, onlyB, neither, confidence)
	return e, p, err
}

// PairedRateMethod names PairedRateDiff for a page's method column.
const PairedRateMethod = "exact McNemar test (p) with Newcombe's paired score interval (method 10); two methods, which can disagree near p = 0.05"
