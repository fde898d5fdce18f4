package analysis

import (
	"math"
	"testing"
)

// The reference files are made by testdata/stats/paired.py with scipy and
// statsmodels (see the README there).

func TestPairedTReference(t *testing.T) {
	type tc struct {
		Name                  string
		A, B                  []float64
		Confidence            float64
		Diff, Lower, Upper, P float64
	}
	for _, c := range loadRef[tc](t, "paired_t.json") {
		t.Run(c.Name, func(t *testing.T) {
			e, p, err := PairedT(c.A, c.B, c.Confidence)
			if err != nil {
				t.Fatal(err)
			}
			checkNum(t, "diff", e.Value, c.Diff, tolDefault)
			// gonum's Student t quantile agrees with scipy's to about 1e-8
			// of the half-width here (the t_interval cases are tighter).
			checkNum(t, "lower", e.Lo, c.Lower, tolAbs(1e-7))
			checkNum(t, "upper", e.Hi, c.Upper, tolAbs(1e-7))
			checkNum(t, "p", p, c.P, tolAbs(1e-12))
		})
	}
	if _, p, _ := PairedT([]float64{1, 2}, []float64{0, 1}, 0.95); !math.IsNaN(p) {
		t.Errorf("constant differences: p = %v, want NaN", p)
	}
	wantPanic(t, "PairedT", func() { PairedT([]float64{1}, []float64{1, 2}, 0.95) })
}

func TestHolmReference(t *testing.T) {
	type tc struct {
		Name        string
		P, Adjusted []float64
	}
	for _, c := range loadRef[tc](t, "holm.json") {
		t.Run(c.Name, func(t *testing.T) {
			got := Holm(c.P)
			for i := range got {
				checkNum(t, "adjusted", got[i], c.Adjusted[i], tolDefault)
			}
		})
	}
	if got := Holm([]float64{0.01, math.NaN(), 0.04}); !math.IsNaN(got[1]) || got[0] != 0.02 || got[2] != 0.04 {
		t.Errorf("NaN left out: %v", got)
	}
}

// TestPairedBootstrapReference compares the paired percentile bootstrap of
// a mean difference (Bootstrap over pair indices) with scipy's on 200,000
// resamples: the bounds must agree within the Monte Carlo error of 20,000
// resamples (a quarter of the bootstrap standard error).
func TestPairedBootstrapReference(t *testing.T) {
	type tc struct {
		Name                   string
		A, B                   []float64
		Confidence             float64
		Diff, Lower, Upper, SE float64
	}
	for _, c := range loadRef[tc](t, "paired_bootstrap.json") {
		t.Run(c.Name, func(t *testing.T) {
			stat := func(idx []int) float64 {
				var s float64
				for _, i := range idx {
					s += c.A[i] - c.B[i]
				}
				return s / float64(len(idx))
			}
			e, err := Bootstrap(len(c.A), stat, 20000, c.Confidence, 7)
			if err != nil {
				t.Fatal(err)
			}
			checkNum(t, "diff", e.Value, c.Diff, tolAbs(1e-9))
			checkNum(t, "lower", e.Lo, c.Lower, tolAbs(c.SE/4))
			checkNum(t, "upper", e.Hi, c.Upper, tolAbs(c.SE/4))
		})
	}
}

func TestBootstrapP(t *testing.T) {
	// (1 + 1)/(4 + 1) on the smaller side, doubled.
	if p := BootstrapP([]float64{1, 2, 3, -1}); p != 0.8 {
		t.Errorf("p = %v, want 0.8", p)
	}
	// None below 0: not 0, but 2/(B + 1).
	if p := BootstrapP([]float64{1, 2, 3}); p != 0.5 {
		t.Errorf("p = %v, want 0.5", p)
	}
	vals := make([]float64, 999)
	for i := range vals {
		vals[i] = float64(i + 1)
	}
	if p := BootstrapP(vals); p != 0.002 {
		t.Errorf("p = %v, want 2/1000", p)
	}
}

func TestWelchTReference(t *testing.T) {
	type tc struct {
		Name                  string
		A, B                  []float64
		Confidence            float64
		Diff, Lower, Upper, P float64
	}
	for _, c := range loadRef[tc](t, "welch_t.json") {
		t.Run(c.Name, func(t *testing.T) {
			e, p, err := WelchT(c.A, c.B, c.Confidence)
			if err != nil {
				t.Fatal(err)
			}
			checkNum(t, "diff", e.Value, c.Diff, tolDefault)
			checkNum(t, "lower", e.Lo, c.Lower, tolAbs(1e-7))
			checkNum(t, "upper", e.Hi, c.Upper, tolAbs(1e-7))
			checkNum(t, "p", p, c.P, tolAbs(1e-10))
		})
	}
}
