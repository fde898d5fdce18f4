package views

import (
	"github.com/a-h/templ"
	"github.com/auditscope/auditscope/data/model"
)

// CruxView is the crux page.
type CruxView struct {
	Exp          model.Experiment
	FeatureNames []string
	Rows         []CruxRow
	Fits         []CruxFitRow
	Resamples    int // behind the R² intervals
}

// CruxRow is one checkpoint's features.
type CruxRow struct {
	Name     string
	Features []float64
}

// CruxFitRow is one dimension's R² values.
type CruxFitRow struct {
	Dim, Title string
	N          int
	// R2Rates and R2All are the in-sample R² with their bootstrap
	// intervals over checkpoints.
	R2Rates, R2All   Interval
	LOORates, LOOAll float64
}

// Interval is a value with its 95% interval.
type Interval struct{ Value, Lo, Hi float64 }

// FmtR2 formats an R² with its interval: "0.62 [0.41, 0.80]".
func FmtR2(iv Interval) string { return FmtEstimate(iv.Value, iv.Lo, iv.Hi, 2) }

// FigureURL is the predicted-vs-observed figure of a dimension.
func (v CruxView) FigureURL(dim, format string) templ.SafeURL {
	return Path("experiments", v.Exp.ID, "figures", "crux-"+dim+"."+format)
}

// F3 formats a number with three decimals (see Num).
func F3(x float64) string { return Num(x, 3) }

// F2 formats a number with two decimals (see Num).
func F2(x float64) string { return Num(x, 2) }
