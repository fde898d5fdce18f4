package demo

import (
	"math"

	"github.com/auditscope/auditscope/data/bundle"
)

// metrics returns each run's training curves every 10 steps: reward,
// mean_concerningness (judge score 1–10 per transcript), realism (judge
// scenario realism 1–10) and penalty.
func (g *gen) metrics() []bundle.Metric {
	r := g.rng(0x3e7)
	out := make([]bundle.Metric, 0, len(runs)*4*metricLastStep/metricEvery)
	for ri := range runs {
		run := &runs[ri]
		for step := metricEvery; step <= metricLastStep; step += metricEvery {
			x := float64(step) / metricLastStep // 0..1 over training
			rise := 1 / (1 + math.Exp(-8*(x-0.4)))
			var reward, conc, real, pen float64
			switch run.reward {
			case rewardBinary:
				reward = 0.35 + 0.45*rise + 0.03*r.NormFloat64()
				conc = 2.1 + 1.4*rise + 0.12*r.NormFloat64()
				real = 6.6 - 2.4*rise + 0.15*r.NormFloat64()
				pen = 0.04 + 0.14*rise + 0.01*r.NormFloat64()
			case rewardIntragroup:
				// The mean within-group win rate is 0.5 by construction.
				reward = 0.5 + 0.01*r.NormFloat64()
				conc = 2.1 + (1-run.cal*2)*0.9*rise + 0.1*r.NormFloat64()
				real = 6.8 + 0.5*rise + 0.15*r.NormFloat64()
				pen = 0.03 + 0.01*r.NormFloat64()
			case rewardReference:
				// Win rate against a cached reference: it climbs until the
				// reference is refreshed from the current policy, then drops.
				since := float64(step)
				if run.refresh > 0 {
					since = float64(step - (step-1)/run.refresh*run.refresh)
				}
				reward = 0.5 + 0.3*(1-math.Exp(-since/60)) + 0.02*r.NormFloat64()
				conc = 2.1 + (1-run.cal*2)*0.6*rise + 0.1*r.NormFloat64()
				real = 6.9 + 0.6*rise + 0.15*r.NormFloat64()
				pen = 0.03 + 0.01*r.NormFloat64()
			default: // concerningness RL
				reward = -0.01 + 0.33*rise + 0.02*r.NormFloat64()
				conc = 2.0 + 3.0*rise + 0.15*r.NormFloat64()
				real = 7.2 - 1.5*math.Exp(-float64(step)/40) + 0.12*r.NormFloat64()
				pen = 0.03 + 0.015*r.NormFloat64()
			}
			out = append(out,
				bundle.Metric{Run: run.id, Step: step, Name: "reward", Value: round3(reward)},
				bundle.Metric{Run: run.id, Step: step, Name: "mean_concerningness", Value: round3(clamp(conc, 1, 10))},
				bundle.Metric{Run: run.id, Step: step, Name: "realism", Value: round3(clamp(real, 1, 10))},
				bundle.Metric{Run: run.id, Step: step, Name: "penalty", Value: round3(math.Max(0, pen))},
			)
		}
	}
	return out
}

func round3(x float64) float64 { return math.Round(x*1000) / 1000 }
