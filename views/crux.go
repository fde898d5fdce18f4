package views

import (
	"math"

	"github.com/a-h/templ"
	"github.com/auditscope/auditscope/data/model"
	"github.com/auditscope/auditscope/views/links"
)

// CruxView is the crux page.
type CruxView struct {
	Exp          model.Experiment
	FeatureNames []string
	Rows         []CruxRow
	Fits         []CruxFitRow
	Resamples    int // behind the R² intervals
	Permutations int // behind the held-out R²'s p-values
}

// CruxRow is one checkpoint's features.
type CruxRow struct {
	Name     string
	Features []float64
}

// CruxFitRow is one dimension's R² values.
type CruxFitRow struct {
	Dim, Title string
	N, Runs    int
	// HeldRates and HeldAll are the R² held out a run at a time, with
	// their permutation p-values.
	HeldRates, HeldAll   float64
	HeldRatesP, HeldAllP float64
	// R2Rates and R2All are the in-sample R² with their BCa bootstrap
	// intervals over runs, beside the R² unrelated features give on
	// average (k/(n − 1)).
	R2Rates, R2All         Interval
	ChanceRates, ChanceAll float64
}

// FmtHeld formats a held-out R² with its permutation p-value:
// "0.31 (p 0.004)"; a p at its floor reads "p < 0.0002".
func FmtHeld(r2, p float64, permutations int) string {
	if math.IsNaN(r2) {
		return Undefined
	}
	return Num(r2, 2) + " (p " + FmtPFloor(p, 1/float64(permutations+1)) + ")"
}

// Interval is a value with its 95% interval.
type Interval struct{ Value, Lo, Hi float64 }

// FmtR2 formats an R² with its interval: "0.62 [0.41, 0.80]".
func FmtR2(iv Interval) string { return FmtEstimate(iv.Value, iv.Lo, iv.Hi, 2) }

// FigureURL is the predicted-vs-observed figure of a dimension.
func (v CruxView) FigureURL(dim, format string) templ.SafeURL {
	return links.ExperimentFigure(v.Exp.ID, "crux-"+dim+"."+format, nil)
}

// F3 formats a number with three decimals (see Num).
func F3(x float64) string { return Num(x, 3) }

// F2 formats a number with two decimals (see Num).
func F2(x float64) string { return Num(x, 2) }
