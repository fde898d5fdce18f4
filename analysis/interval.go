package analysis

import (
	"errors"
	"fmt"
	"math"

	"gonum.org/v1/gonum/stat"
	"gonum.org/v1/gonum/stat/distuv"
)

// Estimate is a point value with a two-sided confidence interval [Lo, Hi].
// Any of the three may be NaN when it is undefined for the data.
type Estimate struct{ Value, Lo, Hi float64 }

// nanEstimate is the estimate of an undefined quantity.
func nanEstimate() Estimate {
	return Estimate{Value: math.NaN(), Lo: math.NaN(), Hi: math.NaN()}
}

// errConfidence is returned for a confidence level outside (0, 1).
var errConfidence = errors.New("confidence must be in (0, 1)")

// checkConfidence rejects a confidence level outside the open interval (0, 1);
// NaN is rejected too.
func checkConfidence(fn string, confidence float64) error {
	if !(confidence > 0 && confidence < 1) {
		return fmt.Errorf("analysis: %s: %w, got %v", fn, errConfidence, confidence)
	}
	return nil
}

// normalCrit returns z = Φ⁻¹(1 - alpha/2) for alpha = 1 - confidence. It is
// computed as -Φ⁻¹(alpha/2), the same value as scipy's norm.isf(alpha/2),
// which avoids rounding 1 - alpha/2 to a double first.
func normalCrit(confidence float64) float64 {
	alpha := 1 - confidence
	return -distuv.UnitNormal.Quantile(alpha / 2)
}

// tCrit returns t_{df}(1 - alpha/2), the upper critical value of Student's t
// distribution with df degrees of freedom.
func tCrit(confidence float64, df int) float64 {
	t := distuv.StudentsT{Mu: 0, Sigma: 1, Nu: float64(df)}
	return t.Quantile((1 + confidence) / 2)
}

// Wilson returns the Wilson score interval for a proportion of successes out
// of n trials. Value is successes/n.
//
// With z = Φ⁻¹(1 - alpha/2), p = successes/n and d = 1 + z²/n:
//
//	center = (p + z²/(2n)) / d
//	half   = z·sqrt(p(1-p)/n + z²/(4n²)) / d
//	Lo, Hi = center ∓ half
//
// The bounds are not clipped to [0, 1], so 0 of n can give a Lo of about
// ±1e-17 and n of n a Hi one ulp away from 1 (as statsmodels does).
// successes may be fractional, for example wins + ties/2.
//
// Preconditions: n > 0, 0 <= successes <= n, 0 < confidence < 1; otherwise an
// error is returned.
func Wilson(successes float64, n int, confidence float64) (Estimate, error) {
	if n <= 0 {
		return nanEstimate(), fmt.Errorf("analysis: Wilson: n must be positive, got %d", n)
	}
	if !(successes >= 0 && successes <= float64(n)) {
		return nanEstimate(), fmt.Errorf("analysis: Wilson: successes must be in [0, n=%d], got %v", n, successes)
	}
	if err := checkConfidence("Wilson", confidence); err != nil {
		return nanEstimate(), err
	}
	z := normalCrit(confidence)
	fn := float64(n)
	p := successes / fn
	z2 := z * z
	d := 1 + z2/fn
	center := (p + z2/(2*fn)) / d
	half := z * math.Sqrt(p*(1-p)/fn+z2/(4*fn*fn)) / d
	return Estimate{Value: p, Lo: center - half, Hi: center + half}, nil
}

// DetectionRate returns the share of true values in detected with its Wilson
// interval, for example the AuditBench or crux detection rate of one
// auditor. An empty slice has an undefined rate: the estimate is NaN and the
// error nil, as for an empty split in RWRSplits. The error is non-nil only
// for a confidence outside (0, 1).
func DetectionRate(detected []bool, confidence float64) (Estimate, error) {
	if err := checkConfidence("DetectionRate", confidence); err != nil {
		return nanEstimate(), err
	}
	if len(detected) == 0 {
		return nanEstimate(), nil
	}
	k := 0
	for _, d := range detected {
		if d {
			k++
		}
	}
	return Wilson(float64(k), len(detected), confidence)
}

// MeanCI returns the arithmetic mean of values with the two-sided Student t
// interval
//
//	mean ∓ t_{n-1}(1 - alpha/2) · s/sqrt(n)
//
// where s is the sample standard deviation (divisor n-1). When every value is
// the same the standard error is 0 and the interval collapses to the mean
// (scipy would return NaN there; the reference data defines the collapse).
//
// A single value has a mean but no interval: Lo and Hi are NaN and the error
// is nil. Empty input, a non-finite value or a confidence outside (0, 1) is an
// error.
func MeanCI(values []float64, confidence float64) (Estimate, error) {
	if err := checkConfidence("MeanCI", confidence); err != nil {
		return nanEstimate(), err
	}
	n := len(values)
	if n == 0 {
		return nanEstimate(), errors.New("analysis: MeanCI: no values")
	}
	for i, v := range values {
		if math.IsNaN(v) || math.IsInf(v, 0) {
			return nanEstimate(), fmt.Errorf("analysis: MeanCI: value %d is %v", i, v)
		}
	}
	mean, sem, constant := meanSEM(values)
	if n == 1 {
		return Estimate{Value: mean, Lo: math.NaN(), Hi: math.NaN()}, nil
	}
	if constant {
		return Estimate{Value: mean, Lo: mean, Hi: mean}, nil
	}
	h := tCrit(confidence, n-1) * sem
	return Estimate{Value: mean, Lo: mean - h, Hi: mean + h}, nil
}

// meanSEM returns the mean and the standard error of the mean s/sqrt(n) of a
// non-empty slice. constant reports whether all values are equal; the mean
// is then that value exactly and sem is 0.
func meanSEM(values []float64) (mean, sem float64, constant bool) {
	if isConstant(values) {
		return values[0], 0, true
	}
	mean, sd := stat.MeanStdDev(values, nil)
	if len(values) < 2 {
		return mean, math.NaN(), false
	}
	return mean, sd / math.Sqrt(float64(len(values))), false
}

// MeanCIFromMoments is MeanCI from a sample's size, mean and standard
// deviation (divisor n-1) instead of its values, for means a database
// aggregates without handing over every value. It follows MeanCI's rules:
// one value has no interval, a zero sd collapses it to the mean.
func MeanCIFromMoments(n int, mean, sd, confidence float64) (Estimate, error) {
	if err := checkConfidence("MeanCIFromMoments", confidence); err != nil {
		return nanEstimate(), err
	}
	switch {
	case n <= 0:
		return nanEstimate(), errors.New("analysis: MeanCIFromMoments: no values")
	case math.IsNaN(mean) || math.IsInf(mean, 0) || math.IsNaN(sd) && n > 1 || sd < 0:
		return nanEstimate(), fmt.Errorf("analysis: MeanCIFromMoments: mean %v, sd %v", mean, sd)
	case n == 1:
		return Estimate{Value: mean, Lo: math.NaN(), Hi: math.NaN()}, nil
	case sd == 0:
		return Estimate{Value: mean, Lo: mean, Hi: mean}, nil
	}
	h := tCrit(confidence, n-1) * sd / math.Sqrt(float64(n))
	return Estimate{Value: mean, Lo: mean - h, Hi: mean + h}, nil
}
