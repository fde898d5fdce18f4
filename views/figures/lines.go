package figures

import (
	"fmt"
	"image/color"
	"math"
	"strings"

	"gonum.org/v1/plot"
	"gonum.org/v1/plot/plotter"
	"gonum.org/v1/plot/vg"
	"gonum.org/v1/plot/vg/draw"
)

// Point is one x position with a value and an optional interval (NaN
// bounds draw no whisker).
type Point struct {
	X, Value, Lo, Hi float64
	Label            string
}

// Series is a named line.
type Series struct {
	Name   string
	Group  string // colour group (see Palette); empty uses a cycling colour
	Points []Point
}

// cycle colours the series without a group, in order of first appearance:
// the Palette's colour-blind-safe set, then its other colours.
var cycle = []color.Color{
	okiBlue, okiVerm, okiGreen, okiPurple,
	color.RGBA{R: 0xe6, G: 0x9f, B: 0x00, A: 0xff}, // orange
	color.RGBA{R: 0x56, G: 0xb4, B: 0xe9, A: 0xff}, // sky blue
	okiGrey,
	color.RGBA{R: 0x00, G: 0x00, B: 0x00, A: 0xff}, // black
}

func styled(p *plot.Plot, title, xLabel, yLabel string) {
	p.Title.Text = title
	p.X.Label.Text = xLabel
	p.Y.Label.Text = yLabel
	p.Title.TextStyle.Font.Size = titleSize
	p.X.Label.TextStyle.Font.Size = labelSize
	p.Y.Label.TextStyle.Font.Size = labelSize
	p.X.Tick.Label.Font.Size = textSize
	p.Y.Tick.Label.Font.Size = textSize
	p.Legend.TextStyle.Font.Size = textSize
	p.X.Tick.Marker = roundTicks{}
	p.Y.Tick.Marker = roundTicks{}
	p.Add(plotter.NewGrid())
}

// Lines draws one line per series with points and error bars.
func Lines(title, xLabel, yLabel string, series []Series) (*plot.Plot, error) {
	p := plot.New()
	styled(p, title, xLabel, yLabel)
	p.Legend.XOffs = legendOutside
	hover := &hoverPoints{}
	for i, s := range series {
		col := cycle[i%len(cycle)]
		if s.Group != "" {
			if c, ok := Palette[s.Group]; ok {
				col = c
			}
		}
		var xys plotter.XYs
		var errs yErrs
		for _, pt := range s.Points {
			if math.IsNaN(pt.Value) {
				continue
			}
			xys = append(xys, plotter.XY{X: pt.X, Y: pt.Value})
			if !math.IsNaN(pt.Lo) && !math.IsNaN(pt.Hi) {
				errs = append(errs, yErr{pt.X, pt.Value, pt.Value - pt.Lo, pt.Hi - pt.Value})
			}
		}
		if len(xys) == 0 {
			continue
		}
		line, points, err := plotter.NewLinePoints(xys)
		if err != nil {
			return nil, fmt.Errorf("figures: line: %w", err)
		}
		line.Color = col
		line.Width = vg.Points(1)
		points.Color = col
		points.Shape = draw.CircleGlyph{}
		points.Radius = vg.Points(2)
		p.Add(line, points)
		if len(errs) > 0 {
			eb, err := plotter.NewYErrorBars(errs)
			if err != nil {
				return nil, fmt.Errorf("figures: error bars: %w", err)
			}
			eb.Color = col
			eb.CapWidth = vg.Points(3)
			p.Add(eb)
		}
		if s.Name != "" {
			p.Legend.Add(s.Name, line, points)
		}
		for _, pt := range s.Points {
			at := strings.TrimSpace(xLabel + " " + hoverNum(pt.X))
			if s.Name != "" {
				at = s.Name + ", " + at
			}
			hover.add(pt.X, pt.Value, hoverEstimate(at, pt.Value, pt.Lo, pt.Hi))
		}
	}
	p.Add(hover)
	return p, nil
}

type yErr struct{ x, y, lo, hi float64 }

type yErrs []yErr

func (e yErrs) Len() int                        { return len(e) }
func (e yErrs) XY(i int) (float64, float64)     { return e[i].x, e[i].y }
func (e yErrs) YError(i int) (float64, float64) { return e[i].lo, e[i].hi }

// Scatter draws labelled points; with diagonal it adds the y = x line (for
// predicted against observed).
func Scatter(title, xLabel, yLabel string, pts []Point, diagonal bool) (*plot.Plot, error) {
	p := plot.New()
	styled(p, title, xLabel, yLabel)
	var xys plotter.XYs
	var labels []string
	lo, hi := math.Inf(1), math.Inf(-1)
	for _, pt := range pts {
		if math.IsNaN(pt.X) || math.IsNaN(pt.Value) {
			continue
		}
		xys = append(xys, plotter.XY{X: pt.X, Y: pt.Value})
		labels = append(labels, pt.Label)
		lo, hi = math.Min(lo, math.Min(pt.X, pt.Value)), math.Max(hi, math.Max(pt.X, pt.Value))
	}
	if len(xys) == 0 {
		return p, nil
	}
	sc, err := plotter.NewScatter(xys)
	if err != nil {
		return nil, fmt.Errorf("figures: scatter: %w", err)
	}
	sc.Color = cycle[0]
	sc.Shape = draw.CircleGlyph{}
	sc.Radius = vg.Points(2.5)
	p.Add(sc)
	hover := &hoverPoints{}
	for i, xy := range xys {
		hover.add(xy.X, xy.Y, strings.TrimPrefix(labels[i]+": ", ": ")+xLabel+" "+hoverNum(xy.X)+", "+yLabel+" "+hoverNum(xy.Y))
	}
	p.Add(hover)
	if diagonal && hi > lo {
		d, err := plotter.NewLine(plotter.XYs{{X: lo, Y: lo}, {X: hi, Y: hi}})
		if err != nil {
			return nil, err
		}
		d.Dashes = []vg.Length{vg.Points(3), vg.Points(3)}
		d.Color = color.Gray{Y: 0x88}
		p.Add(d)
	}
	return p, nil
}
