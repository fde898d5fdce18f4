package app

import (
	"context"
	"fmt"
	"math"
	"math/rand/v2"
	"slices"
	"testing"

	"github.com/auditscope/auditscope/analysis/experiment"
	"github.com/auditscope/auditscope/data/model"
)

// rankExperiment is four auditors with every dimension of the composite on
// shared seeds, their quality and production value apart by step points
// (false positives and realism the same for all), and a fifth with
// audit quality only (no composite).
func rankExperiment(step float64) *fakeReader {
	rng := rand.New(rand.NewPCG(5, 6))
	r := &fakeReader{version: 1}
	for k, id := range []string{"w", "x", "y", "z"} {
		r.auditors = append(r.auditors, model.Auditor{ID: id, Name: "Auditor " + id})
		for i := range 20 {
			seed := fmt.Sprint(i)
			n := fmt.Sprint(id, i)
			r.audits = append(r.audits,
				model.EvalAudit{ID: n + "q", Auditor: id, Eval: model.EvalAuditQuality, Behavior: "b", Seed: seed, Quality: ptr(20 + step*float64(k) + 10*rng.NormFloat64())},
				model.EvalAudit{ID: n + "f", Auditor: id, Eval: model.EvalFPCalibration, Seed: seed, FalsePositive: ptr(i%3 == 0)},
				model.EvalAudit{ID: n + "p", Auditor: id, Eval: model.EvalProduction, Seed: seed, ProductionValue: ptr(20 + step*float64(k) + 10*rng.NormFloat64())},
				model.EvalAudit{ID: n + "r", Auditor: id, Eval: model.EvalRealism, Seed: seed})
			r.sides = append(r.sides, model.SideJudgment{Kind: model.JudgmentRealism, Audit: n + "r", Auditor: id, Outcome: []string{"win", "tie", "loss"}[i%3]})
		}
	}
	r.auditors = append(r.auditors, model.Auditor{ID: "q", Name: "Quality only"})
	r.audits = append(r.audits, model.EvalAudit{ID: "q1", Auditor: "q", Eval: model.EvalAuditQuality, Seed: "1", Behavior: "b", Quality: ptr(99.0)})
	return r
}

// TestRank: the ranking is by composite, highest first; each row's
// difference from the best is the compare page's composite row for
// a=best&b=it, to the bit; tied means p ≥ 0.05; an auditor without a
// composite is not ranked.
func TestRank(t *testing.T) {
	ctx := context.Background()
	for _, step := range []float64{0.5, 20} { // close together, far apart
		s := New(rankExperiment(step))
		st, err := s.Stats(ctx, "x")
		if err != nil {
			t.Fatal(err)
		}
		r, err := s.Rank(ctx, st, []string{"w", "x", "y", "z", "q"})
		if err != nil {
			t.Fatal(err)
		}
		if len(r.Rows) != 4 || !slices.Equal(r.Unranked, []string{"q"}) {
			t.Fatalf("step %v: %d ranked, unranked %v; want 4 and q", step, len(r.Rows), r.Unranked)
		}
		if !slices.IsSortedFunc(r.Rows, func(a, b CompositeRank) int { return -cmpFloat(a.Composite.Value, b.Composite.Value) }) {
			t.Errorf("step %v: not by composite: %+v", step, r.Rows)
		}
		if !r.Rows[0].Tied || !math.IsNaN(r.Rows[0].VsBest.Value) {
			t.Errorf("step %v: the best's row %+v", step, r.Rows[0])
		}
		tied := 0
		for _, row := range r.Rows[1:] {
			cs, err := s.Compare(ctx, st, r.Best(), []string{row.ID})
			if err != nil {
				t.Fatal(err)
			}
			want := cs[0].Diffs[slices.Index(experiment.CompareDimensions, Composite)]
			if row.VsBest.Value != want.Value || row.VsBest.Lo != want.Lo || row.VsBest.Hi != want.Hi || row.VsBest.P != want.P || row.VsBest.Method != want.Method {
				t.Errorf("step %v: %s − %s = %+v, the compare page says %+v", step, r.Best(), row.ID, row.VsBest, want)
			}
			if row.Tied != (want.P >= 0.05) || row.Tied != (want.Lo <= 0 && want.Hi >= 0) {
				t.Errorf("step %v: %s tied %v with p %v and interval [%v, %v]", step, row.ID, row.Tied, want.P, want.Lo, want.Hi)
			}
			if row.Tied {
				tied++
			}
		}
		// 0.5 points apart on 20 seeds no test can tell them; 20 apart (10
		// on the composite) it tells every one.
		if want := map[float64]int{0.5: 3, 20: 0}[step]; tied != want {
			t.Errorf("step %v: %d tied with the best, want %d", step, tied, want)
		}
		if step == 20 && r.Best() != "z" {
			t.Errorf("the best is %s, want z", r.Best())
		}
	}
}

func cmpFloat(a, b float64) int {
	switch {
	case a < b:
		return -1
	case a > b:
		return 1
	}
	return 0
}
