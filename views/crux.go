package views

import (
	"fmt"
	"math"

	"github.com/a-h/templ"
	"github.com/auditscope/auditscope/data/model"
)

// CruxView is the crux page.
type CruxView struct {
	Exp          model.Experiment
	FeatureNames []string
	Rows         []CruxRow
	Fits         []CruxFitRow
}

// CruxRow is one checkpoint's features.
type CruxRow struct {
	Name     string
	Features []float64
}

// CruxFitRow is one dimension's R² values.
type CruxFitRow struct {
	Dim, Title                       string
	N                                int
	R2Rates, LOORates, R2All, LOOAll float64
}

// FigureURL is the predicted-vs-observed figure of a dimension.
func (v CruxView) FigureURL(dim, format string) templ.SafeURL {
	return Path("experiments", v.Exp.ID, "figures", "crux-"+dim+"."+format)
}

// F3 formats a number with three decimals, "–" when undefined.
func F3(x float64) string {
	if math.IsNaN(x) {
		return "–"
	}
	return fmt.Sprintf("%.3f", x)
}

// F2 formats a number with two decimals, "–" when undefined.
func F2(x float64) string {
	if math.IsNaN(x) {
		return "–"
	}
	return fmt.Sprintf("%.2f", x)
}
