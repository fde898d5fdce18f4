package web

import (
	"fmt"
	"math"
	"net/http"

	"github.com/labstack/echo/v4"

	"github.com/auditscope/auditscope/analysis"
	"github.com/auditscope/auditscope/analysis/experiment"
	"github.com/auditscope/auditscope/data/bundle"
	"github.com/auditscope/auditscope/views"
	"github.com/auditscope/auditscope/views/figures"
	"github.com/auditscope/auditscope/web/app"
)

// cruxDims are the evaluation dimensions the crux features should predict.
var cruxDims = []string{experiment.AuditQuality, experiment.FPCalibration, experiment.Production, experiment.Realism, experiment.Composite}

// cruxData pairs each checkpoint's crux features with its dimension values.
type cruxData struct {
	Names    []string
	Features [][]float64
	Targets  map[string][]float64
}

func (s *Server) cruxData(c echo.Context) (*app.ExperimentStats, cruxData, error) {
	ctx := c.Request().Context()
	st, err := s.app.Stats(ctx, c.Param("exp"))
	if err != nil {
		return nil, cruxData{}, err
	}
	rows, err := s.store.Crux(ctx, st.Exp.ID)
	if err != nil {
		return nil, cruxData{}, err
	}
	byID := map[string]app.AuditorScores{}
	for _, a := range st.Auditors {
		byID[a.Auditor.ID] = a
	}
	d := cruxData{Targets: map[string][]float64{}}
	for _, r := range rows {
		a, ok := byID[r.Auditor]
		// The regression runs across checkpoints, as in the paper.
		if !ok || a.Auditor.Kind != bundle.KindCheckpoint {
			continue
		}
		d.Names = append(d.Names, a.Auditor.Name)
		d.Features = append(d.Features, append([]float64(nil), r.Features[:]...))
		for _, k := range cruxDims {
			d.Targets[k] = append(d.Targets[k], a.Score[k].Value)
		}
	}
	return st, d, nil
}

func (s *Server) showCrux(c echo.Context) error {
	st, d, err := s.cruxData(c)
	if err != nil {
		return err
	}
	vm := views.CruxView{Exp: st.Exp, FeatureNames: bundle.CruxFeatureNames}
	for i, n := range d.Names {
		vm.Rows = append(vm.Rows, views.CruxRow{Name: n, Features: d.Features[i]})
	}
	if len(d.Features) > 0 {
		fits, err := analysis.CruxR2(d.Features, d.Targets)
		if err != nil {
			return err
		}
		for _, k := range cruxDims {
			f := fits[k]
			vm.Fits = append(vm.Fits, views.CruxFitRow{Dim: k, Title: dimensionTitles[k], N: f.N,
				R2Rates: f.R2Rates, LOORates: f.LOORates, R2All: f.R2All, LOOAll: f.LOOAll})
		}
	}
	return render(c, http.StatusOK, views.CruxPage(vm))
}

// cruxFigure serves crux-DIM.{fmt}: predicted (eight-feature fit) against
// observed values of one dimension.
func (s *Server) cruxFigure(c echo.Context, dim, ext string) error {
	st, d, err := s.cruxData(c)
	if err != nil {
		return err
	}
	if dimensionTitles[dim] == "" || dim == experiment.AuditBenchSTC || dim == experiment.AuditBenchDefault {
		return notFound(fmt.Sprintf("crux figure for %q", dim))
	}
	var x [][]float64
	var y []float64
	var names []string
	for i, v := range d.Targets[dim] {
		if !math.IsNaN(v) {
			x, y, names = append(x, d.Features[i]), append(y, v), append(names, d.Names[i])
		}
	}
	var pts []figures.Point
	if len(y) > 0 {
		fit, err := analysis.OLS(x, y)
		if err != nil {
			return badRequestf("crux regression for %s: %v", dim, err)
		}
		for i := range y {
			pred := fit.Coef[0]
			for j, v := range x[i] {
				pred += fit.Coef[j+1] * v
			}
			pts = append(pts, figures.Point{X: pred, Value: y[i], Label: names[i]})
		}
	}
	p, err := figures.Scatter(dimensionTitles[dim]+": crux prediction (8 features)", "predicted", "observed", pts, true)
	if err != nil {
		return err
	}
	return writeFigure(c, p, figures.ColumnWidth, figures.ColumnWidth, ext, st.Exp.ID+"-crux-"+dim)
}
