package analysis

import (
	"math"
	"testing"
)

type heldOutCase struct {
	Name       string      `json:"name"`
	X          [][]float64 `json:"x"`
	Y          []float64   `json:"y"`
	Groups     []string    `json:"groups"`
	LORO       float64     `json:"loro_r2"`
	Chance     float64     `json:"chance"`
	PermPExact *float64    `json:"perm_p_exact"`
	R2         float64     `json:"r2"`
	BCaLower   float64     `json:"bca_lower"`
	BCaUpper   float64     `json:"bca_upper"`
	BCaSE      float64     `json:"bca_se"`
}

// TestLeaveGroupOutR2Reference: the held-out R² leaving one run out
// against sklearn's LeaveOneGroupOut, its chance level, and the block
// permutation p against an exact count over every permutation
// (crux_heldout.json).
func TestLeaveGroupOutR2Reference(t *testing.T) {
	for _, c := range loadRef[heldOutCase](t, "crux_heldout.json") {
		h, err := LeaveGroupOutR2(c.X, c.Y, c.Groups, 20000, 1)
		if err != nil {
			t.Fatalf("%s: %v", c.Name, err)
		}
		if math.Abs(h.R2-c.LORO) > 1e-9*math.Max(1, math.Abs(c.LORO)) || math.Abs(h.Chance-c.Chance) > 1e-15 || !h.Blocks {
			t.Errorf("%s: held-out R² %v (chance %v, blocks %v), want %v (%v)", c.Name, h.R2, h.Chance, h.Blocks, c.LORO, c.Chance)
		}
		if c.PermPExact != nil {
			// 20,000 drawn permutations: the Monte Carlo error is under 0.004.
			if math.Abs(h.P-*c.PermPExact) > 0.015 {
				t.Errorf("%s: permutation p %v, exact %v", c.Name, h.P, *c.PermPExact)
			}
		}
		// Noise is not a finding: chance-level fits are not significant,
		// the planted signal is.
		if signal := c.Name == "checkpoints-k3-signal"; signal != (h.P < 0.05) {
			t.Errorf("%s: p %v", c.Name, h.P)
		}
	}
}

// TestR2GroupBCaReference: the in-sample R² and its BCa interval over runs
// against scipy's bootstrap(method="BCa") with the runs as the data; the
// streams differ, so each bound may differ by a quarter of the bootstrap
// standard deviation.
func TestR2GroupBCaReference(t *testing.T) {
	for _, c := range loadRef[heldOutCase](t, "crux_heldout.json") {
		e, err := R2GroupBCa(c.X, c.Y, c.Groups, 40000, 0.95, 3)
		if err != nil {
			t.Fatalf("%s: %v", c.Name, err)
		}
		tol := 0.25 * c.BCaSE
		if math.Abs(e.Value-c.R2) > 1e-9 || math.Abs(e.Lo-c.BCaLower) > tol || math.Abs(e.Hi-c.BCaUpper) > tol {
			t.Errorf("%s: %v [%v, %v], want %v [%v, %v] ± %v", c.Name, e.Value, e.Lo, e.Hi, c.R2, c.BCaLower, c.BCaUpper, tol)
		}
		t.Logf("%s: [%v, %v] vs [%v, %v] (se %v)", c.Name, e.Lo, e.Hi, c.BCaLower, c.BCaUpper, c.BCaSE)
	}
}
