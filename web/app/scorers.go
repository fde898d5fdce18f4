package app

import (
	"context"
	"math"

	"github.com/auditscope/auditscope/analysis/scorer"
)

// Scorers builds an experiment's scorer table: every Inspect log's
// reported metrics beside their recomputation from the samples in the file.
// It is empty for experiments without Inspect logs.
func (s *Service) Scorers(ctx context.Context, exp string) ([]scorer.Row, error) {
	logs, err := s.r.InspectLogs(ctx, exp)
	if err != nil || len(logs) == 0 {
		return nil, err
	}
	vals, err := s.r.ScorerValues(ctx, exp)
	if err != nil {
		return nil, err
	}
	in := make([]scorer.Log, len(logs))
	for i, l := range logs {
		in[i] = scorer.Log{Log: l.Log, Task: l.Task, Model: l.Model, Status: l.Status, Samples: l.Samples}
		if l.Total != nil {
			in[i].Total = *l.Total
		}
		for _, sc := range l.Scores {
			r := scorer.Reported{Name: sc.Name, Scorer: sc.Scorer}
			if d := sc.Reduced; d != nil {
				r.Reduced = &scorer.Values{Log: l.Log, Scorer: sc.Scorer, Key: sc.Name, N: d.N, Mean: d.Mean, SD: d.SD,
					Min: d.Min, Max: d.Max, Binary: d.Binary, Unconverted: d.Unconverted}
				if d.N == 1 {
					r.Reduced.SD = math.NaN()
				}
			}
			for _, m := range sc.Metrics {
				v := math.NaN()
				if m.Value != nil {
					v = *m.Value
				}
				r.Metrics = append(r.Metrics, scorer.Metric{Name: m.Name, Value: v})
			}
			in[i].Scores = append(in[i].Scores, r)
		}
	}
	vs := make([]scorer.Values, len(vals))
	for i, v := range vals {
		vs[i] = scorer.Values{Log: v.Log, Scorer: v.Scorer, Key: v.Key, N: v.N, Records: v.Records, Mean: v.Mean, SD: v.SD,
			Min: v.Min, Max: v.Max, Binary: v.Binary, Unconverted: v.Unconverted}
	}
	return scorer.Table(in, vs), nil
}
