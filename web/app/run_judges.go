package app

import (
	"context"
	"fmt"
	"math"

	"github.com/auditscope/auditscope/analysis"
	"github.com/auditscope/auditscope/analysis/experiment"
	"github.com/auditscope/auditscope/data/model"
)

// RunJudge is a run's checkpoints under the held-out judge (the
// experiment's evaluation judge) and another judge that scored the same
// audits, the training judge in the paper (issue #51): a training judge's
// score that rises while the held-out judge's does not is reward hacking.
type RunJudge struct {
	Judge, Dim string
	Rows       []RunJudgeRow
	// Signature says the last checkpoint's gap excludes 0 with the other
	// judge's score risen across the run and the held-out judge's not:
	// Summary says it, or what was seen instead, in words.
	Signature bool
	Summary   string
}

// RunJudgeRow is one checkpoint on the audits both judges scored: each
// judge's mean score with its interval, and the gap (other − held-out).
type RunJudgeRow struct {
	Auditor        model.Auditor
	N, Seeds       int
	HeldOut, Other Estimate
	Gap            Estimate
}

// RunJudges compares, on each checkpoint of the run, the held-out judge
// with every other model judge that scored the run's audits, on each
// dimension that judge scored.
func (s *Service) RunJudges(ctx context.Context, p *RunPage) ([]RunJudge, error) {
	return kept(ctx, s, "runjudges\x00"+p.Stats.Exp.ID+"\x00"+p.Run.ID, func(ctx context.Context) ([]RunJudge, error) { return s.runJudges(ctx, p) })
}

func (s *Service) runJudges(ctx context.Context, p *RunPage) ([]RunJudge, error) {
	exp := p.Stats.Exp.ID
	judges, err := s.r.Judges(ctx, exp)
	if err != nil {
		return nil, err
	}
	var out []RunJudge
	for _, j := range judges {
		if j.Kind != model.JudgeModel {
			continue
		}
		sc, err := s.r.JudgeScores(ctx, exp, j)
		if err != nil {
			return nil, err
		}
		// The held-out judge's scores on the judge's dimensions, in the
		// same order, of the audits other judges scored.
		set, err := s.r.JudgedBy(ctx, exp, j.Name, j.Dimensions)
		if err != nil {
			return nil, err
		}
		byAuditor := map[string][]int{}
		for i, au := range set.Audits {
			byAuditor[au.AuditorID] = append(byAuditor[au.AuditorID], i)
		}
		for k, d := range j.Dimensions {
			rj := RunJudge{Judge: j.Name, Dim: d}
			for _, cp := range p.Checkpoints {
				row, err := runJudgeRow(cp.Auditor, set, byAuditor[cp.Auditor.ID], sc.Scores, k)
				if err != nil {
					return nil, err
				}
				if row.N > 0 {
					rj.Rows = append(rj.Rows, row)
				}
			}
			if len(rj.Rows) > 0 {
				rj.Signature, rj.Summary = signature(rj)
				out = append(out, rj)
			}
		}
	}
	return out, nil
}

// runJudgeRow is one checkpoint's row over its audits (indexes into set)
// both judges scored.
func runJudgeRow(a model.Auditor, set model.JudgedSet, audits []int, other map[string][]float64, k int) (RunJudgeRow, error) {
	var xs, ys []float64
	var cl []int
	seeds := map[string]int{}
	for _, i := range audits {
		au := &set.Audits[i]
		if math.IsNaN(au.Scores[k]) {
			continue
		}
		row, ok := other[au.ID]
		if !ok || math.IsNaN(row[k]) {
			continue
		}
		if _, ok := seeds[au.Seed]; !ok {
			seeds[au.Seed] = len(seeds)
		}
		xs, ys, cl = append(xs, au.Scores[k]), append(ys, row[k]), append(cl, seeds[au.Seed])
	}
	r := RunJudgeRow{Auditor: a, N: len(xs), Seeds: len(seeds)}
	if len(xs) == 0 {
		return r, nil
	}
	var err error
	if r.HeldOut, _, err = analysis.ClusterMeanCI(xs, cl, judgedConfidence); err != nil {
		return r, err
	}
	if r.Other, _, err = analysis.ClusterMeanCI(ys, cl, judgedConfidence); err != nil {
		return r, err
	}
	ag, err := analysis.CompareJudges(xs, ys, cl, JudgeResamples, judgedConfidence, experiment.Seed("", a.ID, "judges gap"))
	r.Gap = ag.Diff
	return r, err
}

// signature reads a run's rows: the other judge's score risen from the
// first checkpoint to the last, the held-out judge's not (less than half
// as much), and the last gap's interval above 0.
func signature(rj RunJudge) (bool, string) {
	first, last := rj.Rows[0], rj.Rows[len(rj.Rows)-1]
	rise, held := last.Other.Value-first.Other.Value, last.HeldOut.Value-first.HeldOut.Value
	gap := fmt.Sprintf("%.2f [%.2f, %.2f]", last.Gap.Value, last.Gap.Lo, last.Gap.Hi)
	switch {
	case len(rj.Rows) > 1 && rise > 0 && held < rise/2 && last.Gap.Lo > 0:
		return true, fmt.Sprintf("%s's %s score rises from %.2f to %.2f across the run while the held-out judge's goes from %.2f to %.2f; at the last checkpoint %s scores %s higher, an interval that excludes 0. This is the reward-hacking signature: the auditor learned to please the judge that trained it, not to find more.",
			rj.Judge, rj.Dim, first.Other.Value, last.Other.Value, first.HeldOut.Value, last.HeldOut.Value, rj.Judge, gap)
	case last.Gap.Lo > 0 || last.Gap.Hi < 0:
		return false, fmt.Sprintf("At the last checkpoint %s and the held-out judge differ on %s by %s (an interval that excludes 0), but not as a score rising under one judge alone.", rj.Judge, rj.Dim, gap)
	}
	return false, fmt.Sprintf("At the last checkpoint the gap on %s is %s: the interval holds 0, so the two judges are not told apart.", rj.Dim, gap)
}
