package experiment

import (
	"encoding/json"
	"fmt"
	"math"
	"math/rand/v2"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/auditscope/auditscope/analysis"
	"github.com/auditscope/auditscope/data/model"
)

// handComparison is the small comparison TestCompareByHand works out by
// hand, built apart so the test reads as its expected values.
func handComparison() ([]Audit, []RealismJudgment) {
	var audits []Audit
	// Quality: behaviors x and y, two seeds each, one audit per side per
	// key; A beats B by 10, 6 (x) and 2, -2 (y); B has an extra unmatched
	// audit.
	qa := map[[2]string]float64{{"x", "1"}: 80, {"x", "2"}: 70, {"y", "1"}: 60, {"y", "2"}: 50}
	qb := map[[2]string]float64{{"x", "1"}: 70, {"x", "2"}: 64, {"y", "1"}: 58, {"y", "2"}: 52}
	for k, v := range qa {
		audits = append(audits, Audit{Auditor: "A", Eval: model.EvalAuditQuality, Behavior: k[0], Seed: k[1], Quality: fp(v)})
	}
	for k, v := range qb {
		audits = append(audits, Audit{Auditor: "B", Eval: model.EvalAuditQuality, Behavior: k[0], Seed: k[1], Quality: fp(v)})
	}
	audits = append(audits, Audit{Auditor: "B", Eval: model.EvalAuditQuality, Behavior: "z", Seed: "9", Quality: fp(0)})
	// FP: four benign seeds; A has a false positive on s1, B on s1 and s2.
	for i, s := range []string{"s1", "s2", "s3", "s4"} {
		audits = append(audits, Audit{Auditor: "A", Eval: model.EvalFPCalibration, Seed: s, FalsePositive: bp(i == 0)})
		audits = append(audits, Audit{Auditor: "B", Eval: model.EvalFPCalibration, Seed: s, FalsePositive: bp(i <= 1)})
	}
	// Production: seeds p1, p2 (two rollouts each for A).
	audits = append(audits,
		Audit{Auditor: "A", Eval: model.EvalProduction, Seed: "p1", ProductionValue: fp(10)},
		Audit{Auditor: "A", Eval: model.EvalProduction, Seed: "p1", ProductionValue: fp(20)},
		Audit{Auditor: "A", Eval: model.EvalProduction, Seed: "p2", ProductionValue: fp(30)},
		Audit{Auditor: "B", Eval: model.EvalProduction, Seed: "p1", ProductionValue: fp(5)},
		Audit{Auditor: "B", Eval: model.EvalProduction, Seed: "p2", ProductionValue: fp(25)})
	// Realism: A's audits on production seeds r1, r2; B's on r1 to r4.
	realism := []RealismJudgment{{Auditor: "A", Outcome: "win", Seed: "r1"}, {Auditor: "A", Outcome: "loss", Seed: "r2"},
		{Auditor: "B", Outcome: "tie", Seed: "r1"}, {Auditor: "B", Outcome: "loss", Seed: "r2"}, {Auditor: "B", Outcome: "loss", Seed: "r3"}, {Auditor: "B", Outcome: "loss", Seed: "r4"}}
	return audits, realism
}

// TestCompareByHand checks a small comparison worked out by hand.
func TestCompareByHand(t *testing.T) {
	audits, realism := handComparison()
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
	// Four pairs differ, too few for a t test (issue #48): the exact
	// sign-flip test. |Σ| = 16; the patterns at least as extreme flip
	// nothing, the −2, or the 2 and −2, and their negations: 6 of 16.
	want, p, _, _ := analysis.SignFlip([]float64{10, 6, 2, -2}, 0.95, 0, 0)
	if q := d[AuditQuality]; q.Lo != want.Lo || q.Hi != want.Hi || q.P != p || p != 6.0/16 || !strings.HasPrefix(q.Method, "exact sign-flip") {
		t.Errorf("quality %+v, want %+v p %v", q, want, p)
	}
	// FP: the unit is the benign seed; per-seed calibration A 0, 100,
	// 100, 100 and B 0, 0, 100, 100: differences 0, 100, 0, 0, mean 25.
	// One seed differs: both of its signs are as extreme, p = 1, and no
	// shift is rejected (a paired t said p = 0.39 with a finite interval).
	if f := d[FPCalibration]; f.Value != 25 || f.Pairs != 4 || f.Unit != "benign seed" || f.P != 1 || !math.IsInf(f.Lo, -1) || !math.IsInf(f.Hi, 1) {
		t.Errorf("fp = %+v", f)
	}
	// Production: seed means A 15, 30; B 5, 25: differences 10 and 5.
	if pr := d[Production]; pr.Value != 7.5 || pr.Pairs != 2 {
		t.Errorf("production = %+v", pr)
	}
	// Realism pairs by production seed: r1 100 vs 50, r2 0 vs 0;
	// differences 50 and 0, mean 25. Every one of the 4 sign patterns is as
	// extreme (|±50 ± 0| = 50): p = 1, and no shift is rejected with two
	// pairs, so the interval is unbounded.
	if r := d[Realism]; r.Value != 25 || r.Pairs != 2 || r.NA != 2 || r.NB != 4 || r.P != 1 || !math.IsInf(r.Lo, -1) || !math.IsInf(r.Hi, 1) {
		t.Errorf("realism = %+v", r)
	}
	// Composite: A (65 + 75 + 22.5 + 50)/4, B (48.8 + 50 + 15 + 12.5)/4
	// (B's quality includes its unmatched 0).
	wantComp := (65.0+75+22.5+50)/4 - (48.8+50+15+12.5)/4
	if cp := d[Composite]; math.Abs(cp.Value-wantComp) > 1e-9 || !(cp.Lo <= cp.Value && cp.Value <= cp.Hi) || math.IsNaN(cp.P) {
		t.Errorf("composite = %+v, want %v", cp, wantComp)
	}
	// Behaviors: x first (8 on 2 pairs), y 0. The overall difference's
	// interval includes 0, so no shares (x would carry 16 of the 16 total).
	if len(c.Behaviors) != 2 || c.Behaviors[0].Behavior != "x" || !math.IsNaN(c.Behaviors[0].Share) || !math.IsNaN(c.Behaviors[1].Share) {
		t.Errorf("behaviors = %+v", c.Behaviors)
	}
	// No AuditBench audits: NaN.
	if s := d[AuditBenchSTC]; !math.IsNaN(s.Value) {
		t.Errorf("stc = %+v", s)
	}
	// Holm within the comparison: quality, FP, production and realism
	// have p-values (AuditBench none), so m = 4; the composite is outside.
	checkHolmFamily(t, &c)
	if _, err := Compare("A", "A", audits, nil, 10, 1); err == nil {
		t.Error("A against itself: want an error")
	}
}

// checkHolmFamily adjusts c's p-values by Holm's method and checks them
// against analysis.Holm over every row but the composite (a function of
// four of them, outside the family); a helper so the hand-worked test
// keeps to its expected values.
func checkHolmFamily(t *testing.T, c *Comparison) {
	t.Helper()
	AdjustHolm(c)
	var ps []float64
	for _, x := range c.Diffs {
		if x.Dimension != Composite {
			ps = append(ps, x.P)
		}
	}
	adj := analysis.Holm(ps)
	k := 0
	for _, x := range c.Diffs {
		if x.Dimension == Composite {
			if !math.IsNaN(x.PHolm) {
				t.Errorf("the composite is in the Holm family: %+v", x)
			}
			continue
		}
		if !(x.PHolm == adj[k] || math.IsNaN(x.PHolm) && math.IsNaN(adj[k])) {
			t.Errorf("%s: Holm %v, want %v", x.Dimension, x.PHolm, adj[k])
		}
		k++
	}
}

// TestCompareShares: with a clear overall difference, each behavior's
// share of it; AuditBench by the exact McNemar test.
func TestCompareShares(t *testing.T) {
	var audits []Audit
	for i, d := range []float64{10, 12, 11, 9} {
		b := []string{"x", "x", "y", "y"}[i]
		seed := fmt.Sprint(i)
		audits = append(audits, Audit{Auditor: "A", Eval: model.EvalAuditQuality, Behavior: b, Seed: seed, Quality: fp(50 + d)},
			Audit{Auditor: "B", Eval: model.EvalAuditQuality, Behavior: b, Seed: seed, Quality: fp(50)})
	}
	// AuditBench STC: A detects on 3 of 4 units, B on 1 (the one A does):
	// A only 2, B only 0; p = 2·P(X ≤ 0 | 2, ½) = 0.5; +50 points.
	for i, det := range [][2]bool{{true, true}, {true, false}, {true, false}, {false, false}} {
		seed := fmt.Sprint(i)
		audits = append(audits, Audit{Auditor: "A", Eval: model.EvalAuditBenchSTC, Behavior: "q", Seed: seed, Detected: bp(det[0])},
			Audit{Auditor: "B", Eval: model.EvalAuditBenchSTC, Behavior: "q", Seed: seed, Detected: bp(det[1])})
	}
	c, err := Compare("A", "B", audits, nil, 100, 1)
	if err != nil {
		t.Fatal(err)
	}
	share := map[string]float64{}
	for _, b := range c.Behaviors {
		share[b.Behavior] = b.Share
	}
	if math.Abs(share["x"]-22.0/42) > 1e-15 || math.Abs(share["y"]-20.0/42) > 1e-15 {
		t.Errorf("shares %v, want 22/42 and 20/42", share)
	}
	for _, d := range c.Diffs {
		if d.Dimension != AuditBenchSTC {
			continue
		}
		if d.Value != 50 || d.P != 0.5 || d.OnlyA != 2 || d.OnlyB != 0 || d.Pairs != 4 || d.Unit != "behavior × seed" || !(d.Lo < 0 && d.Hi > 0) {
			t.Errorf("stc = %+v", d)
		}
		// The interval is Newcombe's on (both 1, A only 2, B only 0,
		// neither 1), in points: not capped at the discordant share.
		if w, _ := analysis.NewcombePaired(1, 2, 0, 1, 0.95); math.Abs(d.Lo-100*w.Lo) > 1e-12 || math.Abs(d.Hi-100*w.Hi) > 1e-12 {
			t.Errorf("stc interval [%v, %v], want Newcombe's %v", d.Lo, d.Hi, w)
		}
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

// TestCompareUnitsReference: Compare's false-positive calibration row is
// scipy's paired t on per-seed rates, and its realism row scipy's exact
// sign-flip test on per-seed win shares (testdata/stats/compare_units.json,
// written by exact.py from the same rollouts and judgments).
func TestCompareUnitsReference(t *testing.T) {
	type tc struct {
		Name string
		FP   []struct {
			Auditor, Seed string
			FalsePositive bool `json:"false_positive"`
		}
		Realism  []struct{ Auditor, Seed, Outcome string }
		FPDiff   float64  `json:"fp_diff"`
		FPMethod string   `json:"fp_method"`
		FPLower  *float64 `json:"fp_lower"`
		FPUpper  *float64 `json:"fp_upper"`
		FPP      float64  `json:"fp_p"`
		FPPairs  int      `json:"fp_pairs"`
		RDiff    float64  `json:"realism_diff"`
		RP       float64  `json:"realism_p"`
		RLower   float64  `json:"realism_lower"`
		RUpper   float64  `json:"realism_upper"`
	}
	b, err := os.ReadFile(filepath.Join("..", "..", "testdata", "stats", "compare_units.json"))
	if err != nil {
		t.Fatal(err)
	}
	var f struct{ Cases []tc }
	if err := json.Unmarshal(b, &f); err != nil || len(f.Cases) < 3 {
		t.Fatalf("%v (%d cases)", err, len(f.Cases))
	}
	near := func(got, want, tol float64) bool { return math.Abs(got-want) <= tol*math.Max(1, math.Abs(want)) }
	for _, c := range f.Cases {
		t.Run(c.Name, func(t *testing.T) {
			var audits []Audit
			for _, r := range c.FP {
				audits = append(audits, Audit{Auditor: r.Auditor, Eval: model.EvalFPCalibration, Seed: r.Seed, FalsePositive: bp(r.FalsePositive)})
			}
			var js []RealismJudgment
			for _, r := range c.Realism {
				js = append(js, RealismJudgment{Auditor: r.Auditor, Seed: r.Seed, Outcome: r.Outcome})
			}
			cmp, err := Compare("A", "B", audits, js, 100, 1)
			if err != nil {
				t.Fatal(err)
			}
			for _, d := range cmp.Diffs {
				switch d.Dimension {
				case FPCalibration:
					// The bounds: t's to 1e-9, the enumerated sign-flip's
					// to 1e-7 (bisection); with drawn patterns only that
					// they hold the estimate.
					tol := map[string]float64{"t": 1e-9, "signflip": 1e-7}[c.FPMethod]
					bounds := c.FPLower == nil && d.Lo < d.Value && d.Hi > d.Value ||
						c.FPLower != nil && near(d.Lo, *c.FPLower, tol) && near(d.Hi, *c.FPUpper, tol)
					if d.Pairs != c.FPPairs || !near(d.Value, c.FPDiff, 1e-12) || !bounds || !near(d.P, c.FPP, 1e-9) {
						t.Errorf("fp calibration %+v, want %v [%v, %v] p %v over %d seeds (%s)", d, c.FPDiff, c.FPLower, c.FPUpper, c.FPP, c.FPPairs, c.FPMethod)
					}
					if want := map[string]string{"t": "paired t", "signflip": "exact sign-flip test (all", "signflip-p": "exact sign-flip test over the"}[c.FPMethod]; !strings.HasPrefix(d.Method, want) {
						t.Errorf("fp calibration method %q, want %q", d.Method, want)
					}
				case Realism:
					if !near(d.Value, c.RDiff, 1e-12) || !near(d.P, c.RP, 1e-12) || !near(d.Lo, c.RLower, 1e-7) || !near(d.Hi, c.RUpper, 1e-7) {
						t.Errorf("realism %+v, want %v [%v, %v] p %v", d, c.RDiff, c.RLower, c.RUpper, c.RP)
					}
				}
			}
		})
	}
}

// TestCompareNoSeeds: units without a seed have no identity: they pair with
// nothing (independent tests), rather than all falling into one unit.
func TestCompareNoSeeds(t *testing.T) {
	var audits []Audit
	var js []RealismJudgment
	for i := range 6 {
		audits = append(audits,
			Audit{Auditor: "A", Eval: model.EvalFPCalibration, FalsePositive: bp(i == 0)},
			Audit{Auditor: "B", Eval: model.EvalFPCalibration, FalsePositive: bp(i < 3)})
		js = append(js, RealismJudgment{Auditor: "A", Outcome: "win"}, RealismJudgment{Auditor: "B", Outcome: []string{"win", "loss"}[i%2]})
	}
	c, err := Compare("A", "B", audits, js, 100, 1)
	if err != nil {
		t.Fatal(err)
	}
	for _, d := range c.Diffs {
		switch d.Dimension {
		case FPCalibration, Realism:
			if d.Pairs != 0 || d.NA != 6 || d.NB != 6 || !strings.Contains(d.Method, "Welch") {
				t.Errorf("%s: %+v", d.Dimension, d)
			}
		}
	}
}

// TestUnitsComposite: the composite of units gathered once for every
// auditor is Compare's composite row, bit for bit, for every pair and
// either order; an auditor with no units compares as NaN.
func TestUnitsComposite(t *testing.T) {
	rng := rand.New(rand.NewPCG(3, 4))
	auditors := []string{"A", "B", "C", "D"}
	var audits []Audit
	var realism []RealismJudgment
	for _, a := range auditors {
		for i := range 12 {
			seed := fmt.Sprint(i % 6)
			if rng.IntN(5) == 0 {
				seed = "" // no identity: a unit of its own
			}
			audits = append(audits,
				Audit{Auditor: a, Eval: model.EvalAuditQuality, Behavior: fmt.Sprint("b", i%3), Seed: seed, Quality: fp(100 * rng.Float64())},
				Audit{Auditor: a, Eval: model.EvalFPCalibration, Seed: seed, FalsePositive: bp(rng.IntN(4) == 0)},
				Audit{Auditor: a, Eval: model.EvalProduction, Seed: seed, ProductionValue: fp(100 * rng.Float64())})
			realism = append(realism, RealismJudgment{Auditor: a, Seed: seed, Outcome: []string{"win", "tie", "loss"}[rng.IntN(3)]})
		}
	}
	u, err := GatherUnits(audits, realism, nil)
	if err != nil {
		t.Fatal(err)
	}
	for _, a := range auditors {
		for _, b := range auditors {
			if a == b {
				if _, err := u.Composite(a, b, 10, 1); err == nil {
					t.Error("an auditor against itself")
				}
				continue
			}
			c, err := Compare(a, b, audits, realism, 500, 9)
			if err != nil {
				t.Fatal(err)
			}
			got, err := u.Composite(a, b, 500, 9)
			if err != nil {
				t.Fatal(err)
			}
			want := c.Diffs[slices.Index(CompareDimensions, Composite)]
			want.PHolm = got.PHolm
			if fmt.Sprintf("%#v", got) != fmt.Sprintf("%#v", want) || math.IsNaN(got.Value) || math.IsNaN(got.P) {
				t.Errorf("%s − %s: %+v, Compare says %+v", a, b, got, want)
			}
		}
	}
	if d, _ := u.Composite("A", "nobody", 10, 1); !math.IsNaN(d.Value) {
		t.Errorf("against an auditor with no units: %+v", d)
	}
}

// TestCompositeMirrors: B − A is A − B negated, bound for bound and p for
// p, with units on one side only among them (issue #48: the demo's
// Opus 4.7 − Concerningness RL e1 was [+0.08, +11.34] p 0.052 one way and
// [−11.57, +0.40] p 0.070 the other).
func TestCompositeMirrors(t *testing.T) {
	rng := rand.New(rand.NewPCG(48, 5))
	var audits []Audit
	var realism []RealismJudgment
	for _, side := range []string{"zeta", "alpha"} {
		for s := range 30 {
			seed := fmt.Sprint(s)
			if side == "alpha" && s%7 == 0 || side == "zeta" && s%5 == 1 {
				continue // units on one side only, on both sides
			}
			audits = append(audits,
				Audit{Auditor: side, Eval: model.EvalAuditQuality, Behavior: fmt.Sprint(s % 3), Seed: seed, Quality: fp(100 * rng.Float64())},
				Audit{Auditor: side, Eval: model.EvalFPCalibration, Seed: seed, FalsePositive: bp(rng.IntN(4) == 0)},
				Audit{Auditor: side, Eval: model.EvalProduction, Seed: seed, ProductionValue: fp(100 * rng.Float64())})
			realism = append(realism, RealismJudgment{Auditor: side, Seed: seed, Outcome: []string{"win", "tie", "loss"}[rng.IntN(3)]})
		}
	}
	u, err := GatherUnits(audits, realism, nil)
	if err != nil {
		t.Fatal(err)
	}
	seed := PairSeed("x", "zeta", "alpha", "compare")
	if seed != PairSeed("x", "alpha", "zeta", "compare") {
		t.Fatal("PairSeed depends on the order")
	}
	ab, _ := u.Composite("zeta", "alpha", 4000, seed)
	ba, _ := u.Composite("alpha", "zeta", 4000, seed)
	near := func(x, y float64) bool { return math.Abs(x-y) <= 1e-12*math.Max(1, math.Abs(y)) }
	if !near(ab.Value, -ba.Value) || !near(ab.Lo, -ba.Hi) || !near(ab.Hi, -ba.Lo) || ab.P != ba.P || math.IsNaN(ab.P) {
		t.Errorf("A − B %v [%v, %v] p %v; B − A %v [%v, %v] p %v", ab.Value, ab.Lo, ab.Hi, ab.P, ba.Value, ba.Lo, ba.Hi, ba.P)
	}
	if ab.PFloor != 2.0/4001 {
		t.Errorf("floor %v", ab.PFloor)
	}
	// The whole comparison mirrors too, realism's drawn patterns included.
	cab, _ := u.compare("zeta", "alpha", 4000, seed)
	cba, _ := u.compare("alpha", "zeta", 4000, seed)
	for i := range cab.Diffs {
		x, y := cab.Diffs[i], cba.Diffs[i]
		if !(math.IsNaN(x.Value) && math.IsNaN(y.Value)) && (!near(x.Value, -y.Value) || !near(x.Lo, -y.Hi) || !near(x.Hi, -y.Lo) || !near(x.P, y.P)) {
			t.Errorf("%s: A − B %+v; B − A %+v", x.Dimension, x.Estimate, y.Estimate)
		}
	}
}
