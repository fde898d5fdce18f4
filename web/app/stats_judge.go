package app

import (
	"context"
	"fmt"
	"slices"
	"strings"

	"github.com/auditscope/auditscope/data/model"
)

// StatsUnder is Stats computed from another judge's outcomes (issue #51):
// each audit's quality, detection, false positive and production value as
// judge read them, over only the audits it judged; realism stays the
// realism judgments'. "" is the evaluation judge (Stats). A judge that
// gave no outcomes is refused, naming those that did.
func (s *Service) StatsUnder(ctx context.Context, exp, judge string) (*ExperimentStats, error) {
	st, err := s.statsUnder(ctx, exp, "")
	if err != nil || judge == "" {
		return st, err
	}
	if err := checkJudge(judge, st.Judges); err != nil {
		return nil, err
	}
	return s.statsUnder(ctx, exp, judge)
}

// checkJudge refuses a judge ("" the evaluation judge) not among those
// that gave outcomes, naming them.
func checkJudge(judge string, judges []string) error {
	if judge == "" || slices.Contains(judges, judge) {
		return nil
	}
	return &QueryError{Field: "Judge", Msg: fmt.Sprintf("%q gave no outcomes for this experiment's audits (there are: %s)",
		judge, strings.Join(append([]string{"the evaluation judge, the default"}, judges...), "; "))}
}

// evalAudits reads the outcome rows under judge ("" the evaluation judge).
func evalAudits(ctx context.Context, store Reader, exp, judge string) ([]model.EvalAudit, error) {
	if judge == "" {
		return store.EvalAudits(ctx, exp)
	}
	return store.EvalAuditsUnder(ctx, exp, judge)
}

// outcomeJudges names the judges that gave outcomes, in their order.
func outcomeJudges(js []model.JudgeInfo) []string {
	var out []string
	for _, j := range js {
		if j.Outcomes > 0 {
			out = append(out, j.Name)
		}
	}
	return out
}
