package judged

import (
	"math"
	"testing"

	"github.com/auditscope/auditscope/analysis"
	"github.com/auditscope/auditscope/data/model"
)

var nan = math.NaN()

func audit(id, target, seed string, scores ...float64) model.JudgedAudit {
	return model.JudgedAudit{Key: "e:" + id, ID: id, Auditor: "aud", Target: target, Seed: seed, TargetReplies: 3, Judge: "parsed", Conversation: id, Scores: scores}
}

// TestGate: each reason on an audit of its own, in order, the duplicate
// the later of two with one conversation.
func TestGate(t *testing.T) {
	dims := []string{"concerning", DimAuditorFailure, DimScenarioRealism}
	set := model.JudgedSet{Dimensions: dims, Audits: []model.JudgedAudit{
		audit("ok", "A", "s1", 5, 1, 8),
		audit("silent", "A", "s2", 1, 1, 1),
		audit("none", "A", "s3", nan, nan, nan),
		audit("defaults", "A", "s4", 1, 1, 1),
		audit("failed", "A", "s5", 2, 9, 8),
		audit("fake", "A", "s6", 2, 1, 2),
		audit("copy", "A", "s1", 5, 1, 8),
	}}
	set.Audits[1].TargetReplies = 0
	set.Audits[3].Judge = "unparsed"
	set.Audits[6].Conversation = "ok"
	ex := Gate(set, GateOptions{FailAt: 7, RealismBelow: 3})
	want := []string{"", ReasonNoReply, ReasonNoVerdict, ReasonUnparsed, ReasonFailure, ReasonUnrealistic, ReasonDuplicate}
	for i, w := range want {
		if ex[i].Reason != w {
			t.Errorf("%s: excluded as %q, want %q", set.Audits[i].ID, ex[i].Reason, w)
		}
	}
	if ex[6].Detail != "the same conversation as ok" {
		t.Errorf("duplicate detail %q", ex[6].Detail)
	}
	c := Count(ex)
	if c.Kept != 1 || c.Total() != 6 {
		t.Errorf("counts %+v", c)
	}
	// Thresholds off: the flags keep their audits.
	ex = Gate(set, GateOptions{})
	if ex[4].Reason != "" || ex[5].Reason != "" {
		t.Errorf("flags checked with the thresholds off: %+v", ex)
	}
}

// TestSummarize: a model's mean is its audits' mean, the interval over
// seeds (two rollouts of one seed are one cluster), the yield the share at
// or above the threshold; dimensions outside 1–10 are not judge
// dimensions.
func TestSummarize(t *testing.T) {
	set := model.JudgedSet{Dimensions: []string{"concerning", "accuracy"}, Audits: []model.JudgedAudit{
		audit("a1", "A", "s1", 8, 0), audit("a2", "A", "s1", 6, 1), audit("a3", "A", "s2", 2, 1), audit("a4", "A", "s3", 7, 0),
		audit("b1", "B", "s1", 1, 1), audit("b2", "B", "s2", 3, 1),
	}}
	dims := JudgeDims(set)
	if len(dims) != 1 || dims[0] != 0 {
		t.Fatalf("judge dimensions %v, want [0]", dims)
	}
	keep := []bool{true, true, true, true, true, true}
	o, err := Summarize(set, keep, RoleTarget, dims, 7, 0.95)
	if err != nil {
		t.Fatal(err)
	}
	if len(o.Models) != 2 || o.Models[0] != "A" || o.Audits[0] != 4 || o.Seeds[0] != 3 {
		t.Fatalf("models %v, audits %v, seeds %v", o.Models, o.Audits, o.Seeds)
	}
	a := o.Cells[0][0]
	wantMean, _, _ := analysis.ClusterMeanCI([]float64{8, 6, 2, 7}, []int{0, 0, 1, 2}, 0.95)
	if a.Mean != wantMean || a.Mean.Value != 5.75 || a.N != 4 || a.Seeds != 3 || a.Hit != 2 || a.Yield.Value != 0.5 {
		t.Errorf("A: %+v", a)
	}
	// Clustered, the interval is wider than the one that takes four
	// independent audits.
	naive, _ := analysis.MeanCI([]float64{8, 6, 2, 7}, 0.95)
	if !(a.Mean.Hi-a.Mean.Lo > naive.Hi-naive.Lo) {
		t.Errorf("the seed-clustered interval %+v is not wider than the naive %+v", a.Mean, naive)
	}
}

// TestCompare: pairs by seed, a seed's rollouts averaged; the exact
// sign-flip p of the differences [4 0 5 2 4 4] is 4/64 (counted by
// enumeration in Python); the interval agrees with the test.
func TestCompare(t *testing.T) {
	a := map[string][]float64{"s1": {5, 7}, "s2": {4}, "s3": {8}, "s4": {3}, "s5": {6}, "s6": {9}, "s7": {4}}
	b := map[string][]float64{"s1": {2}, "s2": {4}, "s3": {3}, "s4": {1}, "s5": {2}, "s6": {5}}
	set := model.JudgedSet{Dimensions: []string{"concerning", "admirable"}}
	for _, s := range []string{"s1", "s2", "s3", "s4", "s5", "s6", "s7"} {
		for i, v := range a[s] {
			set.Audits = append(set.Audits, audit("a"+s+string(rune('0'+i)), "A", s, v, 2))
		}
		for _, v := range b[s] {
			set.Audits = append(set.Audits, audit("b"+s, "B", s, v, 2))
		}
	}
	keep := make([]bool, len(set.Audits))
	for i := range keep {
		keep[i] = true
	}
	p, err := Compare(set, keep, RoleTarget, "A", "B", []int{0, 1}, CorrectBH, 0.95)
	if err != nil {
		t.Fatal(err)
	}
	if len(p.Seeds) != 6 || len(p.Seeds[0].A) != 2 {
		t.Fatalf("%d seeds paired (s7 has no B), first %+v", len(p.Seeds), p.Seeds[0])
	}
	r := p.Rows[0]
	if r.Pairs != 6 || math.Abs(r.P-0.0625) > 1e-12 || math.Abs(r.Diff.Value-19.0/6) > 1e-12 || !r.Exact {
		t.Errorf("concerning: %+v", r)
	}
	if (r.P < 0.05) != (r.Diff.Lo > 0 || r.Diff.Hi < 0) {
		t.Errorf("the interval [%v, %v] disagrees with p %v", r.Diff.Lo, r.Diff.Hi, r.P)
	}
	// admirable: no difference at all; BH over two p-values.
	if z := p.Rows[1]; z.Diff.Value != 0 || z.P != 1 {
		t.Errorf("admirable: %+v", z)
	}
	if q := p.Rows[0].Adjusted; math.Abs(q-0.125) > 1e-12 {
		t.Errorf("BH q of concerning %v, want 2·0.0625/1 = 0.125", q)
	}
}
