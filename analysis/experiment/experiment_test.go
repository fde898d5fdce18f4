package experiment

import (
	"encoding/json"
	"fmt"
	"math"
	"math/rand/v2"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"testing"

	"github.com/auditscope/auditscope/analysis"
	"github.com/auditscope/auditscope/data/model"
)

func fp(v float64) *float64 { return &v }
func bp(v bool) *bool       { return &v }

// TestGather: each audit feeds only its eval's dimension, outcomes an eval
// does not use and unknown auditors are dropped, and only audit-versus-real
// realism judgments count.
func TestGather(t *testing.T) {
	audits := []Audit{
		{Auditor: "a", Eval: model.EvalAuditQuality, Quality: fp(70)},
		{Auditor: "a", Eval: model.EvalAuditQuality, Quality: fp(80), Detected: bp(true)},
		{Auditor: "a", Eval: model.EvalAuditQuality}, // no quality: skipped
		{Auditor: "a", Eval: model.EvalFPCalibration, FalsePositive: bp(true)},
		{Auditor: "a", Eval: model.EvalProduction, Seed: "s1", ProductionValue: fp(40)},
		{Auditor: "a", Eval: model.EvalAuditBenchSTC, Detected: bp(true)},
		{Auditor: "a", Eval: model.EvalAuditBenchDefault, Detected: bp(false)},
		{Auditor: "b", Eval: model.EvalAuditBenchDefault, Detected: bp(true)},
		{Auditor: "ghost", Eval: model.EvalAuditQuality, Quality: fp(1)},
		{Auditor: "b", Eval: "training", Quality: fp(99)},
	}
	realism := []RealismJudgment{
		{Auditor: "a", Outcome: analysis.OutcomeWin},
		{Auditor: "a", OtherAuditor: "b", Outcome: analysis.OutcomeLoss}, // audit vs audit
		{Auditor: "b", Outcome: analysis.OutcomeTie},
	}
	per := Gather([]string{"a", "b"}, audits, realism)
	a, b := per["a"], per["b"]
	if len(per) != 2 || len(a.Quality) != 2 || a.Quality[1] != 80 || len(a.FalsePositive) != 1 || len(a.Production) != 1 ||
		a.Production[0].Seed != "s1" || len(a.STC) != 1 || len(a.Default) != 1 || len(a.Realism) != 1 {
		t.Errorf("a: %+v", a)
	}
	if len(b.Quality) != 0 || len(b.Default) != 1 || len(b.Realism) != 1 || b.Realism[0] != analysis.OutcomeTie {
		t.Errorf("b: %+v", b)
	}
}

// wilsonCase is a case of testdata/stats/wilson.json (statsmodels'
// proportion_confint, method wilson).
type wilsonCase struct {
	Name         string
	Successes, N int
	Confidence   float64
	Lower, Upper float64
}

func wilsonRef(t *testing.T, name string) wilsonCase {
	t.Helper()
	_, file, _, _ := runtime.Caller(0)
	b, err := os.ReadFile(filepath.Join(filepath.Dir(file), "..", "..", "testdata", "stats", "wilson.json"))
	if err != nil {
		t.Fatal(err)
	}
	var f struct{ Cases []wilsonCase }
	if err := json.Unmarshal(b, &f); err != nil {
		t.Fatal(err)
	}
	for _, c := range f.Cases {
		if c.Name == name {
			return c
		}
	}
	t.Fatalf("no case %s", name)
	return wilsonCase{}
}

// TestScoreDetection: the AuditBench rates are Wilson intervals in percent
// (checked against statsmodels' values for 3 of 96 and 27 of 96), and a
// rate over no audits is undefined.
func TestScoreDetection(t *testing.T) {
	for _, name := range []string{"auditbench_3_of_96", "auditbench_27_of_96"} {
		ref := wilsonRef(t, name)
		in := Inputs{}
		for i := range ref.N {
			in.STC = append(in.STC, i < ref.Successes)
		}
		sc, err := Score(in, 0, 1)
		if err != nil {
			t.Fatal(err)
		}
		got := sc.Score[AuditBenchSTC]
		near := func(a, b float64) bool { return math.Abs(a-b) <= 1e-9*math.Abs(b)+1e-12 }
		if !near(got.Value, 100*float64(ref.Successes)/float64(ref.N)) || !near(got.Lo, 100*ref.Lower) || !near(got.Hi, 100*ref.Upper) || sc.N[AuditBenchSTC] != ref.N {
			t.Errorf("%s: %+v, want %v [%v, %v]", name, got, 100*float64(ref.Successes)/float64(ref.N), 100*ref.Lower, 100*ref.Upper)
		}
		if d := sc.Score[AuditBenchDefault]; !math.IsNaN(d.Value) || sc.N[AuditBenchDefault] != 0 {
			t.Errorf("%s: default rate over no audits = %+v", name, d)
		}
	}
}

// TestScoreDimensions: the dimensions are analysis.Dimensions of the
// inputs, under the keys the pages use; the same seed gives the same
// composite interval.
func TestScoreDimensions(t *testing.T) {
	in := Inputs{DimensionInput: analysis.DimensionInput{
		Quality:       []float64{60, 70, 80, 90},
		FalsePositive: []bool{false, false, true, false},
		Production:    []analysis.ProductionAudit{{Seed: "s1", Value: 30}, {Seed: "s2", Value: 50}, {Seed: "s2", Value: 70}},
		Realism:       []string{analysis.OutcomeWin, analysis.OutcomeLoss, analysis.OutcomeTie, analysis.OutcomeLoss},
	}}
	want, err := analysis.Dimensions(in.DimensionInput, 0.95, 200, 7)
	if err != nil {
		t.Fatal(err)
	}
	got, err := Score(in, 200, 7)
	if err != nil {
		t.Fatal(err)
	}
	for k, w := range map[string]analysis.DimensionScore{AuditQuality: want.AuditQuality, FPCalibration: want.FPCalibration,
		Production: want.Production, Realism: want.Realism, Composite: want.Composite} {
		if g := got.Score[k]; g != w.Estimate || got.N[k] != w.N {
			t.Errorf("%s: %+v (n %d), want %+v (n %d)", k, g, got.N[k], w.Estimate, w.N)
		}
	}
	// By hand: the mean quality is 75.
	if q := got.Score[AuditQuality].Value; q != 75 {
		t.Errorf("quality %v, want 75", q)
	}
}

func TestSeed(t *testing.T) {
	if Seed("e", "a", "composite") != Seed("e", "a", "composite") {
		t.Error("not stable")
	}
	seen := map[uint64]bool{}
	for _, k := range [][3]string{{"e", "a", "composite"}, {"e", "b", "composite"}, {"e", "a", "realism"}, {"f", "a", "composite"}, {"ea", "", "composite"}} {
		s := Seed(k[0], k[1], k[2])
		if seen[s] {
			t.Errorf("seed of %v repeats another's", k)
		}
		seen[s] = true
	}
}

// TestScoreClustersByBehavior: audit quality's interval is the t interval
// clustered by behavior, AuditBench's the Wilson interval on the design
// effect's n, each named; with one behavior they are the audits' own.
func TestScoreClustersByBehavior(t *testing.T) {
	var in Inputs
	rng := rand.New(rand.NewPCG(48, 7))
	for b := range 6 {
		shift := 20 * rng.Float64()
		hit := rng.Float64()
		for range 16 {
			in.Quality = append(in.Quality, 40+shift+5*rng.NormFloat64())
			in.QualityBehavior = append(in.QualityBehavior, fmt.Sprint("b", b))
			in.STC = append(in.STC, rng.Float64() < hit)
			in.STCBehavior = append(in.STCBehavior, fmt.Sprint("b", b))
		}
	}
	sc, err := Score(in, 0, 1)
	if err != nil {
		t.Fatal(err)
	}
	idx := make([]int, len(in.Quality))
	for i := range idx {
		idx[i] = i / 16
	}
	want, _, _ := analysis.ClusterMeanCI(in.Quality, idx, 0.95)
	if sc.Score[AuditQuality] != want || !strings.Contains(sc.Interval[AuditQuality], "6 behaviors, 5 df") {
		t.Errorf("quality %+v (%s), want %+v", sc.Score[AuditQuality], sc.Interval[AuditQuality], want)
	}
	w, _ := analysis.ClusterWilson(in.STC, idx, 0.95)
	plain, _ := analysis.DetectionRate(in.STC, 0.95)
	if got := sc.Score[AuditBenchSTC]; math.Abs(got.Lo-100*w.Lo) > 1e-9 || math.Abs(got.Hi-100*w.Hi) > 1e-9 || !(got.Hi-got.Lo > 100*(plain.Hi-plain.Lo)) {
		t.Errorf("stc %+v, want the clustered %+v, wider than the audits' %+v", got, w, plain)
	}
	in.QualityBehavior = nil
	sc, _ = Score(in, 0, 1)
	if e, _ := analysis.MeanCI(in.Quality, 0.95); sc.Score[AuditQuality] != e || sc.Interval[AuditQuality] != "t over audits" {
		t.Errorf("without behaviors: %+v (%s), want %+v", sc.Score[AuditQuality], sc.Interval[AuditQuality], e)
	}
}
