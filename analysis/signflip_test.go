package analysis

import (
	"math"
	"math/rand/v2"
	"slices"
	"testing"
)

// TestSignFlipPReference: the exact p-value when most differences are 0
// (signflip_p.json: scipy's exact permutation test on the non-zero ones).
func TestSignFlipPReference(t *testing.T) {
	type tc struct {
		Name string
		D    []float64
		P    float64
	}
	for _, c := range loadRef[tc](t, "signflip_p.json") {
		p, exact := SignFlipP(c.D)
		if !exact || math.Abs(p-c.P) > 1e-12 {
			t.Errorf("%s: p = %v (exact %v), want %v", c.Name, p, exact, c.P)
		}
	}
	if p, exact := SignFlipP(make([]float64, 30)); p != 1 || !exact {
		t.Errorf("all zero: %v %v", p, exact)
	}
	if _, exact := SignFlipP(slices.Repeat([]float64{1}, SignFlipExactMax+1)); exact {
		t.Error("past SignFlipExactMax non-zero differences: want no exact p")
	}
}

// TestSignFlipMirrors: enumerated, B − A is exactly A − B negated, in any
// order of the pairs (the realism row was [−20.0, +22.2] one way).
func TestSignFlipMirrors(t *testing.T) {
	rng := rand.New(rand.NewPCG(48, 6))
	for range 20 {
		n := 5 + rng.IntN(SignFlipExactMax-4)
		d := make([]float64, n)
		for i := range d {
			d[i] = 50 * float64(rng.IntN(5)-2)
		}
		e, p, _, err := SignFlip(d, 0.95, 0, 0)
		if err != nil {
			t.Fatal(err)
		}
		neg := make([]float64, n)
		for i, x := range d {
			neg[n-1-i] = -x
		}
		f, q, _, _ := SignFlip(neg, 0.95, 0, 0)
		if p != q || math.Abs(e.Lo+f.Hi) > 1e-9 || math.Abs(e.Hi+f.Lo) > 1e-9 {
			t.Errorf("%v: [%v, %v] p %v; negated [%v, %v] p %v", d, e.Lo, e.Hi, p, f.Lo, f.Hi, q)
		}
	}
}
