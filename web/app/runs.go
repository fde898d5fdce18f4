package app

import (
	"context"
	"fmt"
	"sort"

	"github.com/auditscope/auditscope/analysis/experiment"
	"github.com/auditscope/auditscope/data/model"
)

// RunPage is a training run with its experiment's statistics and its
// checkpoints in training order.
type RunPage struct {
	Run         model.Run
	Stats       *ExperimentStats
	Checkpoints []AuditorScores
}

// Run loads a run by its key ("experiment:run"), its checkpoints scored
// under judge's outcomes ("" the evaluation judge's); a key of another
// shape, or a run that does not exist, is model.ErrNotFound.
func (s *Service) Run(ctx context.Context, key, judge string) (*RunPage, error) {
	exp, _, ok := model.SplitKey(key)
	if !ok {
		return nil, fmt.Errorf("run %q (run links look like experiment:run): %w", key, model.ErrNotFound)
	}
	run, err := s.r.Run(ctx, key)
	if err != nil {
		return nil, err
	}
	st, err := s.StatsUnder(ctx, exp, judge)
	if err != nil {
		return nil, err
	}
	p := &RunPage{Run: run, Stats: st}
	for _, a := range st.Auditors {
		if a.Auditor.Run == run.ID {
			p.Checkpoints = append(p.Checkpoints, a)
		}
	}
	sort.SliceStable(p.Checkpoints, func(i, j int) bool {
		return CheckpointX(p.Checkpoints[i].Auditor) < CheckpointX(p.Checkpoints[j].Auditor)
	})
	return p, nil
}

// Metrics are the run's training-time scalars by name and step.
func (s *Service) Metrics(ctx context.Context, p *RunPage) ([]model.Metric, error) {
	return s.r.RunMetrics(ctx, p.Stats.Exp.ID, p.Run.ID)
}

// StrategyCounts are the run's audits counted per checkpoint and strategy
// label.
func (s *Service) StrategyCounts(ctx context.Context, p *RunPage) ([]model.LabelCount, error) {
	return s.r.StrategyCounts(ctx, p.Stats.Exp.ID, p.Run.ID)
}

// StrategyShares is the strategy mix of the run's checkpoints
// (experiment.StrategyShares): each checkpoint's share of audits per
// label, the labels in order.
func (p *RunPage) StrategyShares(counts []model.LabelCount) experiment.StrategyMix {
	in := make([]experiment.StrategyCount, len(counts))
	for i, c := range counts {
		in[i] = experiment.StrategyCount{Auditor: c.Auditor, Strategy: c.Strategy, N: c.N}
	}
	ids := make([]string, len(p.Checkpoints))
	for i, cp := range p.Checkpoints {
		ids[i] = cp.Auditor.ID
	}
	return experiment.StrategyShares(in, ids)
}
