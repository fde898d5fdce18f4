package analysis

import (
	"errors"
	"fmt"
	"math"
	"slices"
)

// Judges are checked against each other on the audits both scored: how
// far two judges agree on a dimension's 1–10 scale (quadratic-weighted
// kappa, Krippendorff's alpha), or on a 0/1 verdict (Cohen's kappa), and
// how far apart their scores sit (the mean difference). Audits come in
// clusters (the seeds: one scenario run several times), so every interval
// resamples clusters, not audits.

// WeightedKappa is Cohen's kappa of two raters' scores weighted by the
// squared distance between categories (quadratic weights), with the
// categories cats in order: scikit-learn's cohen_kappa_score(a, b,
// labels=cats, weights="quadratic"). A score that is not one of cats is an
// error; NaN when the expected disagreement is 0 (both raters constant on
// one category).
func WeightedKappa(a, b []float64, cats []float64) (float64, error) {
	if len(a) != len(b) {
		return math.NaN(), fmt.Errorf("analysis: WeightedKappa: %d scores against %d", len(a), len(b))
	}
	k := len(cats)
	if k < 2 {
		return math.NaN(), errors.New("analysis: WeightedKappa: fewer than two categories")
	}
	index := func(v float64) int { return slices.Index(cats, v) }
	obs := make([]float64, k*k)
	rowSum, colSum := make([]float64, k), make([]float64, k)
	for i := range a {
		x, y := index(a[i]), index(b[i])
		if x < 0 || y < 0 {
			return math.NaN(), fmt.Errorf("analysis: WeightedKappa: score %v or %v is not a category", a[i], b[i])
		}
		obs[x*k+y]++
		rowSum[x]++
		colSum[y]++
	}
	n := float64(len(a))
	if n == 0 {
		return math.NaN(), nil
	}
	var num, den float64
	for x := range k {
		for y := range k {
			w := float64((x - y) * (x - y))
			num += w * obs[x*k+y]
			den += w * rowSum[x] * colSum[y] / n
		}
	}
	if den == 0 {
		return math.NaN(), nil
	}
	return 1 - num/den, nil
}

// KrippendorffAlpha is Krippendorff's alpha of two raters who rated every
// unit, with the interval metric (squared difference): 1 − Do/De, Do the
// mean squared difference within units and De that between any two of the
// 2n values. NaN when De is 0 (every value the same) or n < 1.
func KrippendorffAlpha(a, b []float64) float64 {
	n := len(a)
	if n != len(b) || n < 1 {
		return math.NaN()
	}
	var do float64
	vals := make([]float64, 0, 2*n)
	for i := range a {
		d := a[i] - b[i]
		do += d * d
		vals = append(vals, a[i], b[i])
	}
	do /= float64(n)
	// Σ over ordered pairs i≠j of (v_i − v_j)² = 2m·Σv² − 2(Σv)², m = 2n.
	var s, s2 float64
	for _, v := range vals {
		s += v
		s2 += v * v
	}
	m := float64(len(vals))
	de := (2*m*s2 - 2*s*s) / (m * (m - 1))
	if de == 0 {
		return math.NaN()
	}
	return 1 - do/de
}

// BinaryKappa is Cohen's kappa of two raters' 0/1 verdicts; NaN when the
// expected agreement is 1.
func BinaryKappa(a, b []bool) float64 {
	n := float64(len(a))
	if n == 0 || len(a) != len(b) {
		return math.NaN()
	}
	var agree, pa, pb float64
	for i := range a {
		if a[i] == b[i] {
			agree++
		}
		if a[i] {
			pa++
		}
		if b[i] {
			pb++
		}
	}
	po := agree / n
	pa, pb = pa/n, pb/n
	pe := pa*pb + (1-pa)*(1-pb)
	if pe == 1 {
		return math.NaN()
	}
	return (po - pe) / (1 - pe)
}

// JudgeAgreement is how two judges compare on one dimension over the
// audits both scored.
type JudgeAgreement struct {
	N, Clusters int
	// Kappa is quadratic-weighted kappa (Cohen's kappa on 0/1 scores);
	// Alpha is Krippendorff's alpha with the interval metric.
	Kappa, Alpha Estimate
	// Diff is the mean of judge B − judge A.
	Diff Estimate
}

// moments are the sums two judges' agreement is a function of: with
// quadratic weights, kappa on equally spaced categories is 2·cov(a, b) /
// (var a + var b + (ā − b̄)²) (Fleiss and Cohen 1973; population
// moments), which on 0/1 scores is Cohen's kappa and on any scores Lin's
// concordance coefficient; alpha's interval metric is moments too. So a
// resample of clusters is a sum of the clusters' moments, not a pass over
// their audits.
type moments struct{ n, a, b, aa, bb, ab float64 }

func (m *moments) add(o moments) {
	m.n += o.n
	m.a += o.a
	m.b += o.b
	m.aa += o.aa
	m.bb += o.bb
	m.ab += o.ab
}

func (m moments) kappa() float64 {
	ma, mb := m.a/m.n, m.b/m.n
	va, vb := m.aa/m.n-ma*ma, m.bb/m.n-mb*mb
	cov := m.ab/m.n - ma*mb
	den := va + vb + (ma-mb)*(ma-mb)
	if den <= 0 {
		return math.NaN()
	}
	return 2 * cov / den
}

func (m moments) alpha() float64 {
	do := (m.aa + m.bb - 2*m.ab) / m.n
	s, s2, k := m.a+m.b, m.aa+m.bb, 2*m.n
	de := (2*k*s2 - 2*s*s) / (k * (k - 1))
	if de <= 0 || k < 2 {
		return math.NaN()
	}
	return 1 - do/de
}

func (m moments) diff() float64 { return (m.b - m.a) / m.n }

// CompareJudges computes two judges' agreement on the audits both scored
// (a[i] and b[i] the scores of audit i, cluster[i] its seed), each value
// with a percentile interval from resamples of the clusters (the same
// draws for the three).
func CompareJudges(a, b []float64, cluster []int, resamples int, confidence float64, seed uint64) (JudgeAgreement, error) {
	if len(a) != len(b) || len(a) != len(cluster) {
		return JudgeAgreement{}, errors.New("analysis: CompareJudges: a, b and cluster differ in length")
	}
	if err := checkBootstrapArgs("CompareJudges", resamples, confidence); err != nil {
		return JudgeAgreement{}, err
	}
	groups := groupRows(cluster)
	out := JudgeAgreement{N: len(a), Clusters: len(groups)}
	if len(a) == 0 {
		out.Kappa, out.Alpha, out.Diff = nanEstimate(), nanEstimate(), nanEstimate()
		return out, nil
	}
	per := make([]JudgeMoments, len(groups))
	for g, rows := range groups {
		for _, i := range rows {
			x, y := a[i], b[i]
			per[g].Add(JudgeMoments{1, x, y, x * x, y * y, x * y})
		}
	}
	return CompareJudgeMoments(per, resamples, confidence, seed)
}

// JudgeMoments are the sums over one cluster's audits that two judges'
// agreement is computed from: the count, Σa, Σb, Σa², Σb² and Σab.
type JudgeMoments struct{ N, A, B, AA, BB, AB float64 }

// Add adds o's sums.
func (m *JudgeMoments) Add(o JudgeMoments) {
	m.N, m.A, m.B, m.AA, m.BB, m.AB = m.N+o.N, m.A+o.A, m.B+o.B, m.AA+o.AA, m.BB+o.BB, m.AB+o.AB
}

// CompareJudgeMoments is CompareJudges from each cluster's moments, the
// clusters in the order CompareJudges takes them (first appearance): a
// store can sum them where the scores are.
func CompareJudgeMoments(per []JudgeMoments, resamples int, confidence float64, seed uint64) (JudgeAgreement, error) {
	if err := checkBootstrapArgs("CompareJudgeMoments", resamples, confidence); err != nil {
		return JudgeAgreement{}, err
	}
	groups := make([]moments, len(per))
	var all moments
	for g, p := range per {
		groups[g] = moments{p.N, p.A, p.B, p.AA, p.BB, p.AB}
		all.add(groups[g])
	}
	out := JudgeAgreement{N: int(all.n), Clusters: len(per)}
	if all.n == 0 {
		out.Kappa, out.Alpha, out.Diff = nanEstimate(), nanEstimate(), nanEstimate()
		return out, nil
	}
	out.Kappa, out.Alpha, out.Diff = Estimate{Value: all.kappa()}, Estimate{Value: all.alpha()}, Estimate{Value: all.diff()}
	if all.n < 2 {
		// One audit has no spread to agree on: no kappa or alpha.
		out.Kappa, out.Alpha = nanEstimate(), nanEstimate()
	}
	rng := newRand(seed, streamJudges)
	ks, as, ds := make([]float64, 0, resamples), make([]float64, 0, resamples), make([]float64, 0, resamples)
	for range resamples {
		var m moments
		for range groups {
			m.add(groups[rng.IntN(len(groups))])
		}
		for _, x := range []struct {
			v   float64
			dst *[]float64
		}{{m.kappa(), &ks}, {m.alpha(), &as}, {m.diff(), &ds}} {
			if !math.IsNaN(x.v) {
				*x.dst = append(*x.dst, x.v)
			}
		}
	}
	out.Kappa.Lo, out.Kappa.Hi = percentileInterval(ks, confidence)
	out.Alpha.Lo, out.Alpha.Hi = percentileInterval(as, confidence)
	out.Diff.Lo, out.Diff.Hi = percentileInterval(ds, confidence)
	return out, nil
}

// streamJudges is CompareJudges' stream.
const streamJudges = 0x6a75646765737321 // "judges!!"

// groupRows lists the rows of each cluster, clusters in order of first
// appearance.
func groupRows(cluster []int) [][]int {
	at := map[int]int{}
	var groups [][]int
	for i, c := range cluster {
		g, ok := at[c]
		if !ok {
			g = len(groups)
			at[c] = g
			groups = append(groups, nil)
		}
		groups[g] = append(groups[g], i)
	}
	return groups
}

// RoganGladen is the true rate behind an observed rate p of a test with
// sensitivity se and specificity sp: (p + sp − 1)/(se + sp − 1), clipped
// to [0, 1]; NaN when se + sp = 1 (a test no better than chance).
func RoganGladen(p, se, sp float64) float64 {
	d := se + sp - 1
	if d == 0 {
		return math.NaN()
	}
	return math.Min(1, math.Max(0, (p+sp-1)/d))
}

// JudgeVsHuman is a 0/1 judge checked against human labels on the audits
// both judged, and the judge's rate over every audit it judged corrected
// for its errors.
type JudgeVsHuman struct {
	Labelled             int // audits with both a human label and a verdict
	TP, FP, FN, TN       int // judge against human, the human's label the truth
	Sensitivity, Spec    Estimate
	Observed, Corrected  Estimate // the judge's rate on every audit; Rogan–Gladen's
	Judged, JudgedGroups int
}

// CheckJudge compares a judge's 0/1 verdicts with human labels: judge and
// jcluster are the judge's verdicts on every audit it judged and their
// seeds; lj, lh and lcluster the judge's verdicts, the humans' labels and
// the seeds of the labelled audits. Intervals resample the clusters of
// both sets together (the labelled audits' and all audits' seeds
// independently: the labels are a subset, but their errors are what is
// uncertain in the correction).
func CheckJudge(judge []bool, jcluster []int, lj, lh []bool, lcluster []int, resamples int, confidence float64, seed uint64) (JudgeVsHuman, error) {
	if len(judge) != len(jcluster) || len(lj) != len(lh) || len(lj) != len(lcluster) {
		return JudgeVsHuman{}, errors.New("analysis: CheckJudge: lengths differ")
	}
	out := JudgeVsHuman{Labelled: len(lj), Judged: len(judge)}
	for i := range lj {
		switch {
		case lj[i] && lh[i]:
			out.TP++
		case lj[i] && !lh[i]:
			out.FP++
		case !lj[i] && lh[i]:
			out.FN++
		default:
			out.TN++
		}
	}
	jg, lg := groupRows(jcluster), groupRows(lcluster)
	out.JudgedGroups = len(jg)
	if len(judge) == 0 || len(lj) == 0 {
		out.Sensitivity, out.Spec, out.Observed, out.Corrected = nanEstimate(), nanEstimate(), nanEstimate(), nanEstimate()
		return out, nil
	}
	if err := checkBootstrapArgs("CheckJudge", resamples, confidence); err != nil {
		return out, err
	}
	// Per cluster: the judge's yes and all on every audit; the confusion
	// counts on the labelled ones. A resample sums its clusters' counts.
	type rate struct{ k, n float64 }
	type conf struct{ tp, fn, tn, fp float64 }
	jr := make([]rate, len(jg))
	for g, rows := range jg {
		for _, i := range rows {
			jr[g].n++
			if judge[i] {
				jr[g].k++
			}
		}
	}
	lc := make([]conf, len(lg))
	for g, rows := range lg {
		for _, i := range rows {
			switch {
			case lh[i] && lj[i]:
				lc[g].tp++
			case lh[i]:
				lc[g].fn++
			case lj[i]:
				lc[g].fp++
			default:
				lc[g].tn++
			}
		}
	}
	estimate := func(r rate, c conf) (p, se, sp, rg float64) {
		p, se, sp = r.k/r.n, c.tp/(c.tp+c.fn), c.tn/(c.tn+c.fp)
		return p, se, sp, RoganGladen(p, se, sp)
	}
	var r0 rate
	for _, r := range jr {
		r0.k, r0.n = r0.k+r.k, r0.n+r.n
	}
	var c0 conf
	for _, c := range lc {
		c0.tp, c0.fn, c0.tn, c0.fp = c0.tp+c.tp, c0.fn+c.fn, c0.tn+c.tn, c0.fp+c.fp
	}
	p, se, sp, rg := estimate(r0, c0)
	out.Observed, out.Sensitivity, out.Spec, out.Corrected = Estimate{Value: p}, Estimate{Value: se}, Estimate{Value: sp}, Estimate{Value: rg}
	// Both sets are resampled together, each of its own size: the labels
	// are a sample of their own, and the correction's uncertainty is theirs
	// as much as the rate's.
	rng := newRand(seed, streamRoganGladen)
	vals := make([][]float64, 4)
	for range resamples {
		var r rate
		for range jg {
			x := jr[rng.IntN(len(jg))]
			r.k, r.n = r.k+x.k, r.n+x.n
		}
		var c conf
		for range lg {
			x := lc[rng.IntN(len(lg))]
			c.tp, c.fn, c.tn, c.fp = c.tp+x.tp, c.fn+x.fn, c.tn+x.tn, c.fp+x.fp
		}
		p, se, sp, rg := estimate(r, c)
		for i, v := range []float64{p, se, sp, rg} {
			if !math.IsNaN(v) {
				vals[i] = append(vals[i], v)
			}
		}
	}
	for i, e := range []*Estimate{&out.Observed, &out.Sensitivity, &out.Spec, &out.Corrected} {
		e.Lo, e.Hi = percentileInterval(vals[i], confidence)
	}
	return out, nil
}

// streamRoganGladen is CheckJudge's corrected rate's stream.
const streamRoganGladen = 0x726f67616e676c61 // "roganglA"
