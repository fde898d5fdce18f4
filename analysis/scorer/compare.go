package scorer

import (
	"fmt"
	"math"
	"slices"

	"github.com/auditscope/auditscope/analysis"
)

// Comparing two models (or any two sides) of one task sample by sample.

// SampleValue is one scorer value of one sample record: a model's answer to
// one sample of one task in one epoch, as value_to_float read it.
type SampleValue struct {
	Audit  string // the record's id (its page)
	Side   string // the model, or whatever the comparison's sides are
	Task   string
	Sample string // the sample's id in its task
	Scorer string
	Key    string // for a scorer whose value is a dictionary
	// Run is the log the record came from: a side's records of one sample
	// from two logs are two runs, each reduced over its epochs first.
	Run   string
	Value float64
}

// MetricName names one scorer's value: "match", or "scorer/key".
func MetricName(scorer, key string) string {
	if key == "" {
		return scorer
	}
	return scorer + "/" + key
}

// Diff is one scorer metric of side A against side B: the mean difference
// A − B over the samples both have, in the scorer's own units, with a 95%
// interval and a p-value from one method.
type Diff struct {
	Metric string // MetricName(scorer, key)
	analysis.Estimate
	P, PHolm float64 // PHolm: Holm over the comparison's metrics
	// NA and NB are the samples each side has, Pairs those both have and
	// the test paired; OnlyA and OnlyB the discordant pairs of a 0/1 metric.
	NA, NB, Pairs, OnlyA, OnlyB int
	Binary                      bool // every sample's value is 0 or 1
	// RunsA and RunsB are the most runs (logs) one sample of a side came
	// from: above 1, its runs were averaged run by run, not as epochs.
	RunsA, RunsB int
	Method       string
}

// Unit is one sample of a comparison: each side's records of it.
type Unit struct {
	Task, Sample string
	A, B         Side
	Paired       bool
	Diff         float64 // A.Value − B.Value when paired, else NaN
	Binary       bool
}

// Side is one side's records of a sample: the records' ids, values (one
// per epoch of each run) and runs, and the value they reduce to: each
// run's epochs averaged, as Inspect's default reducer does, then the runs
// averaged (NaN when the side has no record of the sample). Two logs of
// one model are two runs: pooled as epochs, a run of 5 epochs would weigh
// five times one of 1.
type Side struct {
	Audits []string
	Values []float64
	Runs   []string // Runs[i] is Values[i]'s
	Value  float64
}

// RunCount is how many runs the side's records come from.
func (s Side) RunCount() int {
	seen := map[string]bool{}
	for _, r := range s.Runs {
		seen[r] = true
	}
	return len(seen)
}

// reduce is the side's value: each run's mean, then their mean.
func (s Side) reduce() float64 {
	type acc struct {
		sum float64
		n   int
	}
	var order []string
	by := map[string]*acc{}
	for i, x := range s.Values {
		a := by[s.Runs[i]]
		if a == nil {
			a = &acc{}
			by[s.Runs[i]] = a
			order = append(order, s.Runs[i])
		}
		a.sum += x
		a.n++
	}
	total := 0.0
	for _, r := range order {
		total += by[r].sum / float64(by[r].n)
	}
	return total / float64(len(order))
}

// Has reports whether the side has the sample.
func (s Side) Has() bool { return len(s.Audits) > 0 }

// Compare compares sides a and b on every metric the values hold, sample by
// sample: a sample's epochs are reduced to their mean first, and the
// samples both sides have are paired. A metric whose reduced values are all
// 0 or 1 gets the exact McNemar test with its Clopper–Pearson interval (the
// difference of the two accuracies over the pairs); any other the paired t
// test; with no pair (or, for t, fewer than two) Welch's t on each side's
// samples. PHolm adjusts the metrics' p-values together (one family: the
// page's rows). Metrics are in name order.
func Compare(a, b string, vals []SampleValue) ([]Diff, error) {
	if a == b {
		return nil, fmt.Errorf("scorer: Compare: a side against itself (%q)", a)
	}
	var out []Diff
	for _, m := range Metrics(vals) {
		units := Units(a, b, m, vals)
		d, err := diff(m, units)
		if err != nil {
			return nil, err
		}
		out = append(out, d)
	}
	ps := make([]float64, len(out))
	for i, d := range out {
		ps[i] = d.P
	}
	for i, p := range analysis.Holm(ps) {
		out[i].PHolm = p
	}
	return out, nil
}

// Metrics lists the metrics the values hold, in name order.
func Metrics(vals []SampleValue) []string {
	seen := map[string]bool{}
	var out []string
	for _, v := range vals {
		if m := MetricName(v.Scorer, v.Key); !seen[m] {
			seen[m] = true
			out = append(out, m)
		}
	}
	slices.Sort(out)
	return out
}

// Units are the samples behind one metric of Compare(a, b): A's in the
// order read, then those only B has, each paired when both sides have it.
// Binary marks them all when every reduced value of either side is 0 or 1.
func Units(a, b, metric string, vals []SampleValue) []Unit {
	type key struct{ task, sample string }
	var order []key
	units := map[key]*Unit{}
	for _, side := range []string{a, b} {
		for _, v := range vals {
			if v.Side != side || MetricName(v.Scorer, v.Key) != metric {
				continue
			}
			k := key{v.Task, v.Sample}
			u := units[k]
			if u == nil {
				u = &Unit{Task: v.Task, Sample: v.Sample}
				units[k] = u
				order = append(order, k)
			}
			s := &u.A
			if side == b {
				s = &u.B
			}
			s.Audits = append(s.Audits, v.Audit)
			s.Values = append(s.Values, v.Value)
			s.Runs = append(s.Runs, v.Run)
		}
	}
	out := make([]Unit, len(order))
	binary := true
	for i, k := range order {
		u := units[k]
		for _, s := range []*Side{&u.A, &u.B} {
			s.Value = math.NaN()
			if s.Has() {
				s.Value = s.reduce()
				binary = binary && (s.Value == 0 || s.Value == 1)
			}
		}
		u.Diff = math.NaN()
		if u.A.Has() && u.B.Has() {
			u.Paired, u.Diff = true, u.A.Value-u.B.Value
		}
		out[i] = *u
	}
	shared := 0
	for i := range out {
		out[i].Binary = binary
		if out[i].Paired {
			shared++
		}
	}
	if !binary && shared < 2 { // Welch's t: nothing is paired
		for i := range out {
			out[i].Paired, out[i].Diff = false, math.NaN()
		}
	}
	return out
}

// diff tests one metric's units (Compare).
func diff(metric string, units []Unit) (Diff, error) {
	d := Diff{Metric: metric, Estimate: analysis.Estimate{Value: math.NaN(), Lo: math.NaN(), Hi: math.NaN()}, P: math.NaN(), PHolm: math.NaN()}
	var pa, pb, alla, allb []float64
	for _, u := range units {
		d.Binary = u.Binary
		d.RunsA, d.RunsB = max(d.RunsA, u.A.RunCount()), max(d.RunsB, u.B.RunCount())
		if u.A.Has() {
			d.NA++
			alla = append(alla, u.A.Value)
		}
		if u.B.Has() {
			d.NB++
			allb = append(allb, u.B.Value)
		}
		if u.Paired {
			pa, pb = append(pa, u.A.Value), append(pb, u.B.Value)
			switch {
			case u.Diff > 0:
				d.OnlyA++
			case u.Diff < 0:
				d.OnlyB++
			}
		}
	}
	if !d.Binary {
		d.OnlyA, d.OnlyB = 0, 0
	}
	switch {
	case d.Binary && len(pa) > 0:
		both := 0
		for i := range pa {
			if pa[i] == 1 && pb[i] == 1 {
				both++
			}
		}
		e, p, err := analysis.PairedRateDiff(both, d.OnlyA, d.OnlyB, len(pa)-both-d.OnlyA-d.OnlyB, 0.95)
		if err != nil {
			return d, err
		}
		d.Estimate, d.P, d.Pairs = e, p, len(pa)
		d.Method = fmt.Sprintf("%s, over the %s both have (1 for both on %d, for A only on %d, for B only on %d)", analysis.PairedRateMethod, samples(len(pa)), both, d.OnlyA, d.OnlyB)
	case !d.Binary && len(pa) >= 2:
		e, p, err := analysis.PairedT(pa, pb, 0.95)
		if err != nil {
			return d, err
		}
		d.Estimate, d.P, d.Pairs = e, p, len(pa)
		d.Method = fmt.Sprintf("paired t over the %s both have, each sample's epochs reduced to their mean", samples(len(pa)))
	case len(alla) >= 2 && len(allb) >= 2:
		e, p, err := analysis.WelchT(alla, allb, 0.95)
		if err != nil {
			return d, err
		}
		d.Estimate, d.P = e, p
		d.Method = "Welch's t, independent samples (fewer than two samples both have)"
		if d.Binary {
			d.Method = "Welch's t, independent samples (no sample both have)"
		}
	}
	if max(d.RunsA, d.RunsB) > 1 {
		if d.Method == "" {
			d.Method = "no test (too few samples)"
		}
		d.Method += fmt.Sprintf("; a sample's records come from up to %d runs (logs) for A and %d for B: each run's epochs averaged first, then the runs, never pooled as epochs", d.RunsA, d.RunsB)
	}
	return d, nil
}

func samples(n int) string {
	if n == 1 {
		return "1 sample"
	}
	return fmt.Sprintf("%d samples", n)
}

// ByDifference orders units by the size of their difference, largest
// first; unpaired units last, in their order.
func ByDifference(us []Unit) { analysis.ByAbs(us, func(u Unit) float64 { return u.Diff }) }
