package app

import (
	"context"
	"strings"

	"github.com/auditscope/auditscope/analysis/experiment"
	"github.com/auditscope/auditscope/data/model"
)

// compareCacheSize bounds the comparisons kept (each a few kB).
const compareCacheSize = 256

// Compare compares auditor a with each of bs on the experiment st holds,
// each comparison with Holm's correction across its own dimension tests.
// It computes once per experiment version, judge, A and Bs. No A or no B
// is no comparison.
func (s *Service) Compare(ctx context.Context, st *ExperimentStats, a string, bs []string) ([]experiment.Comparison, error) {
	return s.compareOn(ctx, st.Key(), st.Exp.ID, st.Audits, st.Realism, a, bs)
}

// compareOn is Compare over the outcome rows audits, kept under key.
func (s *Service) compareOn(ctx context.Context, key, exp string, audits []model.EvalAudit, realism []experiment.RealismJudgment, a string, bs []string) ([]experiment.Comparison, error) {
	if a == "" || len(bs) == 0 {
		return nil, nil
	}
	key += "\x00" + a + "\x00" + strings.Join(bs, "\x00")
	return s.compare.Get(ctx, key, func(ctx context.Context) ([]experiment.Comparison, error) {
		out := make([]experiment.Comparison, len(bs))
		for i, b := range bs {
			c, err := experiment.Compare(a, b, audits, realism, BootstrapResamples, experiment.PairSeed(exp, a, b, "compare"))
			if err != nil {
				return nil, err
			}
			experiment.AdjustHolm(&c)
			out[i] = c
		}
		return out, nil
	})
}

// Units lists the units behind the row dim of A against B (Compare's):
// each unit's audits on either side, their values and whether the test
// paired them. The units are gathered once per version of the statistics.
func (s *Service) Units(st *ExperimentStats, a, b, dim string) (MatchedUnits, error) {
	u, err := st.units()
	if err != nil {
		return MatchedUnits{}, err
	}
	return u.Matched(a, b, dim)
}
