package analysis

import (
	"errors"
	"fmt"
	"math"

	"gonum.org/v1/gonum/stat"
	"gonum.org/v1/gonum/stat/distuv"
)

// Pearson returns the Pearson correlation coefficient of x and y and its
// two-sided p-value for the null hypothesis of no correlation:
//
//	r = Σ(x-x̄)(y-ȳ) / sqrt(Σ(x-x̄)² · Σ(y-ȳ)²)
//	t = r · sqrt((n-2)/(1-r²)),  p = 2·P(T_{n-2} > |t|)
//
// which is scipy.stats.pearsonr. r is clipped to [-1, 1] against rounding.
//
// Undefined results are NaN with a nil error: r and p when x or y is constant
// (including n = 1), and p when n = 2 (no degrees of freedom are left; scipy
// reports 1 there). Empty input and non-finite values are errors; it panics
// when the lengths differ.
func Pearson(x, y []float64) (r, p float64, err error) {
	nan := math.NaN()
	if len(x) != len(y) {
		panic(fmt.Sprintf("analysis: Pearson: len(x) = %d, len(y) = %d", len(x), len(y)))
	}
	n := len(x)
	if n == 0 {
		return nan, nan, errors.New("analysis: Pearson: no values")
	}
	for i := range x {
		if !isFinite(x[i]) || !isFinite(y[i]) {
			return nan, nan, fmt.Errorf("analysis: Pearson: row %d is not finite (x = %v, y = %v)", i, x[i], y[i])
		}
	}
	r = pearsonR(x, y)
	return r, pearsonP(r, n), nil
}

// pearsonR computes r for finite, equal-length, non-empty slices; it is NaN
// when either slice is constant. Rounding can take stat.Correlation a hair
// past ±1, which the clamp absorbs.
func pearsonR(x, y []float64) float64 {
	if isConstant(x) || isConstant(y) {
		return math.NaN()
	}
	return math.Max(-1, math.Min(1, stat.Correlation(x, y, nil)))
}

// pearsonP is the two-sided p-value of r from n pairs; NaN when r is NaN or
// n < 3.
func pearsonP(r float64, n int) float64 {
	if math.IsNaN(r) || n < 3 {
		return math.NaN()
	}
	df := float64(n - 2)
	if math.Abs(r) == 1 {
		return 0
	}
	t := r * math.Sqrt(df/((1-r)*(1+r)))
	// Survival is computed from the regularized incomplete beta function
	// directly, so tiny p-values keep their relative precision.
	return 2 * distuv.StudentsT{Mu: 0, Sigma: 1, Nu: df}.Survival(math.Abs(t))
}

// CorrelationMatrix returns the pairwise Pearson correlations r[i][j] and
// their p-values p[i][j] between the columns of cols, where cols[i] holds
// variable i (for example one evaluation dimension) over the same rows (for
// example auditors). Every column must have the same length.
//
// Missing values are handled pairwise: for the pair (i, j) only rows where
// both cols[i] and cols[j] are finite are used, so each entry may rest on a
// different number of rows. An entry is NaN when it is undefined on those
// rows (fewer than two rows, or a constant column; p also needs three rows).
// The diagonal is r = 1, p = 0 when the column has at least two distinct
// finite values, and NaN otherwise.
//
// Errors: no columns. It panics when the columns differ in length.
func CorrelationMatrix(cols [][]float64) (r, p [][]float64, err error) {
	return CorrelationMatrixClustered(cols, nil)
}

// CorrelationMatrixClustered is CorrelationMatrix for rows that come in
// clusters (a training run's three epochs): r is the same, but each p
// counts clusters, not rows: the t test on G − 2 degrees of freedom, G the
// clusters among the rows used, since a run's epochs are not independent
// points (56 degrees of freedom for 16 runs overstated the evidence).
// clusters[row] names each row's cluster; nil is one row a cluster.
func CorrelationMatrixClustered(cols [][]float64, clusters []int) (r, p [][]float64, err error) {
	k := len(cols)
	if k == 0 {
		return nil, nil, errors.New("analysis: CorrelationMatrix: no columns")
	}
	n := len(cols[0])
	for i, c := range cols {
		if len(c) != n {
			panic(fmt.Sprintf("analysis: CorrelationMatrix: column %d has %d rows, column 0 has %d", i, len(c), n))
		}
	}
	r = make([][]float64, k)
	p = make([][]float64, k)
	for i := range r {
		r[i] = make([]float64, k)
		p[i] = make([]float64, k)
	}
	if clusters != nil && len(clusters) != n {
		panic(fmt.Sprintf("analysis: CorrelationMatrixClustered: %d clusters for %d rows", len(clusters), n))
	}
	xs := make([]float64, 0, n)
	ys := make([]float64, 0, n)
	for i := 0; i < k; i++ {
		for j := i; j < k; j++ {
			xs, ys = xs[:0], ys[:0]
			seen := map[int]bool{}
			for row := 0; row < n; row++ {
				a, b := cols[i][row], cols[j][row]
				if isFinite(a) && isFinite(b) {
					xs = append(xs, a)
					ys = append(ys, b)
					if clusters != nil {
						seen[clusters[row]] = true
					}
				}
			}
			units := len(xs)
			if clusters != nil {
				units = len(seen)
			}
			var rij, pij float64
			switch {
			case len(xs) == 0:
				rij, pij = math.NaN(), math.NaN()
			case i == j:
				if isConstant(xs) {
					rij, pij = math.NaN(), math.NaN()
				} else {
					rij, pij = 1, 0
				}
			default:
				rij = pearsonR(xs, ys)
				pij = pearsonP(rij, units)
			}
			r[i][j], r[j][i] = rij, rij
			p[i][j], p[j][i] = pij, pij
		}
	}
	return r, p, nil
}

// isFinite reports whether v is neither NaN nor infinite.
func isFinite(v float64) bool { return !math.IsNaN(v) && !math.IsInf(v, 0) }

// isConstant reports whether all elements of a non-empty slice are equal.
func isConstant(v []float64) bool {
	for _, x := range v[1:] {
		if x != v[0] {
			return false
		}
	}
	return true
}
