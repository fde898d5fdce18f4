package experiment

import (
	"cmp"
	"fmt"
	"math"
	"math/rand/v2"
	"slices"

	"github.com/auditscope/auditscope/analysis"
)

// Diff is one dimension of a comparison of auditor A against auditor B:
// A − B in points of the 0–100 scale, with a 95% interval and a p-value.
type Diff struct {
	Dimension string
	analysis.Estimate
	P     float64 // two-sided; NaN when no test applies
	PHolm float64 // P adjusted by Holm across the comparisons shown (AdjustHolm)
	// NA and NB are the units each side has (audits, seeds, judgments);
	// Pairs how many of them were matched, 0 for an unpaired comparison.
	NA, NB, Pairs int
	Method        string // how the interval and p-value were made, for the page
}

// BehaviorDiff is the audit-quality difference on one behavior's pairs.
type BehaviorDiff struct {
	Behavior string
	Pairs    int
	analysis.Estimate
	P float64
	// Share is the behavior's part of the overall paired difference:
	// Σ of its pair differences / Σ of all; the shares sum to 1.
	Share float64
}

// Comparison is auditor A against auditor B on every dimension.
type Comparison struct {
	A, B      string
	Diffs     []Diff         // in CompareDimensions order
	Behaviors []BehaviorDiff // audit quality by behavior, largest share first
}

// CompareDimensions are the dimensions a comparison covers, in order.
var CompareDimensions = []string{AuditQuality, FPCalibration, Production, Realism, Composite, AuditBenchSTC, AuditBenchDefault}

// Compare compares auditor a with auditor b using the pairing the data
// allows (docs/DOMAIN.md):
//
//   - audit quality: audits matched by behavior × seed (the k-th audit of a
//     behavior and seed on one side with the k-th on the other), paired t
//     on the differences; Welch's t when nothing pairs;
//   - AuditBench detection: matched the same way, Newcombe's interval for
//     paired proportions and McNemar's test;
//   - false-positive calibration: matched by seed (the same benign
//     scenario), Newcombe's paired interval and McNemar; unmatched, the
//     independent Newcombe interval and a two-proportion z-test;
//   - production discovery: per-seed means matched by seed, paired t;
//   - realism: each side's audit-versus-real judgments are its own, so the
//     independent Newcombe interval on the win shares (ties count half)
//     and a two-proportion z-test;
//   - composite: the overview's composites (every audit), with a paired
//     percentile bootstrap that redraws the matched units of each
//     dimension jointly and the unmatched ones per side; its p-value is
//     twice the smaller share of resamples on either side of 0.
//
// Only the matched units enter a paired difference; Pairs says how many.
// A dimension either side has no data for is NaN. PHolm is left NaN for
// AdjustHolm. The same seed gives the same bootstrap.
func Compare(a, b string, audits []Audit, realism []RealismJudgment, resamples int, seed uint64) (Comparison, error) {
	c := Comparison{A: a, B: b}
	side := map[string]*sideData{a: {}, b: {}}
	if a == b {
		return c, fmt.Errorf("experiment: Compare: an auditor against itself (%q)", a)
	}
	for _, au := range audits {
		s := side[au.Auditor]
		if s == nil {
			continue
		}
		key := au.Behavior + "\x00" + au.Seed
		switch {
		case au.Eval == EvalAuditQuality && au.Quality != nil:
			s.quality.add(key, *au.Quality, au.Behavior)
		case au.Eval == EvalFPCalibration && au.FalsePositive != nil:
			s.fp.add(key, b01(*au.FalsePositive), "")
		case au.Eval == EvalProduction && au.ProductionValue != nil:
			s.prod.add(au.Seed, *au.ProductionValue, "")
		case au.Eval == EvalAuditBenchSTC && au.Detected != nil:
			s.stc.add(key, b01(*au.Detected), au.Behavior)
		case au.Eval == EvalAuditBenchDefault && au.Detected != nil:
			s.def.add(key, b01(*au.Detected), au.Behavior)
		}
	}
	for _, j := range realism {
		s := side[j.Auditor]
		if s == nil || j.OtherAuditor != "" {
			continue
		}
		switch j.Outcome {
		case analysis.OutcomeWin:
			s.realism = append(s.realism, 1)
		case analysis.OutcomeTie:
			s.realism = append(s.realism, 0.5)
		case analysis.OutcomeLoss:
			s.realism = append(s.realism, 0)
		default:
			return c, fmt.Errorf("experiment: Compare: realism outcome %q", j.Outcome)
		}
	}
	sa, sb := side[a], side[b]
	quality := match(&sa.quality, &sb.quality)
	fp := match(&sa.fp, &sb.fp)
	prod := match(sa.prod.seedMeans(), sb.prod.seedMeans())
	diffs := map[string]Diff{}
	var err error
	if diffs[AuditQuality], err = meanDiff(AuditQuality, quality, "behavior × seed"); err != nil {
		return c, err
	}
	if diffs[Production], err = meanDiff(Production, prod, "seed"); err != nil {
		return c, err
	}
	if diffs[FPCalibration], err = rateDiff(FPCalibration, fp, true); err != nil {
		return c, err
	}
	for k, u := range map[string]*units{AuditBenchSTC: &sa.stc, AuditBenchDefault: &sa.def} {
		other := &sb.stc
		if k == AuditBenchDefault {
			other = &sb.def
		}
		if diffs[k], err = rateDiff(k, match(u, other), false); err != nil {
			return c, err
		}
	}
	re := matched{onlyA: sa.realism, onlyB: sb.realism}
	if diffs[Realism], err = realismDiff(re); err != nil {
		return c, err
	}
	diffs[Composite] = compositeDiff(quality, fp, prod, re, resamples, seed)
	for _, k := range CompareDimensions {
		c.Diffs = append(c.Diffs, diffs[k])
	}
	c.Behaviors, err = behaviorDiffs(quality)
	return c, err
}

// AdjustHolm sets PHolm of every difference of the comparisons, adjusting
// their p-values together with Holm's method: the family is everything a
// page shows.
func AdjustHolm(cs []Comparison) {
	var ps []float64
	for _, c := range cs {
		for _, d := range c.Diffs {
			ps = append(ps, d.P)
		}
	}
	adj := analysis.Holm(ps)
	k := 0
	for i := range cs {
		for j := range cs[i].Diffs {
			cs[i].Diffs[j].PHolm = adj[k]
			k++
		}
	}
}

func b01(v bool) float64 {
	if v {
		return 1
	}
	return 0
}

// sideData is one auditor's units per dimension.
type sideData struct {
	quality, fp, prod, stc, def units
	realism                     []float64
}

// units are values under a pairing key, each key's values in audit order.
type units struct {
	keys     []string // in first-seen order, so matching is reproducible
	vals     map[string][]float64
	behavior map[string]string
}

func (u *units) add(key string, v float64, behavior string) {
	if u.vals == nil {
		u.vals, u.behavior = map[string][]float64{}, map[string]string{}
	}
	if _, ok := u.vals[key]; !ok {
		u.keys = append(u.keys, key)
		u.behavior[key] = behavior
	}
	u.vals[key] = append(u.vals[key], v)
}

// seedMeans turns production audits into one unit per seed, its mean.
func (u *units) seedMeans() *units {
	out := &units{}
	for _, k := range u.keys {
		v := u.vals[k]
		var s float64
		for _, x := range v {
			s += x
		}
		out.add(k, s/float64(len(v)), "")
	}
	return out
}

// matched is a dimension's units after matching: pairs (a[i], b[i]) and
// what either side has left.
type matched struct {
	a, b         []float64
	behaviors    []string // of each pair
	onlyA, onlyB []float64
}

func (m matched) nA() int { return len(m.a) + len(m.onlyA) }
func (m matched) nB() int { return len(m.b) + len(m.onlyB) }

// match pairs the k-th value of a key on one side with the k-th on the
// other.
func match(ua, ub *units) matched {
	var m matched
	for _, k := range ua.keys {
		va, vb := ua.vals[k], ub.vals[k]
		n := min(len(va), len(vb))
		for i := range n {
			m.a, m.b = append(m.a, va[i]), append(m.b, vb[i])
			m.behaviors = append(m.behaviors, ua.behavior[k])
		}
		m.onlyA = append(m.onlyA, va[n:]...)
	}
	for _, k := range ub.keys {
		va, vb := ua.vals[k], ub.vals[k]
		m.onlyB = append(m.onlyB, vb[min(len(va), len(vb)):]...)
	}
	return m
}

func nanDiff(dim string, m matched) Diff {
	return Diff{Dimension: dim, Estimate: analysis.Estimate{Value: math.NaN(), Lo: math.NaN(), Hi: math.NaN()},
		P: math.NaN(), PHolm: math.NaN(), NA: m.nA(), NB: m.nB()}
}

// meanDiff compares means (0–100 values): paired t on the pairs when two
// or more pair, else Welch's t on everything.
func meanDiff(dim string, m matched, by string) (Diff, error) {
	d := nanDiff(dim, m)
	switch {
	case len(m.a) >= 2:
		e, p, err := analysis.PairedT(m.a, m.b, 0.95)
		if err != nil {
			return d, err
		}
		d.Estimate, d.P, d.Pairs = e, p, len(m.a)
		d.Method = fmt.Sprintf("paired t on %d %s pairs", len(m.a), by)
	case m.nA() >= 2 && m.nB() >= 2:
		e, p, err := analysis.WelchT(append(append([]float64{}, m.a...), m.onlyA...), append(append([]float64{}, m.b...), m.onlyB...), 0.95)
		if err != nil {
			return d, err
		}
		d.Estimate, d.P = e, p
		d.Method = "Welch's t (nothing pairs by " + by + ")"
	}
	return d, nil
}

// rateDiff compares 0/1 rates: Newcombe's paired interval and McNemar on
// the pairs when any pair, else the independent Newcombe interval and a
// z-test. For FP calibration (flip) the values are false positives and
// the dimension is 100 − the rate, so the difference changes sign.
func rateDiff(dim string, m matched, flip bool) (Diff, error) {
	d := nanDiff(dim, m)
	scale := 100.0
	if flip {
		scale = -100
	}
	put := func(e analysis.Estimate) {
		lo, hi := scale*e.Lo, scale*e.Hi
		if flip {
			lo, hi = hi, lo
		}
		d.Estimate = analysis.Estimate{Value: scale * e.Value, Lo: lo, Hi: hi}
	}
	if len(m.a) > 0 {
		var n11, n10, n01, n00 int
		for i := range m.a {
			switch {
			case m.a[i] == 1 && m.b[i] == 1:
				n11++
			case m.a[i] == 1:
				n10++
			case m.b[i] == 1:
				n01++
			default:
				n00++
			}
		}
		e, err := analysis.NewcombePaired(n11, n10, n01, n00, 0.95)
		if err != nil {
			return d, err
		}
		put(e)
		p, exact, err := analysis.McNemar(n10, n01)
		if err != nil {
			return d, err
		}
		d.P, d.Pairs = p, len(m.a)
		test := "McNemar χ² with continuity correction"
		if exact {
			test = "McNemar exact"
		}
		d.Method = fmt.Sprintf("Newcombe paired interval, %s, on %d matched pairs (%d and %d discordant)", test, len(m.a), n10, n01)
		return d, nil
	}
	if m.nA() == 0 || m.nB() == 0 {
		return d, nil
	}
	xa, xb := sumOf(m.onlyA), sumOf(m.onlyB)
	e, err := analysis.NewcombeDiff(xa, m.nA(), xb, m.nB(), 0.95)
	if err != nil {
		return d, err
	}
	put(e)
	d.P = analysis.TwoProportionZ(xa, m.nA(), xb, m.nB())
	d.Method = "Newcombe interval, two-proportion z-test (independent samples)"
	return d, nil
}

// realismDiff compares the win shares of the two sides' judgments.
func realismDiff(m matched) (Diff, error) {
	d := nanDiff(Realism, m)
	if m.nA() == 0 || m.nB() == 0 {
		return d, nil
	}
	xa, xb := sumOf(m.onlyA), sumOf(m.onlyB)
	e, err := analysis.NewcombeDiff(xa, m.nA(), xb, m.nB(), 0.95)
	if err != nil {
		return d, err
	}
	d.Estimate = analysis.Estimate{Value: 100 * e.Value, Lo: 100 * e.Lo, Hi: 100 * e.Hi}
	d.P = analysis.TwoProportionZ(xa, m.nA(), xb, m.nB())
	d.Method = "Newcombe interval, two-proportion z-test (each side's own judgments; ties count half)"
	return d, nil
}

func sumOf(v []float64) float64 {
	var s float64
	for _, x := range v {
		s += x
	}
	return s
}

// streamCompare is the PCG stream of the composite comparison.
const streamCompare = 0x636f6d7061726573 // "compares"

// compositeDiff is composite(A) − composite(B) with a paired percentile
// bootstrap (see Compare).
func compositeDiff(quality, fp, prod, re matched, resamples int, seed uint64) Diff {
	d := nanDiff(Composite, matched{})
	dims := []matched{quality, fp, prod, re}
	for _, m := range dims {
		if m.nA() == 0 || m.nB() == 0 {
			return d
		}
	}
	// The value of each dimension from one side's drawn sum and count:
	// FP is 100 − the false-positive rate, realism 100 × the win share.
	value := func(k int, sum float64, n int) float64 {
		mean := sum / float64(n)
		switch k {
		case 1:
			return 100 * (1 - mean)
		case 3:
			return 100 * mean
		}
		return mean
	}
	composite := func(draw func(k int, m matched) (sa, sb float64)) float64 {
		var total float64
		for k, m := range dims {
			sa, sb := draw(k, m)
			total += value(k, sa, m.nA()) - value(k, sb, m.nB())
		}
		return total / 4
	}
	d.Value = composite(func(_ int, m matched) (float64, float64) {
		return sumOf(m.a) + sumOf(m.onlyA), sumOf(m.b) + sumOf(m.onlyB)
	})
	d.NA, d.NB = quality.nA()+fp.nA()+prod.nA()+re.nA(), quality.nB()+fp.nB()+prod.nB()+re.nB()
	d.Pairs = len(quality.a) + len(fp.a) + len(prod.a)
	if resamples <= 0 {
		return d
	}
	rng := rand.New(rand.NewPCG(seed, streamCompare))
	redraw := func(v []float64) float64 {
		var s float64
		for range v {
			s += v[rng.IntN(len(v))]
		}
		return s
	}
	vals := make([]float64, resamples)
	for r := range vals {
		vals[r] = composite(func(_ int, m matched) (float64, float64) {
			var sa, sb float64
			for range m.a {
				i := rng.IntN(len(m.a))
				sa += m.a[i]
				sb += m.b[i]
			}
			return sa + redraw(m.onlyA), sb + redraw(m.onlyB)
		})
	}
	d.P = analysis.BootstrapP(vals)
	d.Lo, d.Hi = analysis.PercentileInterval(vals, 0.95)
	d.Method = fmt.Sprintf("paired percentile bootstrap, %d resamples (matched units drawn together)", resamples)
	return d
}

// behaviorDiffs breaks the audit-quality pairs down by behavior.
func behaviorDiffs(m matched) ([]BehaviorDiff, error) {
	if len(m.a) == 0 {
		return nil, nil
	}
	idx := map[string][]int{}
	var order []string
	var total float64
	for i, b := range m.behaviors {
		if _, ok := idx[b]; !ok {
			order = append(order, b)
		}
		idx[b] = append(idx[b], i)
		total += m.a[i] - m.b[i]
	}
	out := make([]BehaviorDiff, 0, len(order))
	for _, b := range order {
		var xa, xb []float64
		var sum float64
		for _, i := range idx[b] {
			xa, xb = append(xa, m.a[i]), append(xb, m.b[i])
			sum += m.a[i] - m.b[i]
		}
		bd := BehaviorDiff{Behavior: b, Pairs: len(xa), P: math.NaN(), Share: math.NaN()}
		if total != 0 {
			bd.Share = sum / total
		}
		e, p, err := analysis.PairedT(xa, xb, 0.95)
		if err != nil {
			return nil, err
		}
		bd.Estimate, bd.P = e, p
		out = append(out, bd)
	}
	slices.SortStableFunc(out, func(x, y BehaviorDiff) int {
		return cmp.Compare(math.Abs(y.Value*float64(y.Pairs)), math.Abs(x.Value*float64(x.Pairs)))
	})
	return out, nil
}
