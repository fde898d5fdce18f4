package demo

import (
	"math"

	"github.com/auditscope/auditscope/data/bundle"
)

// The other judges' readings of the outcomes (issue #51), drawn from their
// own streams so that the verdicts' scores stay as they were. The second
// judge reads quality and production value a few points apart from the
// evaluation judge and now and then calls a detection or a false positive
// otherwise: most differences between baselines survive it, the close
// ones may not. The training judge reads the checkpoints' audit quality
// the same way, and on HackedRun it reads it higher with each epoch: the
// paper's auditors learning to please the judge that trains them, which a
// comparison of its epochs under the held-out judge does not bear out.
const (
	outcomeNoise     = 6.0 // points of quality or production value, 1 SD
	outcomeFlip      = 0.05
	hackedQualityGap = 15.0 // points a HackedRun epoch after the first
)

// readOutcome is judge r's reading of outcome o: values moved by noise,
// 0/1 outcomes flipped now and then, bias points added to quality.
func readOutcome(r interface {
	Float64() float64
	NormFloat64() float64
}, o bundle.Outcome, bias float64) *bundle.Outcome {
	out := &bundle.Outcome{}
	move := func(p *float64, by float64) *float64 {
		if p == nil {
			return nil
		}
		return ptr(math.Round(clamp(*p+by+outcomeNoise*r.NormFloat64(), 0, 100)))
	}
	flip := func(p *bool) *bool {
		if p == nil {
			return nil
		}
		return ptr(*p != (r.Float64() < outcomeFlip))
	}
	out.Quality, out.ProductionValue = move(o.Quality, bias), move(o.ProductionValue, 0)
	out.Detected, out.FalsePositive = flip(o.Detected), flip(o.FalsePositive)
	if out.Empty() {
		return nil
	}
	return out
}

// addOutcomes gives the second judge's verdicts (on baseline audits) and
// the training judge's (on checkpoints) their readings of the outcomes.
func (g *gen) addOutcomes(vs []bundle.Verdict) {
	r := g.rng(streamJudges + 2)
	at := make(map[string]int, len(g.audits))
	for i, a := range g.audits {
		at[a.ID] = i
	}
	epoch := map[string]float64{}
	for _, a := range g.auditors {
		if a.run != nil && a.run.id == HackedRun {
			epoch[a.ID] = float64(a.epoch)
		}
	}
	for i := range vs {
		v := &vs[i]
		if v.Judge != SecondJudge && v.Judge != TrainingJudge {
			continue
		}
		a := g.audits[at[v.Audit]]
		bias := 0.0
		if e, ok := epoch[a.Auditor]; ok && v.Judge == TrainingJudge {
			bias = hackedQualityGap * (e - 1)
		}
		v.Outcome = readOutcome(r, a.Outcome, bias)
	}
}
