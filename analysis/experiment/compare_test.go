package experiment

import (
	"fmt"
	"math"
	"testing"

	"github.com/auditscope/auditscope/analysis"
)

// TestCompareByHand checks a small comparison worked out by hand.
func TestCompareByHand(t *testing.T) {
	var audits []Audit
	// Quality: behaviors x and y, two seeds each, one audit per side per
	// key; A beats B by 10, 6 (x) and 2, -2 (y); B has an extra unmatched
	// audit.
	qa := map[[2]string]float64{{"x", "1"}: 80, {"x", "2"}: 70, {"y", "1"}: 60, {"y", "2"}: 50}
	qb := map[[2]string]float64{{"x", "1"}: 70, {"x", "2"}: 64, {"y", "1"}: 58, {"y", "2"}: 52}
	for k, v := range qa {
		audits = append(audits, Audit{Auditor: "A", Eval: EvalAuditQuality, Behavior: k[0], Seed: k[1], Quality: fp(v)})
	}
	for k, v := range qb {
		audits = append(audits, Audit{Auditor: "B", Eval: EvalAuditQuality, Behavior: k[0], Seed: k[1], Quality: fp(v)})
	}
	audits = append(audits, Audit{Auditor: "B", Eval: EvalAuditQuality, Behavior: "z", Seed: "9", Quality: fp(0)})
	// FP: four benign seeds; A has a false positive on s1, B on s1 and s2.
	for i, s := range []string{"s1", "s2", "s3", "s4"} {
		audits = append(audits, Audit{Auditor: "A", Eval: EvalFPCalibration, Seed: s, FalsePositive: bp(i == 0)})
		audits = append(audits, Audit{Auditor: "B", Eval: EvalFPCalibration, Seed: s, FalsePositive: bp(i <= 1)})
	}
	// Production: seeds p1, p2 (two rollouts each for A).
	audits = append(audits,
		Audit{Auditor: "A", Eval: EvalProduction, Seed: "p1", ProductionValue: fp(10)},
		Audit{Auditor: "A", Eval: EvalProduction, Seed: "p1", ProductionValue: fp(20)},
		Audit{Auditor: "A", Eval: EvalProduction, Seed: "p2", ProductionValue: fp(30)},
		Audit{Auditor: "B", Eval: EvalProduction, Seed: "p1", ProductionValue: fp(5)},
		Audit{Auditor: "B", Eval: EvalProduction, Seed: "p2", ProductionValue: fp(25)})
	realism := []RealismJudgment{{Auditor: "A", Outcome: "win"}, {Auditor: "A", Outcome: "loss"},
		{Auditor: "B", Outcome: "tie"}, {Auditor: "B", Outcome: "loss"}, {Auditor: "B", Outcome: "loss"}, {Auditor: "B", Outcome: "loss"}}
	c, err := Compare("A", "B", audits, realism, 2000, 1)
	if err != nil {
		t.Fatal(err)
	}
	d := map[string]Diff{}
	for _, x := range c.Diffs {
		d[x.Dimension] = x
	}
	// Quality: mean of 10, 6, 2, -2 = 4 on 4 pairs.
	if q := d[AuditQuality]; q.Value != 4 || q.Pairs != 4 || q.NB != 5 {
		t.Errorf("quality = %+v", q)
	}
	want, p, _ := analysis.PairedT([]float64{80, 70, 60, 50}, []float64{70, 64, 58, 52}, 0.95)
	if q := d[AuditQuality]; math.Abs(q.Lo-want.Lo) > 1e-12 || q.P != p {
		t.Errorf("quality interval %+v, want %+v p %v", q, want, p)
	}
	// FP: rates 1/4 and 2/4, calibration 75 vs 50: +25; one discordant
	// pair (s2), McNemar exact p = 1.
	if f := d[FPCalibration]; f.Value != 25 || f.Pairs != 4 || f.P != 1 || !(f.Lo < 25 && f.Hi > 25) {
		t.Errorf("fp = %+v", f)
	}
	// Production: seed means A 15, 30; B 5, 25: differences 10 and 5.
	if pr := d[Production]; pr.Value != 7.5 || pr.Pairs != 2 {
		t.Errorf("production = %+v", pr)
	}
	// Realism: 50 vs 12.5.
	if r := d[Realism]; r.Value != 37.5 || r.Pairs != 0 || r.NA != 2 || r.NB != 4 {
		t.Errorf("realism = %+v", r)
	}
	// Composite: A (65 + 75 + 22.5 + 50)/4, B (48.8 + 50 + 15 + 12.5)/4
	// (B's quality includes its unmatched 0).
	wantComp := (65.0+75+22.5+50)/4 - (48.8+50+15+12.5)/4
	if cp := d[Composite]; math.Abs(cp.Value-wantComp) > 1e-9 || !(cp.Lo <= cp.Value && cp.Value <= cp.Hi) || math.IsNaN(cp.P) {
		t.Errorf("composite = %+v, want %v", cp, wantComp)
	}
	// Behaviors: x carries 16 of the 16 total, y 0.
	if len(c.Behaviors) != 2 || c.Behaviors[0].Behavior != "x" || c.Behaviors[0].Share != 1 || c.Behaviors[1].Share != 0 {
		t.Errorf("behaviors = %+v", c.Behaviors)
	}
	// No AuditBench audits: NaN.
	if s := d[AuditBenchSTC]; !math.IsNaN(s.Value) {
		t.Errorf("stc = %+v", s)
	}
	AdjustHolm([]Comparison{c})
	if q := c.Diffs[0]; q.PHolm < q.P {
		t.Errorf("Holm lowered a p-value: %+v", q)
	}
	if _, err := Compare("A", "A", audits, nil, 10, 1); err == nil {
		t.Error("A against itself: want an error")
	}
}

// TestPresets: the paper's comparisons from a run table like the demo's.
func TestPresets(t *testing.T) {
	runs := []RunInfo{
		{ID: "r", Name: "Ref", Reward: "reference_pairwise", BaseModel: "haiku", CalibrationFraction: 0.5, RefreshSteps: 50},
		{ID: "rm", Name: "Ref multi", Reward: "reference_pairwise", BaseModel: "haiku", CalibrationFraction: 0.5, MultiTarget: true, RefreshSteps: 50},
		{ID: "c", Name: "Conc", Reward: "concerningness_rl", BaseModel: "gone", MultiTarget: true},
	}
	aud := []AuditorInfo{{ID: "haiku", Name: "Claude Haiku", Baseline: true}}
	for _, r := range []string{"r", "rm", "c"} {
		for e := int64(1); e <= 3; e++ {
			aud = append(aud, AuditorInfo{ID: fmt.Sprintf("%s@e%d", r, e), Run: r, Epoch: e, Step: 150 * e})
		}
	}
	got := Presets(runs, aud)
	want := []Preset{
		{"epochs", "Ref: epoch 3 against epoch 1", "r@e3", "r@e1"},
		{"epochs", "Ref multi: epoch 3 against epoch 1", "rm@e3", "rm@e1"},
		{"epochs", "Conc: epoch 3 against epoch 1", "c@e3", "c@e1"},
		{"base", "Ref, epoch 3, against its base model Claude Haiku", "r@e3", "haiku"},
		{"base", "Ref multi, epoch 3, against its base model Claude Haiku", "rm@e3", "haiku"},
		{"multi-target", "Ref multi against Ref, step 450", "rm@e3", "r@e3"},
	}
	if fmt.Sprint(got) != fmt.Sprint(want) {
		t.Errorf("presets\n got %v\nwant %v", got, want)
	}
}
