// Package figures draws the dashboard's figures with gonum/plot. A figure is
// a function from analysis results to a *plot.Plot; handlers write it as PNG,
// SVG or PDF with Write.
package figures

import (
	"fmt"
	"image/color"
	"io"
	"math"

	"gonum.org/v1/plot"
	"gonum.org/v1/plot/plotter"
	"gonum.org/v1/plot/vg"
	"gonum.org/v1/plot/vg/draw"
	"gonum.org/v1/plot/vg/vgimg"
)

// Formats lists the file formats every figure is offered in, with their
// content types.
var Formats = map[string]string{
	"png": "image/png",
	"svg": "image/svg+xml",
	"pdf": "application/pdf",
}

// ColumnWidth is one column of a two-column paper.
const ColumnWidth = 3.4 * vg.Inch

// Palette holds the colours used consistently across figures: one per
// auditor group, and one per behavior split.
var Palette = map[string]color.Color{
	"baseline":            color.RGBA{R: 0x6b, G: 0x74, B: 0x85, A: 0xff},
	"binary_pointwise":    color.RGBA{R: 0xc2, G: 0x57, B: 0x1a, A: 0xff},
	"intragroup_pairwise": color.RGBA{R: 0x2d, G: 0x7a, B: 0x4b, A: 0xff},
	"reference_pairwise":  color.RGBA{R: 0x2f, G: 0x5f, B: 0xb3, A: 0xff},
	"concerningness_rl":   color.RGBA{R: 0x9b, G: 0x2f, B: 0x6a, A: 0xff},
	"train":               color.RGBA{R: 0x2f, G: 0x5f, B: 0xb3, A: 0xff},
	"heldout":             color.RGBA{R: 0xc2, G: 0x57, B: 0x1a, A: 0xff},
	"benign":              color.RGBA{R: 0x5f, G: 0x7f, B: 0x3a, A: 0xff},
}

// ColorFor returns the palette colour of a group, grey for unknown groups.
func ColorFor(group string) color.Color {
	if c, ok := Palette[group]; ok {
		return c
	}
	return color.RGBA{R: 0x88, G: 0x88, B: 0x88, A: 0xff}
}

// Interval is one labelled estimate.
type Interval struct {
	Label         string
	Group         string // colour group (see Palette)
	Value, Lo, Hi float64
}

// IntervalChart draws horizontal bars with error bars, one per item, in the
// order given (first at the top). NaN values are drawn as empty rows; NaN
// bounds draw no whisker.
func IntervalChart(title, xLabel string, items []Interval) (*plot.Plot, error) {
	p := plot.New()
	p.Title.Text = title
	p.X.Label.Text = xLabel
	p.Title.TextStyle.Font.Size = vg.Points(9)
	p.X.Label.TextStyle.Font.Size = vg.Points(8)
	p.X.Tick.Label.Font.Size = vg.Points(7)
	p.Y.Tick.Label.Font.Size = vg.Points(7)
	n := len(items)
	if n == 0 {
		return Empty(title, NothingMatches), nil
	}
	labels := make([]string, n)
	for i, it := range items {
		labels[n-1-i] = it.Label
	}
	p.NominalY(labels...)
	p.Add(plotter.NewGrid())
	// One bar chart per group keeps colours consistent.
	groups := map[string]plotter.Values{}
	var order []string
	for i, it := range items {
		if _, ok := groups[it.Group]; !ok {
			groups[it.Group] = make(plotter.Values, n)
			order = append(order, it.Group)
		}
		v := it.Value
		if math.IsNaN(v) {
			v = 0
		}
		groups[it.Group][n-1-i] = v
	}
	for _, g := range order {
		bars, err := plotter.NewBarChart(groups[g], vg.Points(7))
		if err != nil {
			return nil, fmt.Errorf("figures: bars: %w", err)
		}
		bars.Horizontal = true
		bars.Color = ColorFor(g)
		bars.LineStyle.Width = 0
		p.Add(bars)
	}
	var errs errorPoints
	for i, it := range items {
		if math.IsNaN(it.Lo) || math.IsNaN(it.Hi) || math.IsNaN(it.Value) {
			continue
		}
		errs = append(errs, errorPoint{x: it.Value, y: float64(n - 1 - i), lo: it.Value - it.Lo, hi: it.Hi - it.Value})
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
	p.X.Min = 0
	return p, nil
}

// IntervalChartHeight is a height that fits n rows.
func IntervalChartHeight(n int) vg.Length {
	return vg.Length(n)*vg.Points(10) + vg.Points(60)
}

type errorPoint struct{ x, y, lo, hi float64 }

type errorPoints []errorPoint

func (e errorPoints) Len() int                    { return len(e) }
func (e errorPoints) XY(i int) (float64, float64) { return e[i].x, e[i].y }
func (e errorPoints) XError(i int) (float64, float64) {
	return e[i].lo, e[i].hi
}

// Write writes p as format (png, svg or pdf) at the given size.
func Write(w io.Writer, p *plot.Plot, width, height vg.Length, format string) error {
	if _, ok := Formats[format]; !ok {
		return fmt.Errorf("figures: unknown format %q", format)
	}
	if format == "png" {
		// Twice the default resolution, so figures stay sharp on a slide.
		c := vgimg.NewWith(vgimg.UseWH(width, height), vgimg.UseDPI(2*vgimg.DefaultDPI))
		p.Draw(draw.New(c))
		_, err := vgimg.PngCanvas{Canvas: c}.WriteTo(w)
		return err
	}
	if format == "pdf" {
		c := newPDFCanvas(width, height)
		p.Draw(draw.New(c))
		if _, err := c.WriteTo(w); err != nil {
			return fmt.Errorf("figures: %w", err)
		}
		return nil
	}
	wt, err := p.WriterTo(width, height, format)
	if err != nil {
		return fmt.Errorf("figures: %w", err)
	}
	_, err = wt.WriteTo(w)
	return err
}

// NothingMatches is what an empty figure says.
const NothingMatches = "Nothing matches this selection"

// Empty is a figure with a title and, where the data would be, a line of
// text saying why there is none: a figure asked for an empty selection says
// so instead of failing or drawing bare axes.
func Empty(title, why string) *plot.Plot {
	p := plot.New()
	p.Title.Text = title
	p.Title.TextStyle.Font.Size = vg.Points(9)
	p.HideAxes()
	p.X.Min, p.X.Max, p.Y.Min, p.Y.Max = 0, 1, 0, 1
	l, err := plotter.NewLabels(plotter.XYLabels{XYs: []plotter.XY{{X: 0.5, Y: 0.5}}, Labels: []string{why}})
	if err == nil {
		l.TextStyle[0].XAlign = draw.XCenter
		l.TextStyle[0].YAlign = draw.YCenter
		l.TextStyle[0].Font.Size = vg.Points(8)
		p.Add(l)
	}
	return p
}
