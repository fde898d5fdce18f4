package experiment

import (
	"cmp"
	"fmt"
	"math"
	"math/rand/v2"
	"slices"

	"github.com/auditscope/auditscope/analysis"
	"github.com/auditscope/auditscope/data/model"
)

// Diff is one dimension of a comparison of auditor A against auditor B:
// A − B in points of the 0–100 scale, with a 95% interval and a p-value
// from one method, so that the interval excludes 0 exactly when p < 0.05.
type Diff struct {
	Dimension string
	analysis.Estimate
	P float64 // two-sided; NaN when no test applies
	// PHolm is P adjusted by Holm's method within the comparison's family
	// (AdjustHolm); NaN for the composite, which is not in it.
	PHolm float64
	// PFloor is the smallest p the method can give (a bootstrap's
	// 2/(resamples + 1)), 0 for a method without one: a p at the floor
	// reads "< PFloor", not as a number.
	PFloor float64
	// Unit is what was sampled and what the test counts: "behavior × seed",
	// "benign seed", "production seed".
	Unit string
	// NA and NB are the units each side has; Pairs how many of them both
	// have (0 for an unpaired comparison).
	NA, NB, Pairs int
	// OnlyA and OnlyB are the discordant pairs of a 0/1 dimension: the
	// units where only A, or only B, has the outcome that counts for it
	// (a detection). Both 0 elsewhere.
	OnlyA, OnlyB int
	Method       string // how the interval and p-value were made, for the page
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

// Compare compares auditor a with auditor b. The unit of each dimension is
// what was sampled (docs/DOMAIN.md), and A's and B's units are paired where
// both have them:
//
//   - audit quality: behavior × seed; paired t on the per-unit differences,
//     Welch's t when nothing pairs;
//   - false-positive calibration: the benign seed. Its rollouts have no
//     identity of their own, so each side's unit is its rate over the
//     seed's rollouts, on the dimension's scale (100 − the false-positive
//     rate); paired t over the seeds both have, Welch's t when none;
//   - production discovery: the production seed, each side's mean over its
//     rollouts; paired t, Welch's t when nothing pairs;
//   - realism: the production seed the realism audit ran on, judged against
//     the same real conversation; each unit is 100 × the win share (a tie
//     half) and the test an exact sign-flip permutation test on the paired
//     differences, with the interval that inverts it; Welch's t when no
//     seed pairs;
//   - AuditBench detection: behavior × seed, one audit each; the exact
//     McNemar test with Newcombe's paired interval (analysis.
//     PairedRateDiff: two methods, which can disagree near the line);
//     units with several audits are rates, compared as quality is;
//   - composite: the mean over the four dimensions of the difference of
//     the two sides' unit means, with a percentile bootstrap that redraws
//     each dimension's units, the paired ones together and the others per
//     side; its p-value is twice the smaller tail, never below 2/(B + 1).
//
// A dimension either side has no data for is NaN. PHolm is left NaN for
// AdjustHolm. The same seed gives the same bootstrap and resamples.
func Compare(a, b string, audits []Audit, realism []RealismJudgment, resamples int, seed uint64) (Comparison, error) {
	if a == b {
		return Comparison{A: a, B: b}, fmt.Errorf("experiment: Compare: an auditor against itself (%q)", a)
	}
	u, err := GatherUnits(audits, realism, []string{a, b})
	if err != nil {
		return Comparison{A: a, B: b}, err
	}
	return u.compare(a, b, resamples, seed)
}

// Units are auditors' units on each dimension a comparison covers, gathered
// once from an experiment's audits and realism judgments so that many
// comparisons can read them: the overview compares the best auditor with
// every other.
type Units struct {
	sides map[string]*sideData
}

// GatherUnits gathers the units of the auditors ids, or of every auditor
// when ids is nil. An auditor without units compares as NaN.
func GatherUnits(audits []Audit, realism []RealismJudgment, ids []string) (*Units, error) {
	u := &Units{sides: map[string]*sideData{}}
	for _, id := range ids {
		u.sides[id] = &sideData{}
	}
	sideOf := func(auditor string) *sideData {
		s := u.sides[auditor]
		if s == nil && ids == nil {
			s = &sideData{}
			u.sides[auditor] = s
		}
		return s
	}
	// A unit without a seed has no identity to pair by: it is a unit of its
	// own, on its side only (the sides' keys differ by their first byte).
	n := 0
	unpaired := func(side string) string {
		n++
		// Zero-padded: sorted (match), they keep the order they came in.
		return fmt.Sprintf("\x01%s\x00%012d", side, n)
	}
	for _, au := range audits {
		s := sideOf(au.Auditor)
		if s == nil {
			continue
		}
		key, seedKey := au.Behavior+"\x00"+au.Seed, au.Seed
		if au.Seed == "" {
			key = unpaired(au.Auditor)
			seedKey = key
		}
		switch {
		case au.Eval == model.EvalAuditQuality && au.Quality != nil:
			s.quality.add(key, *au.Quality, au.Behavior, au.ID)
		case au.Eval == model.EvalFPCalibration && au.FalsePositive != nil:
			s.fp.add(key, 100*(1-b01(*au.FalsePositive)), "", au.ID)
		case au.Eval == model.EvalProduction && au.ProductionValue != nil:
			s.prod.add(seedKey, *au.ProductionValue, "", au.ID)
		case au.Eval == model.EvalAuditBenchSTC && au.Detected != nil:
			s.stc.add(key, b01(*au.Detected), au.Behavior, au.ID)
		case au.Eval == model.EvalAuditBenchDefault && au.Detected != nil:
			s.def.add(key, b01(*au.Detected), au.Behavior, au.ID)
		}
	}
	for _, j := range realism {
		if j.OtherAuditor != "" {
			continue
		}
		s := sideOf(j.Auditor)
		if s == nil {
			continue
		}
		var v float64
		switch j.Outcome {
		case analysis.OutcomeWin:
			v = 100
		case analysis.OutcomeTie:
			v = 50
		case analysis.OutcomeLoss:
		default:
			return nil, fmt.Errorf("experiment: Compare: realism outcome %q", j.Outcome)
		}
		key := j.Seed
		if key == "" {
			key = unpaired(j.Auditor)
		}
		s.realism.add(key, v, "", j.Audit)
	}
	// Each side's per-key means, made once: every comparison matches them.
	for _, s := range u.sides {
		s.means = [4]*units{s.quality.keyMeans(), s.fp.keyMeans(), s.prod.keyMeans(), s.realism.keyMeans()}
	}
	return u, nil
}

// side is a's units; none for an auditor GatherUnits did not gather.
func (u *Units) side(a string) *sideData {
	if s := u.sides[a]; s != nil {
		return s
	}
	s := &sideData{}
	s.means = [4]*units{{}, {}, {}, {}}
	return s
}

// Composite is the composite row of Compare(a, b), the same number, interval
// and p-value for the same seed, without the other dimensions' tests.
func (u *Units) Composite(a, b string, resamples int, seed uint64) (Diff, error) {
	if a == b {
		return Diff{}, fmt.Errorf("experiment: Composite: an auditor against itself (%q)", a)
	}
	sa, sb := u.side(a), u.side(b)
	return compositeDiff(match(sa.means[0], sb.means[0]), match(sa.means[1], sb.means[1]),
		match(sa.means[2], sb.means[2]), match(sa.means[3], sb.means[3]), resamples, seed, b < a), nil
}

func (u *Units) compare(a, b string, resamples int, seed uint64) (Comparison, error) {
	c := Comparison{A: a, B: b}
	sa, sb := u.side(a), u.side(b)
	quality := match(sa.means[0], sb.means[0])
	fp := match(sa.means[1], sb.means[1])
	prod := match(sa.means[2], sb.means[2])
	re := match(sa.means[3], sb.means[3])
	diffs := map[string]Diff{}
	var err error
	if diffs[AuditQuality], err = meanDiff(AuditQuality, quality, "behavior × seed"); err != nil {
		return c, err
	}
	if diffs[Production], err = meanDiff(Production, prod, "production seed"); err != nil {
		return c, err
	}
	if diffs[FPCalibration], err = meanDiff(FPCalibration, fp, "benign seed"); err != nil {
		return c, err
	}
	if diffs[FPCalibration].Method != "" {
		d := diffs[FPCalibration]
		d.Method += "; each unit 100 − the seed's false-positive rate over its rollouts"
		diffs[FPCalibration] = d
	}
	if diffs[AuditBenchSTC], err = detectionDiff(AuditBenchSTC, &sa.stc, &sb.stc); err != nil {
		return c, err
	}
	if diffs[AuditBenchDefault], err = detectionDiff(AuditBenchDefault, &sa.def, &sb.def); err != nil {
		return c, err
	}
	if diffs[Realism], err = realismDiff(re, resamples, seed); err != nil {
		return c, err
	}
	diffs[Composite] = compositeDiff(quality, fp, prod, re, resamples, seed, b < a)
	for _, k := range CompareDimensions {
		c.Diffs = append(c.Diffs, diffs[k])
	}
	c.Behaviors, err = behaviorDiffs(quality, diffs[AuditQuality])
	return c, err
}

// AdjustHolm sets PHolm of the differences of one comparison with Holm's
// method. The family is the comparison's own dimension tests (audit
// quality, false-positive calibration, production, realism and the two
// AuditBench detections): not the composite, a function of four of them,
// nor the by-behavior tests, nor another comparison's, so one test's
// adjustment does not change with what else a page shows.
func AdjustHolm(c *Comparison) {
	var ps []float64
	var idx []int
	for j, d := range c.Diffs {
		c.Diffs[j].PHolm = math.NaN()
		if d.Dimension == Composite {
			continue
		}
		ps = append(ps, d.P)
		idx = append(idx, j)
	}
	for k, p := range analysis.Holm(ps) {
		c.Diffs[idx[k]].PHolm = p
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
	quality, fp, prod, stc, def, realism units
	// means are quality, fp, prod and realism with each key one unit
	// (keyMeans), the form the mean tests and the composite compare.
	means [4]*units
}

// units are values under a pairing key, each key's values in audit order,
// with the ids of the audits they came from (Matched lists them).
type units struct {
	keys     []string // in first-seen order, so matching is reproducible
	vals     map[string][]float64
	ids      map[string][]string
	behavior map[string]string
}

func (u *units) add(key string, v float64, behavior, id string) {
	if u.vals == nil {
		u.vals, u.ids, u.behavior = map[string][]float64{}, map[string][]string{}, map[string]string{}
	}
	if _, ok := u.vals[key]; !ok {
		u.keys = append(u.keys, key)
		u.behavior[key] = behavior
	}
	u.vals[key] = append(u.vals[key], v)
	u.ids[key] = append(u.ids[key], id)
}

// keyMeans makes each key one unit: the mean of its values (its rollouts).
// The ids stay with the raw units (Matched reads those).
func (u *units) keyMeans() *units {
	out := &units{}
	for _, k := range u.keys {
		v := u.vals[k]
		out.add(k, sumOf(v)/float64(len(v)), u.behavior[k], "")
	}
	return out
}

// single reports whether every key has one value.
func (u *units) single() bool {
	for _, v := range u.vals {
		if len(v) != 1 {
			return false
		}
	}
	return true
}

// matched is a dimension's units after matching: pairs (a[i], b[i]) of the
// keys both sides have, and the units either side has alone.
type matched struct {
	a, b         []float64
	behaviors    []string // of each pair
	onlyA, onlyB []float64
}

func (m matched) nA() int { return len(m.a) + len(m.onlyA) }
func (m matched) nB() int { return len(m.b) + len(m.onlyB) }

// match pairs the units of one key on both sides; each key has one value
// (keyMeans), or the k-th value of one side pairs with the k-th of the
// other (single 0/1 outcomes, checked by the caller). Keys go in sorted
// order, so match(ub, ua) is match(ua, ub) with the sides swapped, pair for
// pair: draws over the pairs (the composite's bootstrap, drawn sign
// patterns) are then the same whichever side is A, and B − A is A − B
// negated.
func match(ua, ub *units) matched {
	var m matched
	ka, kb := slices.Sorted(slices.Values(ua.keys)), slices.Sorted(slices.Values(ub.keys))
	for _, k := range ka {
		va, vb := ua.vals[k], ub.vals[k]
		n := min(len(va), len(vb))
		for i := range n {
			m.a, m.b = append(m.a, va[i]), append(m.b, vb[i])
			m.behaviors = append(m.behaviors, ua.behavior[k])
		}
		m.onlyA = append(m.onlyA, va[n:]...)
	}
	for _, k := range kb {
		va, vb := ua.vals[k], ub.vals[k]
		m.onlyB = append(m.onlyB, vb[min(len(va), len(vb)):]...)
	}
	return m
}

func nanDiff(dim string, m matched) Diff {
	return Diff{Dimension: dim, Estimate: analysis.Estimate{Value: math.NaN(), Lo: math.NaN(), Hi: math.NaN()},
		P: math.NaN(), PHolm: math.NaN(), NA: m.nA(), NB: m.nB()}
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

// compositeDiff is composite(A) − composite(B), each the mean of its four
// dimensions' unit means, with a percentile bootstrap over the same units
// (see Compare).
//
// flip says that B's id sorts before A's: B's units alone are then redrawn
// before A's, so that with match's order the draws are those of B − A, and
// A − B is B − A negated, bound for bound and p for p.
func compositeDiff(quality, fp, prod, re matched, resamples int, seed uint64, flip bool) Diff {
	d := nanDiff(Composite, matched{})
	dims := []matched{quality, fp, prod, re}
	for _, m := range dims {
		if m.nA() == 0 || m.nB() == 0 {
			return d
		}
	}
	composite := func(draw func(m matched) (sa, sb float64)) float64 {
		var total float64
		for _, m := range dims {
			sa, sb := draw(m)
			total += sa/float64(m.nA()) - sb/float64(m.nB())
		}
		return total / 4
	}
	d.Value = composite(func(m matched) (float64, float64) {
		return sumOf(m.a) + sumOf(m.onlyA), sumOf(m.b) + sumOf(m.onlyB)
	})
	d.NA, d.NB = quality.nA()+fp.nA()+prod.nA()+re.nA(), quality.nB()+fp.nB()+prod.nB()+re.nB()
	d.Pairs = len(quality.a) + len(fp.a) + len(prod.a) + len(re.a)
	d.Unit = "the dimensions' units"
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
		vals[r] = composite(func(m matched) (float64, float64) {
			var sa, sb float64
			for range m.a {
				i := rng.IntN(len(m.a))
				sa += m.a[i]
				sb += m.b[i]
			}
			if flip {
				rb := redraw(m.onlyB)
				return sa + redraw(m.onlyA), sb + rb
			}
			ra := redraw(m.onlyA)
			return sa + ra, sb + redraw(m.onlyB)
		})
	}
	d.P, d.PFloor = analysis.BootstrapP(vals), 2/float64(resamples+1)
	d.Lo, d.Hi = analysis.PercentileInterval(vals, 0.95)
	kind := "paired"
	if d.Pairs == 0 {
		kind = "independent"
	}
	d.Method = fmt.Sprintf("%s percentile bootstrap, %d resamples, redrawing each dimension's units (behavior × seed, benign seed, production seed): the ones both sides have together, the others per side", kind, resamples)
	partial := false
	for _, m := range dims {
		partial = partial || len(m.onlyA)+len(m.onlyB) > 0
	}
	if partial {
		d.Method += "; the dimension rows compare only the units both sides have, so with units on one side only the composite is not the mean of those rows"
	}
	return d
}

// behaviorDiffs breaks the audit-quality pairs down by behavior. Shares
// are NaN unless the overall difference's interval excludes 0: near 0 they
// run to hundreds of percent either way.
func behaviorDiffs(m matched, overall Diff) ([]BehaviorDiff, error) {
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
		if total != 0 && (overall.Lo > 0 || overall.Hi < 0) {
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
