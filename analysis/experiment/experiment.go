// Package experiment turns an alignment-audit experiment's audits and
// realism judgments into each auditor's evaluation dimensions and detection
// rates (docs/DOMAIN.md): which audits feed which dimension, and the
// statistics of package analysis over them. It is pure Go over plain types:
// the web server fills them from the store and shows the results.
package experiment

import (
	"fmt"
	"hash/fnv"
	"math"

	"github.com/auditscope/auditscope/analysis"
	"github.com/auditscope/auditscope/data/model"
)

// Audit is what the dimensions read of one audit, as the store reads it:
// the same type, so that an experiment's audits (a million of them, 112
// MB) are not copied for each computation that reads them.
type Audit = model.EvalAudit

// RealismJudgment is a realism judgment seen from one auditor's side.
type RealismJudgment struct {
	Auditor      string
	Audit        string // the id of the auditor's audit that was judged
	OtherAuditor string // "" when the other side is a real conversation
	Outcome      string // win, loss or tie from the auditor's side
	// Seed is the production seed of the auditor's audit: the real
	// conversation both sides of a realism comparison are judged against.
	Seed string
}

// Inputs is what one auditor's statistics are computed from.
type Inputs struct {
	analysis.DimensionInput
	STC, Default []bool // AuditBench detections, short-transcript and default
	// The behavior of each Quality, STC and Default value: the unit those
	// audits were drawn in (6 behaviors × 16 seeds for AuditBench), which
	// the intervals cluster by.
	QualityBehavior, STCBehavior, DefaultBehavior []string
}

// Gather sorts audits and realism judgments into each auditor's inputs.
// Audits and judgments of auditors not listed are ignored, as are outcomes
// an audit's eval does not use. Only audit-versus-real realism judgments
// count: a judgment between two audits says nothing about realism.
func Gather(auditors []string, audits []Audit, realism []RealismJudgment) map[string]*Inputs {
	per := make(map[string]*Inputs, len(auditors))
	for _, a := range auditors {
		per[a] = &Inputs{}
	}
	for _, a := range audits {
		x := per[a.Auditor]
		if x == nil {
			continue
		}
		switch {
		case a.Eval == model.EvalAuditQuality && a.Quality != nil:
			x.Quality, x.QualityBehavior = append(x.Quality, *a.Quality), append(x.QualityBehavior, a.Behavior)
		case a.Eval == model.EvalFPCalibration && a.FalsePositive != nil:
			x.FalsePositive = append(x.FalsePositive, *a.FalsePositive)
		case a.Eval == model.EvalProduction && a.ProductionValue != nil:
			x.Production = append(x.Production, analysis.ProductionAudit{Seed: a.Seed, Value: *a.ProductionValue})
		case a.Eval == model.EvalAuditBenchSTC && a.Detected != nil:
			x.STC, x.STCBehavior = append(x.STC, *a.Detected), append(x.STCBehavior, a.Behavior)
		case a.Eval == model.EvalAuditBenchDefault && a.Detected != nil:
			x.Default, x.DefaultBehavior = append(x.Default, *a.Detected), append(x.DefaultBehavior, a.Behavior)
		}
	}
	for _, j := range realism {
		if j.OtherAuditor != "" {
			continue
		}
		if x := per[j.Auditor]; x != nil {
			x.Realism = append(x.Realism, j.Outcome)
		}
	}
	return per
}

// Dimension keys of Scores: each dimension but the composite is named for
// the eval its audits come from.
const (
	AuditQuality      = model.EvalAuditQuality
	FPCalibration     = model.EvalFPCalibration
	Production        = model.EvalProduction
	Realism           = model.EvalRealism
	Composite         = "composite"
	AuditBenchSTC     = model.EvalAuditBenchSTC
	AuditBenchDefault = model.EvalAuditBenchDefault
)

// Scores is one auditor's estimate and sample size per dimension key.
type Scores struct {
	Score map[string]analysis.Estimate
	N     map[string]int
	// Interval names each dimension's interval method, for the tables.
	Interval map[string]string
}

// Interval methods of the dimensions that do not cluster.
const (
	IntervalFP        = "Wilson over audits, mapped to 100 − the rate"
	IntervalProd      = "t over production seeds (each seed's rollouts averaged)"
	IntervalRealism   = "Wilson over judgments (a tie half)"
	IntervalComposite = "percentile bootstrap redrawing each dimension's units"
)

// Score computes an auditor's four dimensions and composite (95% intervals;
// the composite's by a bootstrap of resamples draws from seed) and the
// AuditBench detection rates in percent (Wilson intervals). A rate over no
// audits is NaN.
func Score(in Inputs, resamples int, seed uint64) (Scores, error) {
	d, err := analysis.Dimensions(in.DimensionInput, 0.95, resamples, seed)
	if err != nil {
		return Scores{}, err
	}
	sc := Scores{Score: map[string]analysis.Estimate{}, N: map[string]int{}, Interval: map[string]string{
		AuditQuality: "t over audits", FPCalibration: IntervalFP, Production: IntervalProd, Realism: IntervalRealism, Composite: IntervalComposite}}
	for k, s := range map[string]analysis.DimensionScore{
		AuditQuality: d.AuditQuality, FPCalibration: d.FPCalibration, Production: d.Production,
		Realism: d.Realism, Composite: d.Composite,
	} {
		sc.Score[k], sc.N[k] = s.Estimate, s.N
	}
	// Audit quality's audits come six behaviors at a time: the behavior is
	// the unit a claim about behaviors rests on (its SE is 1.3× the
	// audits' in the demo), as the paper pools standard errors over them.
	if idx, g := clusters(in.QualityBehavior, len(in.Quality)); g >= 2 {
		e, _, err := analysis.ClusterMeanCI(in.Quality, idx, 0.95)
		if err != nil {
			return Scores{}, err
		}
		sc.Score[AuditQuality] = e
		sc.Interval[AuditQuality] = fmt.Sprintf("t clustered by behavior (%d behaviors, %d df)", g, g-1)
	}
	for k, v := range map[string][]bool{AuditBenchSTC: in.STC, AuditBenchDefault: in.Default} {
		est := analysis.Estimate{Value: math.NaN(), Lo: math.NaN(), Hi: math.NaN()}
		sc.Interval[k] = "Wilson over audits"
		if len(v) > 0 {
			var r analysis.Estimate
			var err error
			names := map[string][]string{AuditBenchSTC: in.STCBehavior, AuditBenchDefault: in.DefaultBehavior}[k]
			if idx, g := clusters(names, len(v)); g >= 2 {
				// 16 seeds of each of 6 behaviors: a design effect of 7 to
				// 14 in the demo, so the audits' Wilson interval was 2.6–
				// 3.8 times too narrow for a claim about behaviors.
				r, err = analysis.ClusterWilson(v, idx, 0.95)
				sc.Interval[k] = fmt.Sprintf("Wilson on the effective n, design effect over %d behaviors", g)
			} else {
				r, err = analysis.DetectionRate(v, 0.95)
			}
			if err != nil {
				return Scores{}, err
			}
			est = analysis.Estimate{Value: 100 * r.Value, Lo: 100 * r.Lo, Hi: 100 * r.Hi}
		}
		sc.Score[k], sc.N[k] = est, len(v)
	}
	return sc, nil
}

// clusters numbers the distinct names, in order of first appearance, and
// counts them; names that do not match the n values (absent) are none.
func clusters(names []string, n int) ([]int, int) {
	if len(names) != n {
		return nil, 0
	}
	idx := make([]int, n)
	seen := map[string]int{}
	for i, b := range names {
		j, ok := seen[b]
		if !ok {
			j = len(seen)
			seen[b] = j
		}
		idx[i] = j
	}
	return idx, len(seen)
}

// Seed is the random seed of one auditor's bootstrap of one dimension: a
// hash of the names, so adding, removing or reordering auditors leaves
// every other auditor's interval as it was.
func Seed(exp, auditor, dimension string) uint64 {
	h := fnv.New64a()
	for _, s := range []string{exp, auditor, dimension} {
		h.Write([]byte(s))
		h.Write([]byte{0})
	}
	return h.Sum64()
}

// PairSeed is Seed for a comparison of auditors a and b, the same whichever
// is A: with match's order and compositeDiff's flip, B − A's draws are then
// A − B's, and the one is the other negated.
func PairSeed(exp, a, b, what string) uint64 {
	if b < a {
		a, b = b, a
	}
	return Seed(exp, a+"\x00"+b, what)
}
