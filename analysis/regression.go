package analysis

import (
	"errors"
	"fmt"
	"math"

	"gonum.org/v1/gonum/mat"
)

// Fit is an ordinary least-squares fit with an intercept.
type Fit struct {
	// Coef holds the intercept first, then one coefficient per feature. When
	// the design is rank deficient it is the minimum-norm (pseudo-inverse)
	// solution, with the intercept counted in the norm.
	Coef []float64
	// R2 is 1 - SSR/TSS and AdjR2 is 1 - (n-1)/(n-Rank)·(1-R2). Both are NaN
	// when y is constant (TSS = 0); AdjR2 is also NaN when n = Rank.
	R2, AdjR2 float64
	// Rank is the numerical rank of the design [1 | x].
	Rank int
}

// rankTol is the relative cutoff for singular values: σ <= rankTol·σmax
// counts as zero. It is numpy.linalg.pinv's default rcond, which statsmodels
// uses for its "pinv" fit.
const rankTol = 1e-15

// OLS fits y = b0 + b1·x1 + … + bk·xk by least squares, where x has one row
// per observation and k columns (k may be 0, which fits the mean).
//
// The coefficients are pinv([1 | x])·y with the Moore–Penrose pseudo-inverse
// computed by a thin SVD; singular values <= 1e-15·σmax count as zero. With a
// full-rank design this is the ordinary least-squares solution; with a rank
// deficient one (collinear features) it is the minimum-norm solution, which
// matches statsmodels OLS(method="pinv") and differs from QR or normal
// equations. R2, AdjR2 and the fitted values do not depend on which
// least-squares solution is taken.
//
// Errors: no rows, a non-finite value, or an SVD that fails to converge. It
// panics when len(y) != len(x) or the rows differ in length.
func OLS(x [][]float64, y []float64) (Fit, error) {
	a, err := designMatrix("OLS", x, y)
	if err != nil {
		return Fit{}, err
	}
	ls, err := solvePinv(a, y)
	if err != nil {
		return Fit{}, fmt.Errorf("analysis: OLS: %w", err)
	}
	n := len(y)
	fit := Fit{Coef: ls.coef, Rank: ls.rank, R2: math.NaN(), AdjR2: math.NaN()}
	tss := totalSS(y)
	if tss == 0 {
		return fit, nil
	}
	var ssr float64
	for i := range y {
		e := y[i] - ls.fitted[i]
		ssr += e * e
	}
	fit.R2 = 1 - ssr/tss
	if n > ls.rank {
		fit.AdjR2 = 1 - float64(n-1)/float64(n-ls.rank)*(1-fit.R2)
	}
	return fit, nil
}

// LOOR2 returns the leave-one-out (held-out) R² of the least-squares fit with
// intercept described at OLS:
//
//	LOOR2 = 1 - PRESS/TSS,  PRESS = Σ_i (y_i - ŷ_(-i))²,  TSS = Σ_i (y_i - ȳ)²
//
// where ŷ_(-i) is the prediction for row i from the fit on the other n-1 rows
// and ȳ is the mean over all n rows. It is computed from one SVD through the
// hat-matrix identity y_i - ŷ_(-i) = e_i/(1 - h_ii), with h_ii the squared
// norm of row i of the leading Rank left singular vectors.
//
// The result is NaN (with a nil error) when y is constant, when n <= Rank, or
// when some row has leverage h_ii = 1 (within 1e-9): removing that row lowers
// the rank, so its held-out prediction is not determined by the data.
// Errors are as for OLS.
func LOOR2(x [][]float64, y []float64) (float64, error) {
	a, err := designMatrix("LOOR2", x, y)
	if err != nil {
		return math.NaN(), err
	}
	ls, err := solvePinv(a, y)
	if err != nil {
		return math.NaN(), fmt.Errorf("analysis: LOOR2: %w", err)
	}
	n := len(y)
	tss := totalSS(y)
	if tss == 0 || n <= ls.rank {
		return math.NaN(), nil
	}
	var press float64
	for i := 0; i < n; i++ {
		var h float64
		for k := 0; k < ls.rank; k++ {
			u := ls.u.At(i, k)
			h += u * u
		}
		if 1-h < 1e-9 {
			return math.NaN(), nil
		}
		e := (y[i] - ls.fitted[i]) / (1 - h)
		press += e * e
	}
	return 1 - press/tss, nil
}

// designMatrix validates x and y and returns the n×(k+1) design [1 | x].
func designMatrix(fn string, x [][]float64, y []float64) (*mat.Dense, error) {
	n := len(x)
	if n == 0 {
		return nil, fmt.Errorf("analysis: %s: no rows", fn)
	}
	if len(y) != n {
		panic(fmt.Sprintf("analysis: %s: %d rows of x but %d values of y", fn, n, len(y)))
	}
	k := len(x[0])
	a := mat.NewDense(n, k+1, nil)
	for i, row := range x {
		if len(row) != k {
			panic(fmt.Sprintf("analysis: %s: row %d has %d features, row 0 has %d", fn, i, len(row), k))
		}
		if !isFinite(y[i]) {
			return nil, fmt.Errorf("analysis: %s: y[%d] is %v", fn, i, y[i])
		}
		a.Set(i, 0, 1)
		for j, v := range row {
			if !isFinite(v) {
				return nil, fmt.Errorf("analysis: %s: x[%d][%d] is %v", fn, i, j, v)
			}
			a.Set(i, j+1, v)
		}
	}
	return a, nil
}

// lsSolution is a minimum-norm least-squares solution with the pieces that
// LOOR2 needs.
type lsSolution struct {
	coef   []float64
	fitted []float64
	rank   int
	u      *mat.Dense // thin left singular vectors; the first rank columns span the fitted space
}

// solvePinv returns pinv(a)·y using a thin SVD with the rankTol cutoff.
func solvePinv(a *mat.Dense, y []float64) (lsSolution, error) {
	var svd mat.SVD
	if !svd.Factorize(a, mat.SVDThin) {
		return lsSolution{}, errors.New("SVD did not converge")
	}
	s := svd.Values(nil)
	var u, v mat.Dense
	svd.UTo(&u)
	svd.VTo(&v)
	rank := 0
	for _, sv := range s {
		if sv > rankTol*s[0] {
			rank++
		}
	}
	n, p := a.Dims()
	coef := make([]float64, p)
	for k := 0; k < rank; k++ {
		// Coordinate of y along the k-th left singular vector, divided by σ_k.
		var uy float64
		for i := 0; i < n; i++ {
			uy += u.At(i, k) * y[i]
		}
		uy /= s[k]
		for j := 0; j < p; j++ {
			coef[j] += v.At(j, k) * uy
		}
	}
	fitted := make([]float64, n)
	for i := 0; i < n; i++ {
		var f float64
		for j := 0; j < p; j++ {
			f += a.At(i, j) * coef[j]
		}
		fitted[i] = f
	}
	return lsSolution{coef: coef, fitted: fitted, rank: rank, u: &u}, nil
}

// totalSS returns Σ(y - ȳ)², exactly 0 for a constant y.
func totalSS(y []float64) float64 {
	if isConstant(y) {
		return 0
	}
	var sum float64
	for _, v := range y {
		sum += v
	}
	mean := sum / float64(len(y))
	var ss float64
	for _, v := range y {
		d := v - mean
		ss += d * d
	}
	return ss
}
