package web

import (
	"fmt"
	"net/http"
	"slices"

	"github.com/labstack/echo/v4"

	"github.com/auditscope/auditscope/data/model"
	"github.com/auditscope/auditscope/views"
	"github.com/auditscope/auditscope/views/figures"
	"github.com/auditscope/auditscope/web/app"
)

// cruxData is the crux page's one loader, shared by the page, its CSVs and
// its figures.
func (s *Server) cruxData(c echo.Context) (*app.Crux, error) {
	return s.analyses.Crux(c.Request().Context(), c.Param("exp"))
}

func (s *Server) showCrux(c echo.Context) error {
	d, err := s.cruxData(c)
	if err != nil {
		return err
	}
	vm := views.CruxView{Exp: d.Stats.Exp, FeatureNames: model.CruxFeatureNames, Resamples: app.CruxResamples, Permutations: app.CruxPermutations}
	for i, n := range d.Names {
		vm.Rows = append(vm.Rows, views.CruxRow{Name: n, Features: d.Features[i]})
	}
	ivs, err := d.R2Intervals()
	if err != nil {
		return err
	}
	if d.Fits != nil {
		for _, k := range app.SuiteDimensions {
			f, iv := d.Fits[k], ivs[k]
			vm.Fits = append(vm.Fits, views.CruxFitRow{Dim: k, Title: dimensionTitles[k], N: f.N, Runs: iv.HeldRates.Groups,
				HeldRates: iv.HeldRates.R2, HeldRatesP: iv.HeldRates.P, HeldAll: iv.HeldAll.R2, HeldAllP: iv.HeldAll.P,
				R2Rates: views.Interval(iv.Rates), R2All: views.Interval(iv.All), ChanceRates: iv.HeldRates.Chance, ChanceAll: iv.HeldAll.Chance})
		}
	}
	return render(c, http.StatusOK, views.CruxPage(vm))
}

// cruxFigure serves crux-DIM.{fmt}: predicted (eight-feature fit) against
// observed values of one dimension.
func (s *Server) cruxFigure(c echo.Context, dim, ext string) error {
	d, err := s.cruxData(c)
	if err != nil {
		return err
	}
	if !slices.Contains(app.SuiteDimensions, dim) {
		return notFound(fmt.Sprintf("crux figure for %q", dim))
	}
	preds, err := d.Predictions(dim)
	if err != nil {
		return err
	}
	var pts []figures.Point
	for _, p := range preds {
		pts = append(pts, figures.Point{X: p.Predicted, Value: p.Observed, Label: p.Name})
	}
	p, err := figures.Scatter(dimensionTitles[dim]+": crux prediction (8 features)", "predicted", "observed", pts, true)
	if err != nil {
		return err
	}
	return writeFigure(c, p, figures.ColumnWidth, figures.ColumnWidth, ext, d.Stats.Exp.ID+"-crux-"+dim)
}
