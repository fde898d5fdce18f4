package analysis

import (
	"math"
	"math/rand/v2"
	"testing"
)

// TestCruxR2Reference runs CruxR2 on the crux_k8_* cases of ols.json: the
// all-feature fit must reproduce statsmodels' r2 and scikit-learn's
// leave-one-out r2 (tolerances as in TestOLSReference), and the rates fit
// must equal OLS and LOOR2 on the first three columns.
func TestCruxR2Reference(t *testing.T) {
	n := 0
	for _, c := range loadRef[olsCase](t, "ols.json") {
		if len(c.X[0]) != 8 {
			continue
		}
		n++
		t.Run(c.Name, func(t *testing.T) {
			got, err := CruxR2(c.X, map[string][]float64{"dim": c.Y})
			if err != nil {
				t.Fatal(err)
			}
			f := got["dim"]
			if f.N != len(c.Y) {
				t.Errorf("N: got %d, want %d", f.N, len(c.Y))
			}
			checkFloat(t, "r2 all", f.R2All, c.R2, tolDefault)
			checkFloat(t, "loo all", f.LOOAll, c.LOOR2, tolAbs(1e-6))
			rates := make([][]float64, len(c.X))
			for i, row := range c.X {
				rates[i] = row[:3]
			}
			fit, _ := OLS(rates, c.Y)
			loo, _ := LOOR2(rates, c.Y)
			checkNum(t, "r2 rates", f.R2Rates, fit.R2, tolDefault)
			checkNum(t, "loo rates", f.LOORates, loo, tolDefault)
		})
	}
	if n == 0 {
		t.Fatal("ols.json has no 8-feature case")
	}
}

// TestCruxR2Missing checks that NaN targets drop their rows (the result must
// equal the fit on the remaining rows, computed directly) and the NaN and
// error cases.
func TestCruxR2Missing(t *testing.T) {
	rng := rand.New(rand.NewPCG(8, 8))
	x := make([][]float64, 12)
	y := make([]float64, 12)
	for i := range x {
		x[i] = make([]float64, 8)
		for j := range x[i] {
			x[i][j] = rng.Float64()
		}
		y[i] = 100 * rng.Float64()
	}
	yMissing := append([]float64(nil), y...)
	yMissing[2], yMissing[7] = math.NaN(), math.NaN()
	got, err := CruxR2(x, map[string][]float64{
		"some missing": yMissing,
		"too few":      {1, 2, 3, 4, 5, math.NaN(), math.NaN(), math.NaN(), math.NaN(), math.NaN(), math.NaN(), math.NaN()},
		"none":         {math.NaN(), math.NaN(), math.NaN(), math.NaN(), math.NaN(), math.NaN(), math.NaN(), math.NaN(), math.NaN(), math.NaN(), math.NaN(), math.NaN()},
	})
	if err != nil {
		t.Fatal(err)
	}
	var xk [][]float64
	var yk []float64
	for i := range y {
		if i != 2 && i != 7 {
			xk = append(xk, x[i])
			yk = append(yk, y[i])
		}
	}
	fit, _ := OLS(xk, yk)
	loo, _ := LOOR2(xk, yk)
	if f := got["some missing"]; f.N != 10 || !sameFloat(f.R2All, fit.R2) || !sameFloat(f.LOOAll, loo) {
		t.Errorf("some missing: got %+v, want N 10, R2All %v, LOOAll %v", f, fit.R2, loo)
	}
	// Five rows: enough for the rates fit (rank 4) but not for LOO on all
	// eight features (rank 5 = N).
	if f := got["too few"]; f.N != 5 || math.IsNaN(f.LOORates) || !math.IsNaN(f.LOOAll) {
		t.Errorf("too few: got %+v, want LOORates defined, LOOAll NaN", f)
	}
	if f := got["none"]; f.N != 0 || !allNaN(f.R2Rates, f.LOORates, f.R2All, f.LOOAll) {
		t.Errorf("none: got %+v, want all NaN", f)
	}

	errCases := []struct {
		name     string
		features [][]float64
		targets  map[string][]float64
	}{
		{"two features", [][]float64{{1, 2}}, nil},
		{"NaN feature", [][]float64{{1, 2, math.NaN()}}, nil},
		{"Inf target", [][]float64{{1, 2, 3}}, map[string][]float64{"d": {math.Inf(-1)}}},
	}
	for _, tt := range errCases {
		if _, err := CruxR2(tt.features, tt.targets); err == nil {
			t.Errorf("%s: want an error", tt.name)
		}
	}
	wantPanic(t, "CruxR2", func() { CruxR2([][]float64{{1, 2, 3}, {1, 2}}, nil) })
	wantPanic(t, "CruxR2", func() { CruxR2([][]float64{{1, 2, 3}, {2, 3, 4}}, map[string][]float64{"d": {1}}) })
}

// TestR2BootstrapReference checks the crux R² interval against a pure
// Python bootstrap of the same statistic (testdata/stats/crux_bootstrap.py,
// 50,000 resamples): Python's random stream is not Go's, so each bound may
// differ by a tenth of the bootstrap standard error; the R² itself is exact.
func TestR2BootstrapReference(t *testing.T) {
	type tc struct {
		Name                 string
		X                    [][]float64
		Y                    []float64
		Confidence           float64
		R2, Lower, Upper, SE float64
	}
	cases := loadRef[tc](t, "crux_bootstrap.json")
	if len(cases) < 4 {
		t.Fatalf("%d cases", len(cases))
	}
	for _, c := range cases {
		got, err := R2Bootstrap(c.X, c.Y, 20000, c.Confidence, 7)
		if err != nil {
			t.Fatal(err)
		}
		if math.Abs(got.Value-c.R2) > 1e-9 {
			t.Errorf("%s: R² %v, want %v", c.Name, got.Value, c.R2)
		}
		if tol := 0.1 * c.SE; math.Abs(got.Lo-c.Lower) > tol || math.Abs(got.Hi-c.Upper) > tol {
			t.Errorf("%s: interval [%v, %v], want [%v, %v] ± %v", c.Name, got.Lo, got.Hi, c.Lower, c.Upper, tol)
		}
	}
	if _, err := R2Bootstrap(nil, nil, 10, 0.95, 1); err == nil {
		t.Error("no rows: no error")
	}
}
