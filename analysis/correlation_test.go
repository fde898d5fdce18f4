package analysis

import (
	"math"
	"testing"

	"gonum.org/v1/gonum/stat/distuv"
)

// TestPearsonReference checks every case of pearson.json, produced by
// scipy.stats.pearsonr.
func TestPearsonReference(t *testing.T) {
	type pearsonCase struct {
		Name   string    `json:"name"`
		X      []float64 `json:"x"`
		Y      []float64 `json:"y"`
		R      float64   `json:"r"`
		PValue float64   `json:"p_value"`
	}
	for _, c := range loadRef[pearsonCase](t, "pearson.json") {
		t.Run(c.Name, func(t *testing.T) {
			r, p, err := Pearson(c.X, c.Y)
			if err != nil {
				t.Fatal(err)
			}
			checkNum(t, "r", r, c.R, tolDefault)
			checkNum(t, "p", p, c.PValue, tolDefault)
		})
	}
}

// TestPearsonDegenerate shows undefined results (NaN, nil error) and
// unusable input (error). The n = 2 values are hand-worked: two distinct
// points lie on a line, so r = ±1, and no degrees of freedom remain for p.
func TestPearsonDegenerate(t *testing.T) {
	tests := []struct {
		name    string
		x, y    []float64
		r, p    float64 // NaN means "want NaN"
		wantErr bool
	}{
		{"constant x", []float64{1, 1, 1, 1}, []float64{1, 2, 3, 4}, math.NaN(), math.NaN(), false},
		{"constant y", []float64{1, 2, 3}, []float64{5, 5, 5}, math.NaN(), math.NaN(), false},
		{"single pair", []float64{1}, []float64{2}, math.NaN(), math.NaN(), false},
		{"two pairs decreasing", []float64{1, 2}, []float64{4, 3}, -1, math.NaN(), false},
		{"perfect line", []float64{1, 2, 3, 4}, []float64{3, 5, 7, 9}, 1, 0, false},
		{"empty", nil, nil, 0, 0, true},
		{"NaN value", []float64{1, 2, math.NaN()}, []float64{1, 2, 3}, 0, 0, true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			r, p, err := Pearson(tt.x, tt.y)
			if tt.wantErr {
				if err == nil {
					t.Errorf("got r=%v p=%v, nil error; want an error", r, p)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if !sameFloat(r, tt.r) || !sameFloat(p, tt.p) {
				t.Errorf("got r=%v p=%v, want r=%v p=%v", r, p, tt.r, tt.p)
			}
		})
	}
}

// sameFloat treats two NaNs as equal and otherwise allows 1e-12.
func sameFloat(a, b float64) bool {
	if math.IsNaN(a) || math.IsNaN(b) {
		return math.IsNaN(a) && math.IsNaN(b)
	}
	return math.Abs(a-b) <= 1e-12
}

// TestCorrelationMatrix checks pairwise deletion against Pearson on the
// hand-filtered rows (the off-diagonal entries reduce to pearson.json-tested
// code, so the check is that the right rows are used).
func TestCorrelationMatrix(t *testing.T) {
	nan := math.NaN()
	cols := [][]float64{
		{1, 2, 3, 4, 5, nan},
		{2, 1, 4, 3, nan, 7},
		{5, 5, 5, 5, 5, 5}, // constant: undefined everywhere
		{nan, nan, nan, nan, nan, 1},
	}
	r, p, err := CorrelationMatrix(cols)
	if err != nil {
		t.Fatal(err)
	}
	// Rows 0-3 are the only ones where columns 0 and 1 are both present.
	wantR01, wantP01, _ := Pearson([]float64{1, 2, 3, 4}, []float64{2, 1, 4, 3})
	if !sameFloat(r[0][1], wantR01) || !sameFloat(r[1][0], wantR01) || !sameFloat(p[0][1], wantP01) {
		t.Errorf("r01 = %v, p01 = %v; want %v, %v", r[0][1], p[0][1], wantR01, wantP01)
	}
	if r[0][0] != 1 || p[0][0] != 0 {
		t.Errorf("diagonal 0: got r=%v p=%v, want 1, 0", r[0][0], p[0][0])
	}
	for _, ij := range [][2]int{{2, 2}, {0, 2}, {2, 1}, {3, 3}, {0, 3}, {1, 3}} {
		if !math.IsNaN(r[ij[0]][ij[1]]) || !math.IsNaN(p[ij[0]][ij[1]]) {
			t.Errorf("entry %v: got r=%v p=%v, want NaN", ij, r[ij[0]][ij[1]], p[ij[0]][ij[1]])
		}
	}
	if _, _, err := CorrelationMatrix(nil); err == nil {
		t.Error("no columns: want an error")
	}
	wantPanic(t, "CorrelationMatrix", func() { CorrelationMatrix([][]float64{{1, 2, 3}, {1, 2}}) })
	wantPanic(t, "Pearson", func() { Pearson([]float64{1, 2, 3}, []float64{1, 2}) })
}

// TestCorrelationMatrixClustered: r is the rows'; p is the t test on the
// clusters: 12 rows in 4 clusters of 3 give the p of r on 4 points (2 df),
// scipy's pearsonr on n = 4 worked out here from t.
func TestCorrelationMatrixClustered(t *testing.T) {
	x := []float64{1, 1.1, 0.9, 2, 2.2, 1.9, 3, 2.9, 3.1, 4, 4.2, 3.8}
	y := []float64{2, 2.5, 1.8, 2.9, 3.5, 3.0, 3.3, 4.1, 3.9, 5.2, 4.4, 4.9}
	clusters := []int{0, 0, 0, 1, 1, 1, 2, 2, 2, 3, 3, 3}
	r0, p0, _ := CorrelationMatrix([][]float64{x, y})
	r, p, err := CorrelationMatrixClustered([][]float64{x, y}, clusters)
	if err != nil {
		t.Fatal(err)
	}
	rr := r[0][1]
	tt := rr * math.Sqrt(2/((1-rr)*(1+rr)))
	want := 2 * distuv.StudentsT{Mu: 0, Sigma: 1, Nu: 2}.Survival(math.Abs(tt))
	if rr != r0[0][1] || math.Abs(p[0][1]-want) > 1e-15 || !(p[0][1] > p0[0][1]) {
		t.Errorf("r %v (rows %v), p %v, want %v (rows' p %v)", rr, r0[0][1], p[0][1], want, p0[0][1])
	}
}
