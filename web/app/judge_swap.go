package app

import (
	"context"
	"math"
	"slices"

	"github.com/auditscope/auditscope/analysis"
	"github.com/auditscope/auditscope/analysis/experiment"
	"github.com/auditscope/auditscope/data/model"
)

// A judge swap (issue #51) recomputes a comparison under every other judge
// that gave outcomes, so that each difference can be read against them:
// does it hold (the same sign, an interval that excludes 0) whoever judged?

// Under is a comparison's result under one judge.
type Under struct {
	Judge string // "" is the evaluation judge
	Comps []experiment.Comparison
}

// The readings of a difference under a judge, against the one the page
// shows (Holds).
const (
	SwapHolds      = "holds"           // interval excludes 0, same sign
	SwapReverses   = "reverses"        // interval excludes 0, the other sign
	SwapUnclear    = "not significant" // interval includes 0
	SwapNoData     = "no data"         // the judge scored neither side's units
	SwapNoBaseline = "no difference"   // the page's own difference has no sign
	// SwapSame is realism's: its judgments are the realism judge's
	// whoever scores the audits, so a swap of the audits' judge leaves it.
	SwapSame = "the same realism judgments"
)

// JudgeSwap compares a with each of bs under every judge of the experiment
// with outcomes other than st's own (the evaluation judge included when st
// is another's), in the order: evaluation judge, then the others by name.
// Each is computed as Compare computes st's (the same units, resamples and
// seeds) and kept the same way.
func (s *Service) JudgeSwap(ctx context.Context, st *ExperimentStats, a string, bs []string) ([]Under, error) {
	if a == "" || len(bs) == 0 {
		return nil, nil
	}
	var out []Under
	for _, j := range append([]string{""}, st.Judges...) {
		if j == st.Judge {
			continue
		}
		audits, err := s.auditsUnder(ctx, st, j)
		if err != nil {
			return nil, err
		}
		cs, err := s.compareOn(ctx, statsKey(st.Exp.ID, st.Version, j), st.Exp.ID, audits, st.Realism, a, bs)
		if err != nil {
			return nil, err
		}
		out = append(out, Under{Judge: j, Comps: cs})
	}
	return out, nil
}

// auditsUnder are the outcome rows under judge, of st's version: the
// statistics' own when they were computed under it, else read once per
// data version.
func (s *Service) auditsUnder(ctx context.Context, st *ExperimentStats, judge string) ([]model.EvalAudit, error) {
	if judge == st.Judge {
		return st.Audits, nil
	}
	if judge == "" {
		eval, err := s.statsUnder(ctx, st.Exp.ID, "")
		if err != nil {
			return nil, err
		}
		return eval.Audits, nil
	}
	return kept(ctx, s, "outcomes\x00"+st.Exp.ID+"\x00"+judge, func(ctx context.Context) ([]model.EvalAudit, error) {
		return s.r.EvalAuditsUnder(ctx, st.Exp.ID, judge)
	})
}

// Swap reads difference d (the page's) against the same row under another
// judge, o.
func Swap(d, o experiment.Diff) string {
	sign := func(x float64) int {
		switch {
		case x > 0:
			return 1
		case x < 0:
			return -1
		}
		return 0
	}
	switch {
	case d.Dimension == experiment.Realism:
		return SwapSame
	case math.IsNaN(o.Value):
		return SwapNoData
	case math.IsNaN(d.Value) || d.Value == 0:
		return SwapNoBaseline
	case !(o.Lo > 0 || o.Hi < 0):
		return SwapUnclear
	case sign(o.Value) == sign(d.Value):
		return SwapHolds
	}
	return SwapReverses
}

// SwapCount counts the judges (the page's own included) that scored a
// row, and those of them under which its difference holds: an interval
// that excludes 0, on the side of the page's estimate.
func SwapCount(d experiment.Diff, others []experiment.Diff) (holds, judged int) {
	if math.IsNaN(d.Value) {
		return 0, 0
	}
	judged++
	if d.Lo > 0 || d.Hi < 0 {
		holds++
	}
	for _, o := range others {
		switch Swap(d, o) {
		case SwapNoData, SwapSame:
		case SwapHolds:
			judged, holds = judged+1, holds+1
		default:
			judged++
		}
	}
	return holds, judged
}

// DiffOf is the row dim of the comparison of a with b in cs, NaN when
// there is none.
func DiffOf(cs []experiment.Comparison, b, dim string) experiment.Diff {
	i := slices.IndexFunc(cs, func(c experiment.Comparison) bool { return c.B == b })
	if i >= 0 {
		if k := slices.IndexFunc(cs[i].Diffs, func(d experiment.Diff) bool { return d.Dimension == dim }); k >= 0 {
			return cs[i].Diffs[k]
		}
	}
	nan := math.NaN()
	return experiment.Diff{Dimension: dim, Estimate: analysis.Estimate{Value: nan, Lo: nan, Hi: nan}, P: nan, PHolm: nan}
}
