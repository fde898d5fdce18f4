package app

import (
	"context"
	"slices"

	"github.com/auditscope/auditscope/analysis"
	"github.com/auditscope/auditscope/analysis/experiment"
	"github.com/auditscope/auditscope/data/model"
)

// The rate pages of an experiment: reference win rates of checkpoints
// (RWR) and AuditBench detection (transfer), with Wilson intervals at 95%.

// confidence is the level of the rate pages' intervals.
const confidence = 0.95

// RWRRow is one auditor's reference win rates: train and held-out
// behaviors, by behavior, and on benign targets.
type RWRRow struct {
	Auditor model.Auditor
	RWR     analysis.RWR
	Benign  SplitRate
	// Gap is training − held-out with its bootstrap interval over
	// behaviors (analysis.GapByBehavior).
	Gap analysis.Estimate
}

// GapResamples is the number of behavior resamples behind a gap's interval.
const GapResamples = 4000

// FewJudgments is the fewest judgments a per-behavior cell needs to be
// shown as a rate: below it the cell is marked, not coloured as a finding
// (most of the demo's cells rest on one judgment).
const FewJudgments = 5

// RWR computes the reference win rate of every auditor with reference
// judgments, split by behavior split; behaviors are the behaviors judged,
// in order; targets the target models of each split's judged audits
// (sorted): where they differ, the gap mixes the behaviors with the models
// they were planted in.
func (s *Service) RWR(ctx context.Context, exp string) (st *ExperimentStats, rows []RWRRow, behaviors []string, targets map[string][]string, err error) {
	if st, err = s.Stats(ctx, exp); err != nil {
		return nil, nil, nil, nil, err
	}
	sides, err := s.r.SideJudgments(ctx, st.Exp.ID, model.JudgmentReference)
	if err != nil {
		return nil, nil, nil, nil, err
	}
	targets = map[string][]string{}
	for _, j := range sides {
		if j.OtherAuditor == "" && !slices.Contains(targets[j.Split], j.Target) {
			targets[j.Split] = append(targets[j.Split], j.Target)
		}
	}
	for _, t := range targets {
		slices.Sort(t)
	}
	js := make([]experiment.ReferenceJudgment, len(sides))
	for i, j := range sides {
		js[i] = experiment.ReferenceJudgment{Auditor: j.Auditor, OtherAuditor: j.OtherAuditor, Behavior: j.Behavior, Split: j.Split, Outcome: j.Outcome}
	}
	rates, behaviors := experiment.ReferenceWinRates(js, confidence)
	all := make([]analysis.Judgment, len(js))
	for i, j := range js {
		all[i] = analysis.Judgment{Behavior: j.Behavior, Split: j.Split, Outcome: j.Outcome}
	}
	splits := analysis.BehaviorSplits(all)
	for _, a := range st.Auditors {
		if r, ok := rates[a.Auditor.ID]; ok {
			gap := analysis.GapByBehavior(r.RWR, splits, GapResamples, confidence, experiment.Seed(st.Exp.ID, a.Auditor.ID, "rwr-gap"))
			rows = append(rows, RWRRow{Auditor: a.Auditor, RWR: r.RWR, Benign: r.Benign, Gap: gap})
		}
	}
	return st, rows, behaviors, targets, nil
}

// TransferEvals are the AuditBench investigation approaches, in order.
var TransferEvals = []string{model.EvalAuditBenchSTC, model.EvalAuditBenchDefault}

// Transfer is AuditBench detection per auditor × approach × behavior.
type Transfer struct {
	Behaviors []string // sorted
	t         experiment.Transfer
}

// Rate is one cell's detection rate with its counts: N audits, Detected of
// them detected; N = 0 and an undefined rate for a cell without audits.
// behavior "" is the approach's overall rate.
func (t Transfer) Rate(auditor, eval, behavior string) (n, detected int, rate Estimate) {
	c := t.t.Cell(experiment.DetectionKey{Auditor: auditor, Eval: eval, Behavior: behavior})
	return c.N, c.Detected, c.Rate
}

// Transfer computes AuditBench detection from the experiment's audits,
// under judge's outcomes ("" the evaluation judge's).
func (s *Service) Transfer(ctx context.Context, exp, judge string) (*ExperimentStats, Transfer, error) {
	st, err := s.StatsUnder(ctx, exp, judge)
	if err != nil {
		return nil, Transfer{}, err
	}
	var ds []experiment.Detection
	for _, a := range st.Audits {
		if (a.Eval != model.EvalAuditBenchSTC && a.Eval != model.EvalAuditBenchDefault) || a.Detected == nil {
			continue
		}
		ds = append(ds, experiment.Detection{Auditor: a.Auditor, Eval: a.Eval, Behavior: a.Behavior, Detected: *a.Detected})
	}
	tr := experiment.TransferRates(ds, confidence)
	return st, Transfer{Behaviors: tr.Behaviors, t: tr}, nil
}
