package app

import (
	"context"
	"maps"
	"slices"

	"github.com/auditscope/auditscope/data/model"
)

// JudgmentFilter selects an experiment's pairwise judgments: by kind, by
// the auditor whose side is shown, by the other auditor (vs), by behavior
// split and by behavior. "" selects all.
type JudgmentFilter struct{ Kind, Auditor, Vs, Split, Behavior string }

// Judgments returns the judgments f selects, from the auditor's side when
// f names one; an auditor, opponent or behavior that no judgment of the
// selection has is a QueryError naming the choices.
func (s *Service) Judgments(ctx context.Context, exp string, f JudgmentFilter) ([]model.SideJudgment, error) {
	kinds := []string{model.JudgmentReference, model.JudgmentIntragroup, model.JudgmentRealism, model.JudgmentCrux}
	if f.Kind != "" {
		kinds = []string{f.Kind}
	}
	sides, err := s.r.SideJudgments(ctx, exp, kinds...)
	if err != nil {
		return nil, err
	}
	if err := checkJudgmentFilter(f, sides); err != nil {
		return nil, err
	}
	var rows []model.SideJudgment
	seen := map[string]bool{}
	for _, j := range sides {
		if (f.Auditor != "" && j.Auditor != f.Auditor) || (f.Vs != "" && j.OtherAuditor != f.Vs) ||
			(f.Split != "" && j.Split != f.Split) || (f.Behavior != "" && j.Behavior != f.Behavior) {
			continue
		}
		// Without an auditor, a judgment between two audits shows once.
		if f.Auditor == "" {
			if seen[j.ID] {
				continue
			}
			seen[j.ID] = true
		}
		rows = append(rows, j)
	}
	return rows, nil
}

// checkJudgmentFilter refuses an auditor, opponent or behavior that no
// judgment of the selection has, naming the choices, as the audit list does.
func checkJudgmentFilter(f JudgmentFilter, sides []model.SideJudgment) error {
	auditors, behaviors := map[string]bool{}, map[string]bool{}
	for _, j := range sides {
		auditors[j.Auditor] = true
		if j.OtherAuditor != "" {
			auditors[j.OtherAuditor] = true
		}
		if j.Behavior != "" {
			behaviors[j.Behavior] = true
		}
	}
	for _, x := range []struct {
		param, value string
		have         map[string]bool
	}{{"auditor", f.Auditor, auditors}, {"vs", f.Vs, auditors}, {"behavior", f.Behavior, behaviors}} {
		if x.value != "" && !x.have[x.value] {
			return UnknownValue(x.param, x.value, slices.Sorted(maps.Keys(x.have)))
		}
	}
	switch f.Split {
	case "", "train", "heldout", "benign":
		return nil
	}
	return FieldErrorf("Split", "want train, heldout or benign, found %q", f.Split)
}

// AuditorNames maps an experiment's auditor ids to their names.
func (s *Service) AuditorNames(ctx context.Context, exp string) (map[string]string, error) {
	auditors, err := s.r.Auditors(ctx, exp)
	if err != nil {
		return nil, err
	}
	names := make(map[string]string, len(auditors))
	for _, a := range auditors {
		names[a.ID] = a.Name
	}
	return names, nil
}

// Judgment reads one pairwise judgment by its key, with its experiment.
func (s *Service) Judgment(ctx context.Context, key string) (model.Judgment, model.Experiment, error) {
	j, err := s.r.Judgment(ctx, key)
	if err != nil {
		return j, model.Experiment{}, err
	}
	exp, err := s.r.Experiment(ctx, j.Experiment)
	return j, exp, err
}
