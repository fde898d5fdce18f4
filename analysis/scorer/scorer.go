// Package scorer presents Inspect logs in Inspect's own terms: each
// scorer's metrics as the log reports them, beside auditscope's
// recomputation from the samples the file holds, with a 95% interval
// (Wilson for 0/1 values, Student's t for other numbers).
//
// The import maps values to numbers as Inspect's value_to_float does
// (inspect.ValueToFloat), so a recomputed accuracy equals the reported one
// whenever the file holds every sample and the scorer reduces epochs by
// their mean (Inspect's default).
package scorer

import (
	"math"

	"github.com/auditscope/auditscope/analysis"
)

// Values summarises one scorer's values over the samples of one log in
// the file, each sample's epochs reduced to their mean first (Inspect's
// default reducer), as a database aggregates them.
type Values struct {
	Log    string // the log's file, relative to the import
	Scorer string // the key in the sample's scores
	Key    string // for a scorer whose value is a dictionary, the key; else ""
	N      int    // samples
	// Records are the sample × epoch records the values were reduced from
	// (0 when not known: the log's own reductions).
	Records  int
	Mean     float64
	SD       float64 // sample standard deviation (divisor n-1); NaN for one value
	Min, Max float64 // of the samples' values
	Binary   bool    // every value is 0 or 1
	// Unconverted counts values value_to_float could not read (counted as
	// 0, as Inspect does).
	Unconverted int
}

// Estimate is a recomputed metric: its value, 95% interval and how the
// interval was made ("wilson", "t", or "" when there is none).
type Estimate struct {
	analysis.Estimate
	Method string
}

// Mean recomputes a mean (Inspect's accuracy and mean metrics) with its
// 95% interval: Wilson when every value is 0 or 1; else Student's t,
// clipped to [0, 1] when every value lies there (a mean of 0/1 scores over
// epochs, or of C/P/I grades, cannot leave it: 2 samples of 0.5 and 1 would
// otherwise give [−2.43, 3.93]). Min and Max must bound Mean to count: a
// Values without them (both 0) is not taken to lie in [0, 1].
func Mean(v Values) (Estimate, error) {
	if v.N <= 0 {
		return Estimate{Estimate: analysis.Estimate{Value: math.NaN(), Lo: math.NaN(), Hi: math.NaN()}}, nil
	}
	if v.Binary {
		// The successes are a count; rounding removes the mean's float noise.
		e, err := analysis.Wilson(math.Round(v.Mean*float64(v.N)), v.N, 0.95)
		return Estimate{Estimate: e, Method: "wilson"}, err
	}
	e, err := analysis.MeanCIFromMoments(v.N, v.Mean, v.SD, 0.95)
	method := "t"
	switch {
	case math.IsNaN(e.Lo):
		method = ""
	case v.Min >= 0 && v.Max <= 1 && v.Min <= v.Mean && v.Mean <= v.Max && (e.Lo < 0 || e.Hi > 1):
		e.Lo, e.Hi = math.Max(e.Lo, 0), math.Min(e.Hi, 1)
		method = "t, clipped to [0, 1]"
	}
	return Estimate{Estimate: e, Method: method}, err
}

// Stderr recomputes Inspect's stderr metric, sd/sqrt(n) with the sample
// standard deviation; 0 for a single value, as Inspect gives.
func Stderr(v Values) float64 {
	switch {
	case v.N <= 0:
		return math.NaN()
	case v.N == 1:
		return 0
	}
	return v.SD / math.Sqrt(float64(v.N))
}
