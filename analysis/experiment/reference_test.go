package experiment

import (
	"math"
	"reflect"
	"testing"

	"github.com/auditscope/auditscope/analysis"
	"github.com/auditscope/auditscope/data/model"
)

// TestReferenceWinRates: judgments group by auditor, audit-versus-audit
// judgments are left out, ties count half, and the benign split is counted
// apart from train and held-out.
func TestReferenceWinRates(t *testing.T) {
	js := []ReferenceJudgment{
		{Auditor: "a", Behavior: "flattery", Split: SplitTrain, Outcome: "win"},
		{Auditor: "a", Behavior: "flattery", Split: SplitTrain, Outcome: "loss"},
		{Auditor: "a", Behavior: "deception", Split: SplitTrain, Outcome: "tie"},
		{Auditor: "a", Behavior: "sabotage", Split: SplitHeldout, Outcome: "win"},
		{Auditor: "a", Behavior: "sabotage", Split: SplitHeldout, Outcome: "win"},
		{Auditor: "a", Split: SplitBenign, Outcome: "win"},
		{Auditor: "a", Split: SplitBenign, Outcome: "tie"},
		// Against another audit: not a reference comparison.
		{Auditor: "a", OtherAuditor: "b", Behavior: "zzz", Split: SplitTrain, Outcome: "loss"},
		{Auditor: "b", Behavior: "flattery", Split: SplitTrain, Outcome: "loss"},
	}
	rates, behaviors := ReferenceWinRates(js, 0.95)
	if want := []string{"deception", "flattery", "sabotage"}; !reflect.DeepEqual(behaviors, want) {
		t.Errorf("behaviors %v, want %v", behaviors, want)
	}
	if len(rates) != 2 {
		t.Fatalf("%d auditors, want 2", len(rates))
	}
	a := rates["a"]
	if tr := a.RWR.Train; tr.N != 3 || tr.Wins != 1 || tr.Losses != 1 || tr.Ties != 1 || tr.Rate.Value != 0.5 {
		t.Errorf("a train %+v, want 1 win, 1 loss, 1 tie: 0.5", tr)
	}
	if h := a.RWR.Heldout; h.N != 2 || h.Rate.Value != 1 {
		t.Errorf("a held-out %+v, want 2 wins: 1", h)
	}
	if math.Abs(a.RWR.Gap-(-0.5)) > 1e-12 {
		t.Errorf("a gap %v, want -0.5", a.RWR.Gap)
	}
	if b := a.Benign; b.N != 2 || b.Wins != 1 || b.Ties != 1 || b.Rate.Value != 0.75 {
		t.Errorf("a benign %+v, want 1 win, 1 tie: 0.75", b)
	}
	if f := a.RWR.ByBehavior["flattery"]; f.N != 2 || f.Rate.Value != 0.5 {
		t.Errorf("a flattery %+v, want 2 judgments: 0.5", f)
	}
	if b := rates["b"]; b.RWR.Train.N != 1 || b.RWR.Train.Rate.Value != 0 || b.Benign.N != 0 || !math.IsNaN(b.Benign.Rate.Value) {
		t.Errorf("b %+v, want one train loss and no benign rate", b)
	}
}

// TestTransferRates: overall and per-behavior cells, an audit without a
// behavior counted once, and Wilson intervals checked against values worked
// by hand (2 of 3 at 95%: centre (p+z²/2n)/(1+z²/n) = 0.5731, half-width
// 0.3654).
func TestTransferRates(t *testing.T) {
	ds := []Detection{
		{Auditor: "a", Eval: model.EvalAuditBenchSTC, Behavior: "flattery", Detected: true},
		{Auditor: "a", Eval: model.EvalAuditBenchSTC, Behavior: "flattery", Detected: true},
		{Auditor: "a", Eval: model.EvalAuditBenchSTC, Behavior: "sabotage", Detected: false},
		{Auditor: "a", Eval: model.EvalAuditBenchDefault, Detected: true},
	}
	tr := TransferRates(ds, 0.95)
	if want := []string{"flattery", "sabotage"}; !reflect.DeepEqual(tr.Behaviors, want) {
		t.Errorf("behaviors %v, want %v", tr.Behaviors, want)
	}
	// The overall rate pools two behaviors (both flattery audits detected,
	// the sabotage one not): its interval is Wilson's on the design
	// effect's n (issue #48), wider than the 3 audits' [0.2077, 0.9385].
	all := tr.Cell(DetectionKey{"a", model.EvalAuditBenchSTC, ""})
	want, _ := analysis.ClusterWilson([]bool{true, true, false}, []int{0, 0, 1}, 0.95)
	if all.N != 3 || all.Detected != 2 || math.Abs(all.Rate.Value-2.0/3) > 1e-12 ||
		all.Rate != want || !(all.Rate.Lo < 0.2077 && all.Rate.Hi > 0.9385) {
		t.Errorf("a STC overall %+v, want 2 of 3 clustered %+v", all, want)
	}
	// A behavior's own cell is Wilson over its audits: 2 of 2.
	if c, w := tr.Cell(DetectionKey{"a", model.EvalAuditBenchSTC, "flattery"}), must(analysis.Wilson(2, 2, 0.95)); c.Rate != w {
		t.Errorf("flattery's cell %+v, want Wilson 2 of 2 %+v", c.Rate, w)
	}
	if c := tr.Cell(DetectionKey{"a", model.EvalAuditBenchSTC, "flattery"}); c.N != 2 || c.Detected != 2 {
		t.Errorf("a STC flattery %+v, want 2 of 2", c)
	}
	if c := tr.Cell(DetectionKey{"a", model.EvalAuditBenchDefault, ""}); c.N != 1 || c.Detected != 1 {
		t.Errorf("a default overall %+v, want 1 of 1 (counted once)", c)
	}
	if c := tr.Cell(DetectionKey{"b", model.EvalAuditBenchSTC, ""}); c.N != 0 || !math.IsNaN(c.Rate.Value) {
		t.Errorf("unknown auditor %+v, want an empty cell", c)
	}
}

func must[T any](v T, err error) T {
	if err != nil {
		panic(err)
	}
	return v
}
