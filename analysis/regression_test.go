package analysis

import (
	"math"
	"math/rand/v2"
	"testing"
)

// olsCase is one case of ols.json: statsmodels OLS(method="pinv") for coef,
// r2, adj_r2 and rank; scikit-learn LeaveOneOut cross_val_predict for loo_r2.
type olsCase struct {
	Name      string      `json:"name"`
	X         [][]float64 `json:"x"`
	Y         []float64   `json:"y"`
	Coef      []float64   `json:"coef"`
	R2        *float64    `json:"r2"`
	AdjR2     *float64    `json:"adj_r2"`
	LOOR2     *float64    `json:"loo_r2"`
	Rank      int         `json:"rank"`
	Collinear bool        `json:"collinear"`
}

// TestOLSReference checks every case of ols.json: coef, r2 and adj_r2 within
// the default tolerance, rank exactly, loo_r2 within 1e-6.
func TestOLSReference(t *testing.T) {
	for _, c := range loadRef[olsCase](t, "ols.json") {
		t.Run(c.Name, func(t *testing.T) {
			fit, err := OLS(c.X, c.Y)
			if err != nil {
				t.Fatal(err)
			}
			if fit.Rank != c.Rank {
				t.Errorf("rank: got %d, want %d", fit.Rank, c.Rank)
			}
			if len(fit.Coef) != len(c.Coef) {
				t.Fatalf("len(coef): got %d, want %d", len(fit.Coef), len(c.Coef))
			}
			for j := range c.Coef {
				checkNum(t, "coef", fit.Coef[j], c.Coef[j], tolDefault)
			}
			checkFloat(t, "r2", fit.R2, c.R2, tolDefault)
			checkFloat(t, "adj_r2", fit.AdjR2, c.AdjR2, tolDefault)
			loo, err := LOOR2(c.X, c.Y)
			if err != nil {
				t.Fatal(err)
			}
			checkFloat(t, "loo_r2", loo, c.LOOR2, tolAbs(1e-6))
		})
	}
}

// TestLOOR2Refits checks the hat-matrix shortcut in LOOR2 against the
// definition: n explicit refits on n-1 rows (an independent computation of
// PRESS), on every case of ols.json.
func TestLOOR2Refits(t *testing.T) {
	for _, c := range loadRef[olsCase](t, "ols.json") {
		t.Run(c.Name, func(t *testing.T) {
			n := len(c.Y)
			var press float64
			for i := 0; i < n; i++ {
				x := make([][]float64, 0, n-1)
				y := make([]float64, 0, n-1)
				for j := 0; j < n; j++ {
					if j != i {
						x = append(x, c.X[j])
						y = append(y, c.Y[j])
					}
				}
				fit, err := OLS(x, y)
				if err != nil {
					t.Fatal(err)
				}
				pred := fit.Coef[0]
				for j, v := range c.X[i] {
					pred += fit.Coef[j+1] * v
				}
				press += (c.Y[i] - pred) * (c.Y[i] - pred)
			}
			want := 1 - press/totalSS(c.Y)
			got, err := LOOR2(c.X, c.Y)
			if err != nil {
				t.Fatal(err)
			}
			checkNum(t, "loo_r2 vs refits", got, want, tolAbs(1e-8))
		})
	}
}

// TestOLSDegenerate shows the error and NaN cases. The singular-design value
// is hand-worked: with x2 = 2·x1 and y = 1 + x1 exactly, the row x1 = 0 fixes
// the intercept at 1 and every solution has b1 + 2·b2 = 1; the null space of
// the design is spanned by (0, 2, -1), so the minimum-norm solution is the
// one orthogonal to it, (b1, b2) = (1, 2)/5.
func TestOLSDegenerate(t *testing.T) {
	// Singular design: the second feature duplicates twice the first.
	x := [][]float64{{0, 0}, {1, 2}, {2, 4}, {3, 6}}
	y := []float64{1, 2, 3, 4}
	fit, err := OLS(x, y)
	if err != nil {
		t.Fatal(err)
	}
	if fit.Rank != 2 {
		t.Errorf("singular design: rank got %d, want 2", fit.Rank)
	}
	for j, want := range []float64{1, 0.2, 0.4} {
		if math.Abs(fit.Coef[j]-want) > 1e-12 {
			t.Errorf("singular design: coef[%d] = %v, want %v", j, fit.Coef[j], want)
		}
	}
	if math.Abs(fit.R2-1) > 1e-12 {
		t.Errorf("singular design: R2 = %v, want 1", fit.R2)
	}

	// Constant y: TSS = 0, so R2, AdjR2 and LOOR2 are undefined.
	fit, err = OLS([][]float64{{1}, {2}, {3}}, []float64{5, 5, 5})
	if err != nil {
		t.Fatal(err)
	}
	if !allNaN(fit.R2, fit.AdjR2) {
		t.Errorf("constant y: R2 = %v, AdjR2 = %v, want NaN", fit.R2, fit.AdjR2)
	}
	if loo, err := LOOR2([][]float64{{1}, {2}, {3}}, []float64{5, 5, 5}); err != nil || !math.IsNaN(loo) {
		t.Errorf("constant y: LOOR2 = %v, %v; want NaN, nil", loo, err)
	}

	// n <= rank: two points and one feature interpolate exactly.
	if loo, err := LOOR2([][]float64{{1}, {2}}, []float64{1, 3}); err != nil || !math.IsNaN(loo) {
		t.Errorf("n = rank: LOOR2 = %v, %v; want NaN, nil", loo, err)
	}

	errCases := []struct {
		name string
		x    [][]float64
		y    []float64
	}{
		{"empty", nil, nil},
		{"NaN feature", [][]float64{{1}, {math.NaN()}}, []float64{1, 2}},
		{"Inf response", [][]float64{{1}, {2}}, []float64{1, math.Inf(1)}},
	}
	for _, tt := range errCases {
		t.Run(tt.name, func(t *testing.T) {
			if _, err := OLS(tt.x, tt.y); err == nil {
				t.Error("OLS: want an error")
			}
			if _, err := LOOR2(tt.x, tt.y); err == nil {
				t.Error("LOOR2: want an error")
			}
		})
	}
	wantPanic(t, "OLS", func() { OLS([][]float64{{1}, {2}}, []float64{1}) })
	wantPanic(t, "OLS", func() { OLS([][]float64{{1, 2}, {2}}, []float64{1, 2}) })
	wantPanic(t, "LOOR2", func() { LOOR2([][]float64{{1}, {2}}, []float64{1}) })
	wantPanic(t, "LOOR2", func() { LOOR2([][]float64{{1, 2}, {2}}, []float64{1, 2}) })
}

// TestOLSInterceptOnly checks k = 0 features: the fit is the mean (hand
// computation: mean of 1, 2, 6 is 3) and R2 is 0.
func TestOLSInterceptOnly(t *testing.T) {
	fit, err := OLS([][]float64{{}, {}, {}}, []float64{1, 2, 6})
	if err != nil {
		t.Fatal(err)
	}
	if len(fit.Coef) != 1 || math.Abs(fit.Coef[0]-3) > 1e-12 || math.Abs(fit.R2) > 1e-12 || fit.Rank != 1 {
		t.Errorf("got %+v, want Coef [3], R2 0, Rank 1", fit)
	}
}

// benchDesign returns a random 40×8 crux-sized regression problem.
func benchDesign() ([][]float64, []float64) {
	rng := rand.New(rand.NewPCG(6, 6))
	x := make([][]float64, 40)
	y := make([]float64, 40)
	for i := range x {
		x[i] = make([]float64, 8)
		for j := range x[i] {
			x[i][j] = rng.Float64()
		}
		y[i] = 100 * rng.Float64()
	}
	return x, y
}

// BenchmarkOLS fits 40 rows × 8 features.
func BenchmarkOLS(b *testing.B) {
	x, y := benchDesign()
	for b.Loop() {
		if _, err := OLS(x, y); err != nil {
			b.Fatal(err)
		}
	}
}

// BenchmarkLOOR2 computes the leave-one-out R² of 40 rows × 8 features.
func BenchmarkLOOR2(b *testing.B) {
	x, y := benchDesign()
	for b.Loop() {
		if _, err := LOOR2(x, y); err != nil {
			b.Fatal(err)
		}
	}
}
