package analysis

import (
	"math"
	"math/rand/v2"
	"testing"
)

// TestNewcombePairedCovers simulates paired 0/1 outcomes at n = 96 (the
// AuditBench unit count) over a grid of concordant and discordant rates,
// with a fixed seed, and asserts that Newcombe's interval covers the true
// difference in at least 94% of 4,000 replications at every point; the
// conditional Clopper–Pearson interval it replaced covered 65–90% at some.
func TestNewcombePairedCovers(t *testing.T) {
	rng := rand.New(rand.NewPCG(48, 1))
	const n, reps = 96, 4000
	for _, both := range []float64{0.1, 0.3, 0.6} {
		for _, onlyA := range []float64{0.02, 0.05, 0.1, 0.2} {
			for _, onlyB := range []float64{0.01, 0.05, 0.15} {
				if both+onlyA+onlyB > 0.95 {
					continue
				}
				truth := onlyA - onlyB
				covered := 0
				for range reps {
					var a, b, c, d int
					for range n {
						switch u := rng.Float64(); {
						case u < both:
							a++
						case u < both+onlyA:
							b++
						case u < both+onlyA+onlyB:
							c++
						default:
							d++
						}
					}
					e, err := NewcombePaired(a, b, c, d, 0.95)
					if err != nil {
						t.Fatal(err)
					}
					if e.Lo <= truth && truth <= e.Hi {
						covered++
					}
				}
				cov := float64(covered) / reps
				if cov < 0.94 {
					t.Errorf("both %.2f, A only %.2f, B only %.2f: coverage %.3f, want ≥ 0.94", both, onlyA, onlyB, cov)
				}
				t.Logf("both %.2f, A only %.2f, B only %.2f: coverage %.3f", both, onlyA, onlyB, cov)
			}
		}
	}
}

// TestNewcombePairedExample: the demo's AuditBench default row the issue
// (#48) recomputed independently: 31 both, 14 A only, 1 B only, 50
// neither gives +13.54 [+5.78, +20.98] points.
func TestNewcombePairedExample(t *testing.T) {
	e, err := NewcombePaired(31, 14, 1, 50, 0.95)
	if err != nil {
		t.Fatal(err)
	}
	got := [3]float64{100 * e.Value, 100 * e.Lo, 100 * e.Hi}
	want := [3]float64{13.54, 5.78, 20.98}
	for i := range got {
		if math.Abs(got[i]-want[i]) > 0.005 {
			t.Errorf("got %.4f, want %.2f (%v)", got, want, got)
			break
		}
	}
}

// TestNewcombeReference checks both intervals against newcombe.json
// (testdata/stats/newcombe.py: statsmodels for the independent one, the
// closed form checked against the recomputation for the paired).
func TestNewcombeReference(t *testing.T) {
	type raw struct {
		Name       string  `json:"name"`
		Kind       string  `json:"kind"`
		Both       int     `json:"both"`
		OnlyA      int     `json:"only_a"`
		OnlyB      int     `json:"only_b"`
		Neither    int     `json:"neither"`
		X1         float64 `json:"x1"`
		N1         int     `json:"n1"`
		X2         float64 `json:"x2"`
		N2         int     `json:"n2"`
		Confidence float64 `json:"confidence"`
		Diff       float64 `json:"diff"`
		Lower      float64 `json:"lower"`
		Upper      float64 `json:"upper"`
	}
	for _, c := range loadRef[raw](t, "newcombe.json") {
		var e Estimate
		var err error
		if c.Kind == "paired" {
			e, err = NewcombePaired(c.Both, c.OnlyA, c.OnlyB, c.Neither, c.Confidence)
		} else {
			e, err = NewcombeIndependent(c.X1, c.N1, c.X2, c.N2, c.Confidence)
		}
		if err != nil {
			t.Fatalf("%s: %v", c.Name, err)
		}
		if !tolDefault(e.Value, c.Diff) || !tolDefault(e.Lo, c.Lower) || !tolDefault(e.Hi, c.Upper) {
			t.Errorf("%s: got %v [%v, %v], want %v [%v, %v]", c.Name, e.Value, e.Lo, e.Hi, c.Diff, c.Lower, c.Upper)
		}
	}
}
