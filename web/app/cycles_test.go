package app

import (
	"context"
	"fmt"
	"reflect"
	"strings"
	"testing"

	"github.com/auditscope/auditscope/data/model"
)

// TestRankByStrength: exact ties (to rounding residue) share a rank and
// keep their order; the others rank by strength.
func TestRankByStrength(t *testing.T) {
	ids := []string{"a", "b", "c", "d"}
	rows := []Ranked{{Item: 0}, {Item: 1}, {Item: 2}, {Item: 3}}
	for i, v := range []float64{0.5, 1, 0.5 + 1e-15, -0.2} {
		rows[i].Strength.Value = v
	}
	rankByStrength(rows)
	var got []string
	for _, r := range rows {
		got = append(got, fmt.Sprintf("%s%d", ids[r.Item], r.Rank))
	}
	if strings.Join(got, " ") != "b1 a2 c2 d4" {
		t.Errorf("ranks %v, want b1 a2 c2 d4", got)
	}
}

// TestAuditorCyclesByHand: three auditors in a rock-paper-scissors of
// intragroup wins (a beat b twice, b beat c, c beat a) and a fourth with
// only a tie and a win over a real conversation, which count for nothing.
// The matrix keeps the experiment's order, the one 3-cycle is listed, and
// every auditor of the matrix is on it.
func TestAuditorCyclesByHand(t *testing.T) {
	r := handExperiment()
	r.auditors = []model.Auditor{{ID: "c", Name: "C"}, {ID: "a", Name: "A"}, {ID: "b", Name: "B"}, {ID: "d", Name: "D"}}
	side := func(auditor, other, outcome string) model.SideJudgment {
		return model.SideJudgment{Kind: model.JudgmentIntragroup, Auditor: auditor, OtherAuditor: other, Outcome: outcome}
	}
	r.sides = []model.SideJudgment{
		side("a", "b", "win"), side("b", "a", "loss"), side("a", "b", "win"),
		side("b", "c", "win"), side("c", "a", "win"),
		side("d", "a", "tie"), side("d", "", "win"),
		{Kind: model.JudgmentReference, Auditor: "a", OtherAuditor: "c", Outcome: "win"},
	}
	_, w, err := New(r).AuditorCycles(context.Background(), "x", model.JudgmentIntragroup, 4)
	if err != nil {
		t.Fatal(err)
	}
	if !reflect.DeepEqual(w.Matrix.IDs, []string{"c", "a", "b"}) || !reflect.DeepEqual(w.Matrix.Labels, []string{"C", "A", "B"}) {
		t.Fatalf("matrix items %v %v, want c a b in the experiment's order", w.Matrix.IDs, w.Matrix.Labels)
	}
	want := [][]float64{{0, 1, 0}, {0, 0, 2}, {1, 0, 0}} // c>a once, a>b twice, b>c once
	if !reflect.DeepEqual(w.Matrix.Wins, want) {
		t.Errorf("wins %v, want %v", w.Matrix.Wins, want)
	}
	if w.Count3 != 1 || len(w.Cycles) != 1 || len(w.Cycles[0]) != 3 || w.Capped || len(w.Edges) != 3 {
		t.Errorf("cycles %v (3-cycles %d, capped %v, %d edges), want the one 3-cycle over 3 edges", w.Cycles, w.Count3, w.Capped, len(w.Edges))
	}
	if !reflect.DeepEqual(w.InCycle, []bool{true, true, true}) {
		t.Errorf("on a cycle %v, want all", w.InCycle)
	}
	wl := map[string][2]int{}
	for _, rk := range w.Ranking {
		wl[w.Matrix.IDs[rk.Item]] = [2]int{rk.Wins, rk.Losses}
	}
	if !reflect.DeepEqual(wl, map[string][2]int{"a": {2, 1}, "b": {1, 2}, "c": {1, 1}}) {
		t.Errorf("wins and losses %v", wl)
	}
}

// TestCompareMemo: a comparison is computed once per experiment version, A
// and Bs; no B is no comparison.
func TestCompareMemo(t *testing.T) {
	r := handExperiment()
	s := New(r)
	ctx := context.Background()
	st, err := s.Stats(ctx, "x")
	if err != nil {
		t.Fatal(err)
	}
	if cs, err := s.Compare(ctx, st, "a", nil); cs != nil || err != nil {
		t.Errorf("no B: %v, %v", cs, err)
	}
	first, err := s.Compare(ctx, st, "a", []string{"b"})
	if err != nil || len(first) != 1 || first[0].A != "a" || first[0].B != "b" {
		t.Fatalf("a vs b: %+v, %v", first, err)
	}
	again, _ := s.Compare(ctx, st, "a", []string{"b"})
	if &again[0] != &first[0] || s.compare.Len() != 1 {
		t.Errorf("the comparison was computed again (%d kept)", s.compare.Len())
	}
}
