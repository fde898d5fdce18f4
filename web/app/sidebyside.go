package app

import (
	"context"
	"errors"

	"github.com/auditscope/auditscope/data/model"
)

// Two audits side by side, and the audits of the same unit under other
// auditors that an audit page offers to put beside it.

// SideOf is one audit of a side-by-side view: the audit and its
// transcript.
type SideOf struct {
	*Audit
	Transcript *Transcript
}

// SideBySide reads the audits a and b (URL ids, "experiment:id" or a bare
// id one experiment has) with their transcripts. An id that names no audit
// is a query error naming its parameter ("a" or "b").
func (s *Service) SideBySide(ctx context.Context, a, b string) (SideOf, SideOf, error) {
	var sides [2]SideOf
	for i, p := range []struct{ name, id string }{{"a", a}, {"b", b}} {
		if p.id == "" {
			return sides[0], sides[1], Queryf("%s: missing; give the two audits to show side by side", p.name)
		}
		au, err := s.Audit(ctx, p.id, nil)
		if errors.Is(err, model.ErrNotFound) {
			return sides[0], sides[1], Queryf("%s: %v", p.name, err)
		}
		if err != nil {
			return sides[0], sides[1], err
		}
		sides[i] = SideOf{Audit: au, Transcript: au.Transcript}
	}
	return sides[0], sides[1], nil
}

// SameUnit lists the audits of the other auditors on the unit of one audit
// (the same evaluation, behavior and seed; none for an audit without a
// seed, which has no unit to share), in the experiment's order: each as its
// key and "auditor name · id".
func (s *Service) SameUnit(ctx context.Context, d model.AuditDetail) ([]model.Choice, error) {
	if d.Seed == "" || d.Eval == "" {
		return nil, nil
	}
	st, err := s.Stats(ctx, d.Experiment)
	if err != nil {
		return nil, err
	}
	names := make(map[string]string, len(st.Auditors))
	for _, a := range st.Auditors {
		names[a.Auditor.ID] = a.Auditor.Name
	}
	var out []model.Choice
	for _, i := range st.sameUnit(d.Eval, d.Behavior, d.Seed) {
		if a := st.Audits[i]; a.Auditor != d.Auditor {
			out = append(out, model.Choice{Value: d.Experiment + ":" + a.ID, Label: names[a.Auditor] + " · " + a.ID})
		}
	}
	return out, nil
}

// realismVerdictsMax bounds the realism judgments read in full for one
// side: a realism audit has one or a few.
const realismVerdictsMax = 8

// RealismVerdicts are the judgments that decided a side's realism: each
// realism judgment of its audit against the real conversation, read in
// full (the judge's verdict and reasoning), in the file's order.
func (s *Service) RealismVerdicts(ctx context.Context, side SideOf) ([]model.Judgment, error) {
	var out []model.Judgment
	for _, j := range side.Judgments {
		if j.Kind != model.JudgmentRealism || j.OtherAuditor != "" || len(out) == realismVerdictsMax {
			continue
		}
		full, err := s.r.Judgment(ctx, side.Experiment.ID+":"+j.ID)
		if err != nil {
			return nil, err
		}
		out = append(out, full)
	}
	return out, nil
}
