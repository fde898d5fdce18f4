package scorer

import (
	"math"
	"testing"

	"github.com/auditscope/auditscope/analysis"
)

// TestCompareSamples: samples pair by task and id across the sides, epochs
// reduce to their mean first, a 0/1 metric gets McNemar over the pairs
// (counts by hand), another the paired t over the reduced values, and the
// page's metrics are one Holm family.
func TestCompareSamples(t *testing.T) {
	var vals []SampleValue
	n := 0
	add := func(side, sample, scorer string, v float64) {
		n++
		vals = append(vals, SampleValue{Audit: side + "-" + sample + "-" + scorer + "-" + string(rune('0'+n%10)), Side: side, Task: "t", Sample: sample, Scorer: scorer, Value: v})
	}
	for s, v := range map[string]float64{"1": 1, "2": 1, "3": 0, "4": 1, "6": 0} {
		add("A", s, "match", v)
	}
	for s, v := range map[string]float64{"1": 1, "2": 0, "3": 0, "5": 1, "6": 1} {
		add("B", s, "match", v)
	}
	// Two epochs of sample 1 on A: its value is their mean.
	add("A", "1", "grade", 0.5)
	add("A", "1", "grade", 1)
	add("A", "2", "grade", 0.2)
	add("A", "3", "grade", 0.9)
	add("B", "1", "grade", 0.4)
	add("B", "2", "grade", 0.3)
	add("B", "3", "grade", 0.1)
	// The same sample id in another task is another sample.
	vals = append(vals, SampleValue{Audit: "x", Side: "B", Task: "other", Sample: "1", Scorer: "grade", Value: 1})

	ds, err := Compare("A", "B", vals)
	if err != nil {
		t.Fatal(err)
	}
	if len(ds) != 2 || ds[0].Metric != "grade" || ds[1].Metric != "match" {
		t.Fatalf("%+v", ds)
	}
	g, m := ds[0], ds[1]
	// match: pairs 1, 2, 3, 6; A only on 2, B only on 6.
	if !m.Binary || m.NA != 5 || m.NB != 5 || m.Pairs != 4 || m.OnlyA != 1 || m.OnlyB != 1 || m.Value != 0 || m.P != 1 {
		t.Errorf("match: %+v", m)
	}
	// grade: A 0.75, 0.2, 0.9 against B 0.4, 0.3, 0.1.
	e, p, err := analysis.PairedT([]float64{0.75, 0.2, 0.9}, []float64{0.4, 0.3, 0.1}, 0.95)
	if err != nil {
		t.Fatal(err)
	}
	if g.Binary || g.NA != 3 || g.NB != 4 || g.Pairs != 3 || math.Abs(g.Value-(0.35-0.1+0.8)/3) > 1e-15 || g.Estimate != e || g.P != p {
		t.Errorf("grade: %+v, want %v p %v", g, e, p)
	}
	holm := analysis.Holm([]float64{g.P, m.P})
	if g.PHolm != holm[0] || m.PHolm != holm[1] {
		t.Errorf("Holm: %v %v, want %v", g.PHolm, m.PHolm, holm)
	}
	// The units behind a row count as the row does.
	for _, d := range ds {
		var na, nb, pairs int
		for _, u := range Units("A", "B", d.Metric, vals) {
			na += b2i(u.A.Has())
			nb += b2i(u.B.Has())
			pairs += b2i(u.Paired)
		}
		if na != d.NA || nb != d.NB || pairs != d.Pairs {
			t.Errorf("%s: units %d %d %d, the row %+v", d.Metric, na, nb, pairs, d)
		}
	}
	us := Units("A", "B", "grade", vals)
	ByDifference(us)
	if us[0].Sample != "3" || !us[len(us)-1].B.Has() || us[len(us)-1].A.Has() {
		t.Errorf("by difference: %+v", us)
	}
	if _, err := Compare("A", "A", vals); err == nil {
		t.Error("a side against itself")
	}
}

func b2i(b bool) int {
	if b {
		return 1
	}
	return 0
}
