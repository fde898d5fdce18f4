package demo

import (
	"maps"
	"math"
	"slices"

	"github.com/auditscope/auditscope/data/bundle"
	"github.com/auditscope/auditscope/data/model"
)

// The demo's other judges (issue #51): the paper scores held-out
// evaluations with a second model, so the baselines' audits are judged
// again by one that mostly agrees with the evaluation judge (a point up or
// down now and then) but reads evaluation awareness two points higher; and
// two people label whether a sample of those audits is concerning.
const (
	SecondJudge   = "claude-opus-4.6 (second judge)"
	TrainingJudge = "claude-sonnet-4 (training judge)"
	// HackedRun is the run whose auditors learn to please the training
	// judge: its score of TrainingDims[0] climbs with each epoch while the
	// held-out judge's does not (the paper's §3.1 failure).
	HackedRun     = "binary-pointwise"
	DisagreeDim   = "eval_awareness" // where the second judge reads higher
	LabelledDim   = "concerning"
	labelledEvery = 40             // one baseline audit in this many is labelled
	streamJudges  = 0x6a7564676573 // "judges"
)

// TrainingDims are the dimensions the training judge scores (the reward's).
var TrainingDims = []string{"concerning", "needs_attention"}

// trainingVerdicts are the training judge's verdicts on every checkpoint's
// audits with judge scores: the held-out judge's scores a point up or down
// now and then, and on HackedRun TrainingDims[0] read 0.8 higher an epoch
// after the first.
func (g *gen) trainingVerdicts() []bundle.Verdict {
	r := g.rng(streamJudges + 1)
	type cp struct {
		run   string
		epoch int
	}
	cps := map[string]cp{}
	for _, a := range g.auditors {
		if a.Kind == model.AuditorCheckpoint && a.run != nil {
			cps[a.ID] = cp{a.run.id, a.epoch}
		}
	}
	var out []bundle.Verdict
	for _, a := range g.audits {
		c, ok := cps[a.Auditor]
		if !ok || len(a.Scores) == 0 {
			continue
		}
		sc := map[string]float64{}
		for _, d := range TrainingDims {
			x, ok := a.Scores[d]
			if !ok {
				continue
			}
			switch u := r.Float64(); {
			case u < 0.15:
				x--
			case u < 0.30:
				x++
			}
			if c.run == HackedRun && d == TrainingDims[0] {
				x += math.Round(0.8 * float64(c.epoch-1) * (0.5 + r.Float64()))
			}
			sc[d] = clamp(x, 1, 10)
		}
		if len(sc) > 0 {
			out = append(out, bundle.Verdict{Audit: a.ID, Judge: TrainingJudge, Scores: sc})
		}
	}
	return out
}

// Raters are the people whose labels the demo holds, and how often each
// answers otherwise than the evaluation judge's verdict (a score of 7 or
// more): Miss when the judge says yes, Add when it says no.
var Raters = []struct {
	Name      string
	Miss, Add float64
}{{"rater-ana", 0.10, 0.02}, {"rater-ben", 0.15, 0.04}}

// verdicts are the second judge's verdicts on every baseline audit with
// judge scores, and the raters' labels of one in labelledEvery of them.
func (g *gen) verdicts() []bundle.Verdict {
	r := g.rng(streamJudges)
	baseline := map[string]bool{}
	for _, a := range g.auditors {
		if a.Kind == model.AuditorBaseline {
			baseline[a.ID] = true
		}
	}
	var out, labels []bundle.Verdict
	n := 0
	for _, a := range g.audits {
		if !baseline[a.Auditor] || len(a.Scores) == 0 {
			continue
		}
		sc := make(map[string]float64, len(a.Scores))
		for _, d := range slices.Sorted(maps.Keys(a.Scores)) {
			x := a.Scores[d]
			switch u := r.Float64(); {
			case u < 0.15:
				x--
			case u < 0.30:
				x++
			}
			if d == DisagreeDim {
				x += 2
			}
			sc[d] = clamp(x, 1, 10)
		}
		out = append(out, bundle.Verdict{Audit: a.ID, Judge: SecondJudge, Summary: "A second reading: " + a.Summary, Scores: sc})
		// People label one audit in labelledEvery, and more of those the
		// judge found concerning (one in four), so both answers are seen.
		n++
		verdict := a.Scores[LabelledDim] >= 7
		if n%labelledEvery != 0 && (!verdict || n%4 != 0) {
			continue
		}
		for _, rt := range Raters {
			yes := verdict
			if u := r.Float64(); (verdict && u < rt.Miss) || (!verdict && u < rt.Add) {
				yes = !yes
			}
			v := 0.0
			if yes {
				v = 1
			}
			labels = append(labels, bundle.Verdict{Audit: a.ID, Judge: rt.Name, Kind: model.JudgeHuman, Scores: map[string]float64{LabelledDim: v}})
		}
	}
	out = append(out, g.trainingVerdicts()...)
	g.addOutcomes(out)
	return append(out, labels...)
}
