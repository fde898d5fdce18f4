package analysis

import (
	"math"
	"math/rand/v2"
	"testing"
)

func TestMcNemarExactReference(t *testing.T) {
	type tc struct {
		Name                  string
		B, C, N               int
		Confidence            float64
		Diff, Lower, Upper, P float64
	}
	for _, c := range loadRef[tc](t, "mcnemar_exact.json") {
		t.Run(c.Name, func(t *testing.T) {
			e, p, err := McNemarExact(c.B, c.C, c.N, c.Confidence)
			if err != nil {
				t.Fatal(err)
			}
			checkNum(t, "diff", e.Value, c.Diff, tolDefault)
			checkNum(t, "lower", e.Lo, c.Lower, tolAbs(1e-9))
			checkNum(t, "upper", e.Hi, c.Upper, tolAbs(1e-9))
			checkNum(t, "p", p, c.P, tolAbs(1e-12))
		})
	}
	if e, p, err := McNemarExact(0, 0, 10, 0.95); err != nil || p != 1 || e.Value != 0 || !math.IsNaN(e.Lo) {
		t.Errorf("no discordant pairs: %+v %v %v", e, p, err)
	}
	if _, _, err := McNemarExact(5, 6, 10, 0.95); err == nil {
		t.Error("more discordant pairs than pairs accepted")
	}
}

func TestSignFlipReference(t *testing.T) {
	type tc struct {
		Name       string
		D          []float64
		Confidence float64
		Mean, P    float64
		Lower      *float64
		Upper      *float64
	}
	for _, c := range loadRef[tc](t, "signflip.json") {
		t.Run(c.Name, func(t *testing.T) {
			e, p, exact, err := SignFlip(c.D, c.Confidence, 0, 0)
			if err != nil {
				t.Fatal(err)
			}
			if !exact {
				t.Error("not exact")
			}
			checkNum(t, "mean", e.Value, c.Mean, tolDefault)
			checkNum(t, "p", p, c.P, tolAbs(1e-12))
			// Nil: no shift is rejected (too few pairs), the bound is infinite.
			for _, b := range []struct {
				what string
				got  float64
				want *float64
			}{{"lower", e.Lo, c.Lower}, {"upper", e.Hi, c.Upper}} {
				if b.want == nil {
					if !math.IsInf(b.got, 0) {
						t.Errorf("%s = %v, want infinite", b.what, b.got)
					}
					continue
				}
				checkNum(t, b.what, b.got, *b.want, tolAbs(1e-7))
			}
		})
	}
}

// TestIntervalsAgreeWithTests: over random tables and differences, the
// interval excludes 0 exactly when p < 1 − confidence (issue #28).
func TestIntervalsAgreeWithTests(t *testing.T) {
	rng := rand.New(rand.NewPCG(28, 1))
	tables, diffs := 3000, 300
	if testing.Short() { // the race detector's run
		tables, diffs = 600, 60
	}
	for i := range tables {
		n := 1 + rng.IntN(300)
		b := rng.IntN(n + 1)
		c := rng.IntN(n - b + 1)
		if rng.IntN(3) == 0 { // small tables, where the exact test matters
			n = 1 + rng.IntN(30)
			b = rng.IntN(n + 1)
			c = rng.IntN(n - b + 1)
		}
		conf := []float64{0.9, 0.95, 0.99}[rng.IntN(3)]
		e, p, err := McNemarExact(b, c, n, conf)
		if err != nil {
			t.Fatal(err)
		}
		excludes := e.Lo > 0 || e.Hi < 0
		if excludes != (p < 1-conf) {
			t.Fatalf("table %d (b=%d c=%d n=%d, %.2f): interval [%v, %v], p = %v", i, b, c, n, conf, e.Lo, e.Hi, p)
		}
	}
	for i := range diffs {
		n := 2 + rng.IntN(24)
		d := make([]float64, n)
		shift := rng.NormFloat64() * 30
		for j := range d {
			// Realism-like half-points, or continuous values.
			if i%2 == 0 {
				d[j] = 50 * float64(rng.IntN(5)-2)
			} else {
				d[j] = shift + 20*rng.NormFloat64()
			}
		}
		e, p, _, err := SignFlip(d, 0.95, 2000, uint64(i))
		if err != nil {
			t.Fatal(err)
		}
		excludes := e.Lo > 0 || e.Hi < 0
		if excludes != (p < 0.05) {
			t.Fatalf("differences %d (%v): interval [%v, %v], p = %v", i, d, e.Lo, e.Hi, p)
		}
	}
}
