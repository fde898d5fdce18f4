package bundle

import (
	"maps"
	"slices"
	"strconv"
	"strings"

	"github.com/auditscope/auditscope/data/internal/load"
	"github.com/auditscope/auditscope/data/model"
)

// verdictSource is a source that may hold other judges' verdicts
// (verdicts.jsonl); converted logs hold none.
type verdictSource interface {
	Verdicts(fn func(Pos, *Verdict) error) error
}

// verdicts loads verdicts.jsonl: each verdict on an audit of this bundle,
// one per judge and audit, its scores on their scales (model.BadScore).
func (l *loader) verdicts() error {
	src, ok := l.src.(verdictSource)
	if !ok {
		return nil
	}
	var vs []model.Verdict
	var at []Pos
	seen := map[[2]string]bool{}
	err := src.Verdicts(func(p Pos, v *Verdict) error {
		kind := v.Kind
		switch {
		case kind == "":
			kind = model.JudgeModel
		case kind != model.JudgeModel && kind != model.JudgeHuman:
			return fieldErr(p, "kind", "want model or human, found %q", kind)
		}
		k := [2]string{v.Judge, v.Audit}
		switch {
		case strings.TrimSpace(v.Judge) == "":
			return fieldErr(p, "judge", "missing: a verdict names its judge")
		case !l.audits[v.Audit]:
			return fieldErr(p, "audit", "%q is not an audit of audits.jsonl", v.Audit)
		case len(v.Scores) == 0 && v.Outcome.Empty():
			return fieldErr(p, "scores", "missing: a verdict gives scores or an outcome")
		case seen[k]:
			return fieldErr(p, "audit", "judge %q's verdict on %q is given twice", v.Judge, v.Audit)
		}
		seen[k] = true
		vs = append(vs, model.Verdict{Audit: v.Audit, Judge: v.Judge, Kind: kind, Summary: v.Summary, Scores: v.Scores, Outcome: v.Outcome, File: p.File, Line: p.Line})
		at = append(at, p)
		return nil
	})
	if err != nil || len(vs) == 0 {
		return err
	}
	if i, why := model.BadScore(vs); i >= 0 {
		field := "scores"
		if strings.HasPrefix(why, "outcome.") {
			field, why, _ = strings.Cut(why, ": ")
		}
		return fieldErr(at[i], field, "%s", why)
	}
	var scores int64
	err = l.section("verdicts", func(a load.Appender) error {
		for _, v := range vs {
			if err := a.Row(l.id, v.Audit, v.Judge, v.Kind, v.Summary, FileVerdicts+":"+strconv.Itoa(v.Line)); err != nil {
				return err
			}
		}
		return nil
	})
	if err == nil {
		err = l.section("verdict_scores", func(a load.Appender) error {
			for _, v := range vs {
				for _, d := range slices.Sorted(maps.Keys(v.Scores)) {
					if err := a.Row(l.id, v.Audit, v.Judge, d, v.Scores[d]); err != nil {
						return err
					}
					scores++
				}
			}
			return nil
		})
	}
	var outcomes int64
	if err == nil {
		err = l.section("verdict_outcomes", func(a load.Appender) error {
			for _, v := range vs {
				if o := v.Outcome; !o.Empty() {
					if err := a.Row(l.id, v.Audit, v.Judge, optBool(o.Detected), optBool(o.FalsePositive), optFloat(o.Quality), optFloat(o.ProductionValue)); err != nil {
						return err
					}
					outcomes++
				}
			}
			return nil
		})
	}
	l.counts["verdicts"], l.counts["verdict_scores"] = int64(len(vs)), scores
	if outcomes > 0 {
		l.counts["verdict_outcomes"] = outcomes
	}
	return err
}
