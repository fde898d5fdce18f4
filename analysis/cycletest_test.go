package analysis

import (
	"math"
	"testing"
)

// TestCycleTestReference: edge p-values against scipy's binomtest and the
// transitive Bradley–Terry replay test against an independent simulation
// (cycle_test.json: Hunter's MM fit, numpy draws, 50,000 replays), within
// Monte Carlo error.
func TestCycleTestReference(t *testing.T) {
	type edge struct {
		Wins, Losses int
		P            float64
	}
	type tc struct {
		Name     string
		Wins     [][]float64
		Observed int
		P, Mean  float64
		Edges    []edge
	}
	for _, c := range loadRef[tc](t, "cycle_test.json") {
		for _, e := range c.Edges {
			if got := EdgeP(e.Wins, e.Losses); math.Abs(got-e.P) > 1e-12 {
				t.Errorf("%s: edge %d–%d: p %v, want %v", c.Name, e.Wins, e.Losses, got, e.P)
			}
		}
		got, err := TestTransitiveCycles(c.Wins, 20000, 9)
		if err != nil {
			t.Fatalf("%s: %v", c.Name, err)
		}
		if got.Observed != c.Observed || math.Abs(got.P-c.P) > 0.015 || math.Abs(got.Mean-c.Mean) > 0.03 {
			t.Errorf("%s: %+v, want observed %d, p %v, mean %v", c.Name, got, c.Observed, c.P, c.Mean)
		}
	}
	if p := EdgeP(18, 10); math.Abs(p-0.1849333420395851) > 1e-12 {
		t.Errorf("18–10: %v", p)
	}
	// A cycle is as strong as its weakest edge.
	w := [][]float64{{0, 30, 10}, {2, 0, 18}, {20, 10, 0}}
	if p := CycleP(w, []int{0, 1, 2}); p != EdgeP(18, 10) {
		t.Errorf("cycle p %v, want the 18–10 edge's %v", p, EdgeP(18, 10))
	}
}
