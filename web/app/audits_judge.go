package app

import (
	"context"
	"fmt"
	"slices"
	"strings"

	"github.com/auditscope/auditscope/data/model"
)

// FilterDimensions are the judge dimensions the audit browser's scores
// read: the experiment's (its evaluation judge's), or under f.Judge that
// judge's (issue #51). A judge needs its experiment, and must have judged
// its audits: else a query error naming the ones there are.
func (s *Service) FilterDimensions(ctx context.Context, f model.AuditFilter) ([]string, error) {
	if f.Judge == "" {
		return s.ScoreDimensions(ctx, f.Experiment)
	}
	if f.Experiment == "" {
		return nil, &QueryError{Field: "Judge", Msg: "the judges are an experiment's: give exp too"}
	}
	js, err := s.AuditJudges(ctx, f.Experiment)
	if err != nil {
		return nil, err
	}
	i := slices.IndexFunc(js, func(j model.JudgeInfo) bool { return j.Name == f.Judge })
	if i < 0 {
		names := []string{"the evaluation judge, the default"}
		for _, j := range js {
			names = append(names, j.Name)
		}
		return nil, &QueryError{Field: "Judge", Msg: fmt.Sprintf("no judge %q judged the audits of %s (there are: %s)", f.Judge, f.Experiment, strings.Join(names, "; "))}
	}
	return js[i].Dimensions, nil
}

// AuditJudges are the judges of exp's audits besides the evaluation judge,
// kept until the data changes.
func (s *Service) AuditJudges(ctx context.Context, exp string) ([]model.JudgeInfo, error) {
	return kept(ctx, s, "judgesof\x00"+exp, func(ctx context.Context) ([]model.JudgeInfo, error) { return s.r.Judges(ctx, exp) })
}

// pageScores are the judge scores of a page's audits: the evaluation
// judge's, or the filter's judge's.
func (s *Service) pageScores(ctx context.Context, f model.AuditFilter, rows []model.AuditRow) (map[string]map[string]float64, error) {
	if f.Judge != "" {
		return s.r.VerdictScores(ctx, keysOf(rows), f.Judge)
	}
	return s.r.AuditScores(ctx, keysOf(rows))
}
