package experiment

import (
	"fmt"
	"math"

	"github.com/auditscope/auditscope/analysis"
)

// meanDiff compares the means of 0–100 unit values: paired t on the units
// both sides have when two or more do, else Welch's t on every unit.
func meanDiff(dim string, m matched, unit string) (Diff, error) {
	d := nanDiff(dim, m)
	d.Unit = unit
	switch {
	case len(m.a) >= 2 && differing(m) <= analysis.SignFlipExactMax:
		return smallCountDiff(d, m, unit)
	case len(m.a) >= 2:
		e, p, err := analysis.PairedT(m.a, m.b, 0.95)
		if err != nil {
			return d, err
		}
		d.Estimate, d.P, d.Pairs = e, p, len(m.a)
		d.Method = fmt.Sprintf("paired t over %d %ss both have", len(m.a), unit)
	case m.nA() >= 2 && m.nB() >= 2:
		e, p, err := analysis.WelchT(append(append([]float64{}, m.a...), m.onlyA...), append(append([]float64{}, m.b...), m.onlyB...), 0.95)
		if err != nil {
			return d, err
		}
		d.Estimate, d.P = e, p
		d.Method = fmt.Sprintf("Welch's t, independent samples (fewer than two %ss both have)", unit)
	}
	return d, nil
}

// differing counts the pairs whose two sides differ.
func differing(m matched) int {
	k := 0
	for i := range m.a {
		if m.a[i] != m.b[i] {
			k++
		}
	}
	return k
}

// smallCountDiff is meanDiff when few pairs differ (90 benign seeds of which
// five do): a t test's normal approximation rests on those few, so the
// exact sign-flip test decides. With at most analysis.SignFlipExactMax
// pairs it enumerates every pattern, p and interval together; with more,
// p is exact over the pairs that differ (a 0 negated is 0) and the
// interval inverts the same test over all pairs with drawn patterns, which
// can disagree with p near the line: the method says so.
func smallCountDiff(d Diff, m matched, unit string) (Diff, error) {
	diffs := make([]float64, len(m.a))
	for i := range m.a {
		diffs[i] = m.a[i] - m.b[i]
	}
	// The drawn patterns' seed is the data's: the same pairs give the same
	// interval, whichever page asks.
	e, p, exact, err := analysis.SignFlip(diffs, 0.95, signFlipResamples, uint64(len(diffs)))
	if err != nil {
		return d, err
	}
	d.Estimate, d.P, d.Pairs = e, p, len(m.a)
	k := differing(m)
	if exact {
		d.Method = fmt.Sprintf("exact sign-flip test (all sign patterns) with the interval that inverts it, over %d %ss both have: only %d differ, too few for a t test", len(m.a), unit, k)
		return d, nil
	}
	d.P, _ = analysis.SignFlipP(diffs)
	d.Method = fmt.Sprintf("exact sign-flip test over the %d of %d %ss both have that differ (too few for a t test); its interval inverts the same test over all %d with %d drawn sign patterns, so near p = 0.05 the two can disagree",
		k, len(m.a), unit, len(m.a), signFlipResamples)
	return d, nil
}

// detectionDiff compares AuditBench detection rates over behavior × seed
// units. With one audit per unit on both sides, analysis.PairedRateDiff on
// the pairs (the difference is A's rate minus B's over the pairs); with
// several, each unit's rate, as meanDiff.
func detectionDiff(dim string, ua, ub *units) (Diff, error) {
	const unit = "behavior × seed"
	if !ua.single() || !ub.single() {
		ma, mb := ua.keyMeans(), ub.keyMeans()
		for _, u := range []*units{ma, mb} {
			for k, v := range u.vals {
				u.vals[k] = []float64{100 * v[0]}
			}
		}
		d, err := meanDiff(dim, match(ma, mb), unit)
		if d.Method != "" {
			d.Method += "; each unit the detection rate of its audits"
		}
		return d, err
	}
	m := match(ua, ub)
	d := nanDiff(dim, m)
	d.Unit = unit
	if len(m.a) == 0 {
		if m.nA() < 2 || m.nB() < 2 {
			return d, nil
		}
		// Nothing pairs: Welch's t on the 0/1 outcomes (in points).
		scale := func(v []float64) []float64 {
			out := make([]float64, len(v))
			for i, x := range v {
				out[i] = 100 * x
			}
			return out
		}
		e, p, err := analysis.WelchT(scale(m.onlyA), scale(m.onlyB), 0.95)
		if err != nil {
			return d, err
		}
		d.Estimate, d.P = e, p
		d.Method = "Welch's t, independent samples (no behavior × seed both have)"
		return d, nil
	}
	both := 0
	for i := range m.a {
		switch {
		case m.a[i] == 1 && m.b[i] == 1:
			both++
		case m.a[i] == 1 && m.b[i] == 0:
			d.OnlyA++
		case m.a[i] == 0 && m.b[i] == 1:
			d.OnlyB++
		}
	}
	e, p, err := analysis.PairedRateDiff(both, d.OnlyA, d.OnlyB, len(m.a)-both-d.OnlyA-d.OnlyB, 0.95)
	if err != nil {
		return d, err
	}
	d.Estimate = analysis.Estimate{Value: 100 * e.Value, Lo: 100 * e.Lo, Hi: 100 * e.Hi}
	d.P, d.Pairs = p, len(m.a)
	d.Method = fmt.Sprintf("%s, over %d %s pairs (detected by both %d, by A only %d, by B only %d)",
		analysis.PairedRateMethod, len(m.a), unit, both, d.OnlyA, d.OnlyB)
	return d, nil
}

// signFlipResamples is the fewest sign patterns realism's test draws past
// analysis.SignFlipExactMax pairs: the p-value's Monte Carlo error is then
// about 0.002 near 0.05.
const signFlipResamples = 10000

// realismDiff compares realism over production seeds: the exact sign-flip
// test on the paired differences (resamples drawn past
// analysis.SignFlipExactMax pairs), Welch's t when no seed pairs.
func realismDiff(m matched, resamples int, seed uint64) (Diff, error) {
	d := nanDiff(Realism, m)
	d.Unit = "production seed"
	if len(m.a) == 0 {
		return meanDiff(Realism, m, "production seed")
	}
	diffs := make([]float64, len(m.a))
	for i := range m.a {
		diffs[i] = m.a[i] - m.b[i]
	}
	e, p, exact, err := analysis.SignFlip(diffs, 0.95, max(resamples, signFlipResamples), seed)
	if err != nil {
		return d, err
	}
	d.Estimate, d.P, d.Pairs = e, p, len(m.a)
	how := "all sign patterns"
	if !exact {
		how = fmt.Sprintf("%d drawn sign patterns", max(resamples, signFlipResamples))
	}
	d.Method = fmt.Sprintf("sign-flip permutation test (%s) with the interval that inverts it, over %d production seeds both have; each unit 100 × the win share against the real conversation, a tie half", how, len(m.a))
	if math.IsInf(e.Lo, 0) || math.IsInf(e.Hi, 0) {
		d.Method += "; with so few seeds no difference can be rejected, so the interval is unbounded"
	}
	return d, nil
}
