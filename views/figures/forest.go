package figures

import (
	"fmt"
	"math"

	"gonum.org/v1/plot"
	"gonum.org/v1/plot/plotter"
	"gonum.org/v1/plot/vg"
	"gonum.org/v1/plot/vg/draw"
)

// ForestPlot draws differences with their intervals, one row per item
// (first at the top), as points with whiskers around a dashed line at 0:
// a row whose whisker crosses the line is not distinguishable from no
// difference. Items with a NaN value leave their row empty.
func ForestPlot(title, xLabel string, items []Interval) (*plot.Plot, error) {
	return ForestPlotAt(title, xLabel, items, 0)
}

// ForestPlotAt is ForestPlot with the dashed line at ref instead of 0, or
// none for a NaN ref (estimates, such as means on a judge's 1–10 scale,
// that no line separates).
func ForestPlotAt(title, xLabel string, items []Interval, ref float64) (*plot.Plot, error) {
	n := len(items)
	if n == 0 {
		return Empty(title, NothingMatches), nil
	}
	p := plot.New()
	p.Title.Text = title
	p.X.Label.Text = xLabel
	p.Title.TextStyle.Font.Size = titleSize
	p.X.Label.TextStyle.Font.Size = labelSize
	p.X.Tick.Label.Font.Size = textSize
	p.Y.Tick.Label.Font.Size = textSize
	labels := make([]string, n)
	for i, it := range items {
		labels[n-1-i] = it.Label
	}
	p.NominalY(fitRows(p.Y.Tick.Label, labels)...)
	p.Add(plotter.NewGrid())
	lo, hi := math.Inf(1), math.Inf(-1)
	if !math.IsNaN(ref) {
		lo, hi = ref, ref
	}
	var errs errorPoints
	groups := map[string]plotter.XYs{}
	var order []string
	for i, it := range items {
		if math.IsNaN(it.Value) {
			continue
		}
		y := float64(n - 1 - i)
		if _, ok := groups[it.Group]; !ok {
			order = append(order, it.Group)
		}
		groups[it.Group] = append(groups[it.Group], plotter.XY{X: it.Value, Y: y})
		for _, v := range []float64{it.Value, it.Lo, it.Hi} {
			// An unbounded side (a test that rejects no shift) runs to
			// the plot's edge.
			if !math.IsNaN(v) && !math.IsInf(v, 0) {
				lo, hi = math.Min(lo, v), math.Max(hi, v)
			}
		}
		if !math.IsNaN(it.Lo) && !math.IsNaN(it.Hi) {
			errs = append(errs, errorPoint{x: it.Value, y: y, lo: it.Lo, hi: it.Hi})
		}
	}
	if math.IsInf(lo, 1) {
		lo, hi = 0, 1 // nothing to place
	}
	pad := 0.05 * math.Max(hi-lo, 1)
	lo, hi = lo-pad, hi+pad
	for i := range errs {
		e := &errs[i]
		e.lo, e.hi = e.x-math.Max(e.lo, lo), math.Min(e.hi, hi)-e.x
	}
	if !math.IsNaN(ref) {
		zero, err := plotter.NewLine(plotter.XYs{{X: ref, Y: -0.5}, {X: ref, Y: float64(n) - 0.5}})
		if err != nil {
			return nil, fmt.Errorf("figures: reference line: %w", err)
		}
		zero.LineStyle.Dashes = []vg.Length{vg.Points(3), vg.Points(2)}
		zero.LineStyle.Width = vg.Points(0.6)
		p.Add(zero)
	}
	if len(errs) > 0 {
		eb, err := plotter.NewXErrorBars(errs)
		if err != nil {
			return nil, fmt.Errorf("figures: error bars: %w", err)
		}
		eb.LineStyle.Width = vg.Points(0.8)
		eb.CapWidth = vg.Points(3)
		p.Add(eb)
	}
	for _, g := range order {
		sc, err := plotter.NewScatter(groups[g])
		if err != nil {
			return nil, fmt.Errorf("figures: points: %w", err)
		}
		sc.GlyphStyle.Shape = draw.CircleGlyph{}
		sc.GlyphStyle.Radius = vg.Points(2.5)
		sc.GlyphStyle.Color = ColorFor(g)
		p.Add(sc)
		if len(order) > 1 && g != "" {
			p.Legend.Add(GroupLabel(g), sc)
		}
	}
	if len(order) > 1 {
		p.Legend.TextStyle.Font.Size = textSize
		p.Legend.XOffs = legendOutside
	}
	p.X.Min, p.X.Max = lo, hi
	p.Y.Min, p.Y.Max = -0.5, float64(n)-0.5
	p.X.Tick.Marker = roundTicks{}
	p.Add(itemHover(items))
	return p, nil
}
