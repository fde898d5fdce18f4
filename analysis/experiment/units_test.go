package experiment

import (
	"fmt"
	"math"
	"math/rand/v2"
	"slices"
	"testing"

	"github.com/auditscope/auditscope/data/model"
)

// TestMatchedCounts: the units Matched lists for every row of Compare add
// up to the row's counts (units each side has, pairs, discordant pairs by
// side), for data with one and several audits a unit, units without a
// seed, one side only, one shared unit (a mean test unpaired) and none.
// Every audit of the data is listed once under its dimension.
func TestMatchedCounts(t *testing.T) {
	audits, realism := matchedCountsData()
	u, err := GatherUnits(audits, realism, nil)
	if err != nil {
		t.Fatal(err)
	}
	checked := 0
	for _, pair := range [][2]string{{"A", "B"}, {"B", "A"}, {"A", "C"}, {"C", "B"}, {"A", "D"}, {"D", "C"}} {
		a, b := pair[0], pair[1]
		c, err := Compare(a, b, audits, realism, 50, 1)
		if err != nil {
			t.Fatal(err)
		}
		for _, d := range c.Diffs {
			m, err := u.Matched(a, b, d.Dimension)
			if err != nil {
				t.Fatal(err)
			}
			if m.NA != d.NA || m.NB != d.NB || m.Pairs != d.Pairs || m.OnlyA != d.OnlyA || m.OnlyB != d.OnlyB || m.Unit != d.Unit {
				t.Errorf("%s − %s %s: units count NA %d NB %d pairs %d only %d/%d (%s), the row %d %d %d %d/%d (%s)", a, b, d.Dimension,
					m.NA, m.NB, m.Pairs, m.OnlyA, m.OnlyB, m.Unit, d.NA, d.NB, d.Pairs, d.OnlyA, d.OnlyB, d.Unit)
			}
			for _, x := range m.Units {
				if x.Paired != !math.IsNaN(x.Diff) || (x.Paired && x.Diff != x.A.Value-x.B.Value) || len(x.A.Audits) != len(x.A.Values) {
					t.Errorf("%s − %s %s: unit %+v", a, b, d.Dimension, x)
				}
			}
			checked++
		}
	}
	if checked != 6*len(CompareDimensions) {
		t.Errorf("%d rows checked", checked)
	}
	checkMatchedListing(t, u, audits, realism)
}

// matchedCountsData is TestMatchedCounts' data, drawn from a fixed seed:
// auditors A, B and C over every dimension (units without a seed, one or
// two AuditBench audits a unit), and D with a production seed shared
// with A and AuditBench units A lacks.
func matchedCountsData() ([]Audit, []RealismJudgment) {
	rng := rand.New(rand.NewPCG(5, 6))
	var audits []Audit
	var realism []RealismJudgment
	id := 0
	add := func(a Audit) {
		id++
		a.ID = fmt.Sprint("x", id)
		audits = append(audits, a)
	}
	for _, a := range []string{"A", "B", "C"} {
		for i := range 14 {
			seed := fmt.Sprint(i % 7)
			if rng.IntN(6) == 0 {
				seed = ""
			}
			add(Audit{Auditor: a, Eval: model.EvalAuditQuality, Behavior: fmt.Sprint("b", i%3), Seed: seed, Quality: fp(100 * rng.Float64())})
			add(Audit{Auditor: a, Eval: model.EvalFPCalibration, Seed: seed, FalsePositive: bp(rng.IntN(4) == 0)})
			add(Audit{Auditor: a, Eval: model.EvalProduction, Seed: seed, ProductionValue: fp(100 * rng.Float64())})
			// One audit a unit for A and B (McNemar); C has two.
			if a != "C" || i < 7 {
				add(Audit{Auditor: a, Eval: model.EvalAuditBenchSTC, Behavior: fmt.Sprint("q", i%2), Seed: fmt.Sprint(i), Detected: bp(rng.IntN(2) == 0)})
			}
			if a == "C" {
				add(Audit{Auditor: a, Eval: model.EvalAuditBenchSTC, Behavior: fmt.Sprint("q", i%2), Seed: fmt.Sprint(i % 7), Detected: bp(rng.IntN(2) == 0)})
			}
			id++
			realism = append(realism, RealismJudgment{Auditor: a, Audit: fmt.Sprint("r", id), Seed: seed, Outcome: []string{"win", "tie", "loss"}[rng.IntN(3)]})
		}
	}
	// D shares one production seed with A (Welch's t, unpaired), and has
	// AuditBench units A lacks.
	add(Audit{Auditor: "D", Eval: model.EvalProduction, Seed: "0", ProductionValue: fp(40)})
	add(Audit{Auditor: "D", Eval: model.EvalProduction, Seed: "zz", ProductionValue: fp(60)})
	add(Audit{Auditor: "D", Eval: model.EvalAuditBenchDefault, Behavior: "q0", Seed: "1", Detected: bp(true)})
	add(Audit{Auditor: "A", Eval: model.EvalAuditBenchDefault, Behavior: "q0", Seed: "1", Detected: bp(false)})
	add(Audit{Auditor: "A", Eval: model.EvalAuditBenchDefault, Behavior: "q1", Seed: "2", Detected: bp(false)})
	return audits, realism
}

// checkMatchedListing is TestMatchedCounts' second half, apart so the
// test stays short: A's audits each listed once, Matched's refusals, and
// ByDifference's order.
func checkMatchedListing(t *testing.T, u *Units, audits []Audit, realism []RealismJudgment) {
	t.Helper()
	// Every audit of A's is listed once, under its dimension.
	listed := map[string]int{}
	for _, dim := range []string{AuditQuality, FPCalibration, Production, AuditBenchSTC, AuditBenchDefault, Realism} {
		m, _ := u.Matched("A", "B", dim)
		for _, x := range m.Units {
			for _, id := range x.A.Audits {
				listed[id]++
			}
		}
	}
	for _, a := range audits {
		if a.Auditor == "A" && listed[a.ID] != 1 {
			t.Errorf("audit %s (%s) listed %d times", a.ID, a.Eval, listed[a.ID])
		}
	}
	for _, j := range realism {
		if j.Auditor == "A" && listed[j.Audit] != 1 {
			t.Errorf("realism audit %s listed %d times", j.Audit, listed[j.Audit])
		}
	}
	if _, err := u.Matched("A", "A", AuditQuality); err == nil {
		t.Error("an auditor against itself")
	}
	if _, err := u.Matched("A", "B", "nonsense"); err == nil {
		t.Error("an unknown dimension")
	}
	m, _ := u.Matched("A", "B", AuditQuality)
	ByDifference(m.Units)
	var diffs []float64
	for _, x := range m.Units {
		if x.Paired {
			diffs = append(diffs, -math.Abs(x.Diff))
		} else if len(diffs) < m.Pairs {
			t.Error("an unpaired unit before a paired one")
		}
	}
	if !slices.IsSorted(diffs) {
		t.Error("ByDifference: not largest first")
	}
}
