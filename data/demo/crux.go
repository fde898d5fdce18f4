package demo

import (
	"math"

	"github.com/auditscope/auditscope/data/bundle"
	"github.com/auditscope/auditscope/data/model"
)

const cruxN = 750 // 75 cruxes × 10 rollouts

// crux returns one crux row per checkpoint and one for the base auditor.
// The features are linear in the checkpoint's dimension scores (relative to
// the base auditor) plus noise, sized so that regressing the dimensions on
// the 8 features gives R² roughly like the paper's (realism highest,
// FP calibration lowest).
func (g *gen) crux() []bundle.Crux {
	r := g.rng(0xc0c)
	base := g.byID[baseAuditor]
	var out []bundle.Crux
	for _, au := range g.auditors {
		if au.Kind != model.AuditorCheckpoint && au != base {
			continue
		}
		d := au.adj
		a := (d.AQ - base.adj.AQ) / 10
		f := (d.FP - base.adj.FP) / 50
		p := (d.PV - base.adj.PV) / 8
		re := (d.RE - base.adj.RE) / 4
		n := func(sd float64) float64 {
			if au == base {
				return 0
			}
			return sd * r.NormFloat64()
		}
		binary := 0.0
		if au.run != nil && au.run.reward == rewardBinary {
			binary = 0.08 // in-distribution optimisation of the target-focused judge
		}
		tf := 0.351 + 0.03*a + 0.09*p + 0.04*re + binary + n(0.03)
		av := 0.80 + 0.01*a + 0.04*p + 0.02*re + n(0.02)
		pw := 0.50 + 0.02*a + 0.06*re + 0.03*p + n(0.045)
		pl := 0.42 - 0.75*(pw-0.5) + n(0.03)
		c := bundle.Crux{
			Auditor:       au.ID,
			N:             cruxN,
			TargetFocused: float64(rateK(tf)) / cruxN,
			AuditorView:   float64(rateK(av)) / cruxN,
			PairwiseWin:   float64(rateK(pw)) / cruxN,
			PairwiseLoss:  float64(min(rateK(pl), cruxN-rateK(pw))) / cruxN,
			DSignal:       delta(0.02*a + 0.10*p + n(0.04)),
			DCraft:        delta(0.04*a + 0.02*re + 0.03*f + n(0.08)),
			DRealism:      delta(0.09*re + n(0.05)),
			DEvidence:     delta(0.02*a + 0.09*p + n(0.06)),
		}
		out = append(out, c)
	}
	return out
}

// rateK is a rate as a count out of 750, inside [0, 750].
func rateK(x float64) int { return iround(clamp(x, 0, 1) * cruxN) }

func delta(x float64) float64 { return math.Round(clamp(x, -1, 1)*1000) / 1000 }
