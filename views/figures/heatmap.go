package figures

import (
	"fmt"
	"image/color"
	"math"
	"strconv"
	"strings"

	"gonum.org/v1/plot"
	"gonum.org/v1/plot/font"
	"gonum.org/v1/plot/text"
	"gonum.org/v1/plot/vg"
	"gonum.org/v1/plot/vg/draw"
)

// The AnnotatedPairs heat map and its diverging colour scale (whose
// colours are pairs.go's).

// Diverging is a colour scale: values at or below Min get the negative
// (red) end, Center the neutral colour, values at or above Max the
// positive (blue) end, linearly in between. Min == Center makes a one-sided
// scale from the neutral colour to blue.
type Diverging struct{ Min, Center, Max float64 }

// Position places v on the scale in [-1, 1]; NaN stays NaN.
func (d Diverging) Position(v float64) float64 {
	switch {
	case math.IsNaN(v):
		return math.NaN()
	case v >= d.Center:
		if d.Max <= d.Center {
			return 0
		}
		return math.Min(1, (v-d.Center)/(d.Max-d.Center))
	default:
		if d.Min >= d.Center {
			return 0
		}
		return math.Max(-1, (v-d.Center)/(d.Center-d.Min))
	}
}

// Color is v's colour; NaN is white.
func (d Diverging) Color(v float64) color.Color {
	t := d.Position(v)
	switch {
	case math.IsNaN(t):
		return color.White
	case t < 0:
		return mix(divergingMid, divergingLow, -t)
	default:
		return mix(divergingMid, divergingHigh, t)
	}
}

// ticks are the values the colour bar labels.
func (d Diverging) ticks() []float64 {
	var out []float64
	if d.Min < d.Center {
		out = append(out, d.Min, (d.Min+d.Center)/2)
	}
	out = append(out, d.Center)
	if d.Max > d.Center {
		out = append(out, (d.Center+d.Max)/2, d.Max)
	}
	return out
}

func mix(a, b color.RGBA, t float64) color.RGBA {
	f := func(x, y uint8) uint8 { return uint8(math.Round(float64(x) + t*(float64(y)-float64(x)))) }
	return color.RGBA{R: f(a.R, b.R), G: f(a.G, b.G), B: f(a.B, b.B), A: 0xff}
}

// NiceBound is the smallest of 0.05, 0.1, 0.2, 0.25, 0.5, 1, 2, 2.5, 5,
// 10, … that is at least v (v > 0), for the end of a colour scale that
// keeps small values visible; 0.05 for v <= 0 or NaN.
func NiceBound(v float64) float64 {
	if !(v > 0.05) {
		return 0.05
	}
	base := math.Pow(10, math.Floor(math.Log10(v)))
	for _, m := range []float64{1, 2, 2.5, 5, 10} {
		if b := m * base; b >= v*(1-1e-12) {
			return b
		}
	}
	return 10 * base
}

// HeatMapHeight is a height that fits rows rows of a heat map.
func HeatMapHeight(rows int) vg.Length {
	return vg.Points(float64(rows)*11 + 80)
}

// HeatMap draws values[row][column] as a grid of cells coloured on scale,
// row labels on the left, column labels below (slanted when they do not
// fit), each cell's value printed with digits decimals (when it fits), and
// a colour bar titled scaleLabel on the right. NaN cells are white and show
// "–".
func HeatMap(title, scaleLabel string, rows, columns []string, values [][]float64, scale Diverging, digits int) *plot.Plot {
	if len(values) != len(rows) {
		panic(fmt.Sprintf("figures: HeatMap: %d rows of values for %d row labels", len(values), len(rows)))
	}
	for i, v := range values {
		if len(v) != len(columns) {
			panic(fmt.Sprintf("figures: HeatMap: row %d has %d values for %d columns", i, len(v), len(columns)))
		}
	}
	p := plot.New()
	p.Title.Text = title
	p.Title.TextStyle.Font.Size = titleSize
	p.HideAxes()
	p.Add(&heatMap{rows: rows, columns: columns, values: values, scale: scale, digits: digits, label: scaleLabel})
	return p
}

type heatMap struct {
	rows, columns []string
	values        [][]float64
	scale         Diverging
	digits        int
	label         string
}

func textStyle(size vg.Length) text.Style {
	return text.Style{Color: color.Black, Font: font.From(plot.DefaultFont, size), Handler: plot.DefaultTextHandler}
}

// Plot implements plot.Plotter: it lays the grid, labels and colour bar out
// in the whole data area, ignoring the (hidden) axes.
func (h *heatMap) Plot(c draw.Canvas, _ *plot.Plot) {
	if len(h.rows) == 0 || len(h.columns) == 0 {
		return
	}
	label, value, tick := textStyle(textSize), textStyle(textSize), textStyle(textSize)

	var rowW vg.Length
	for _, r := range h.rows {
		rowW = max(rowW, label.Width(r))
	}
	rowW += vg.Points(4)
	var tickW vg.Length
	ticks := h.scale.ticks()
	for _, t := range ticks {
		tickW = max(tickW, tick.Width(h.format(t)))
	}
	barGap, barW := vg.Points(10), vg.Points(7)
	rightW := barGap + barW + vg.Points(3) + tickW + vg.Points(4) + label.Height(h.label)
	left := c.Min.X + rowW
	cellW := (c.Max.X - left - rightW) / vg.Length(len(h.columns))
	if cellW <= 0 {
		return
	}
	var colW vg.Length
	for _, col := range h.columns {
		colW = max(colW, label.Width(col))
	}
	lineH := label.Height("M")
	slant := colW > cellW-vg.Points(2)
	colH := lineH + vg.Points(3)
	if slant {
		colH = vg.Length(float64(colW)*math.Sqrt2/2+float64(lineH)*math.Sqrt2/2) + vg.Points(4)
	}
	bottom := c.Min.Y + colH
	cellH := (c.Max.Y - bottom) / vg.Length(len(h.rows))
	if cellH <= 0 {
		return
	}
	top := c.Max.Y
	inset := vg.Points(0.5)
	for i, r := range h.rows {
		y1 := top - vg.Length(i)*cellH
		y0 := y1 - cellH
		s := label
		s.XAlign, s.YAlign = draw.XRight, draw.YCenter
		c.FillText(s, vg.Point{X: left - vg.Points(3), Y: (y0 + y1) / 2}, r)
		for j := range h.columns {
			x0 := left + vg.Length(j)*cellW
			v := h.values[i][j]
			rect := vg.Rectangle{Min: vg.Point{X: x0 + inset, Y: y0 + inset}, Max: vg.Point{X: x0 + cellW - inset, Y: y1 - inset}}
			c.FillPolygon(h.scale.Color(v), rectPath(rect))
			addHover(c, hoverShape{Kind: "rect", X: rect.Min.X, Y: rect.Min.Y, X2: rect.Max.X, Y2: rect.Max.Y,
				Title: h.rows[i] + " × " + h.columns[j] + ": " + hoverNum(v)})
			txt := h.format(v)
			if value.Width(txt) > cellW-vg.Points(2) || value.Height(txt) > cellH {
				continue
			}
			vs := value
			vs.XAlign, vs.YAlign = draw.XCenter, draw.YCenter
			if t := h.scale.Position(v); !math.IsNaN(t) && math.Abs(t) > 0.6 {
				vs.Color = color.White
			}
			c.FillText(vs, vg.Point{X: x0 + cellW/2, Y: (y0 + y1) / 2}, txt)
		}
	}
	for j, col := range h.columns {
		s := label
		pt := vg.Point{X: left + (vg.Length(j)+0.5)*cellW, Y: bottom - vg.Points(2)}
		if slant {
			s.Rotation = math.Pi / 4
			s.XAlign, s.YAlign = draw.XRight, draw.YTop
		} else {
			s.XAlign, s.YAlign = draw.XCenter, draw.YTop
		}
		c.FillText(s, pt, col)
	}

	h.colourBar(c, left+vg.Length(len(h.columns))*cellW+barGap, barW, top, bottom, ticks, label, tick)
}

// format writes a value as the cells and the colour bar's ticks show it,
// with h.digits decimals; NaN is "–".
func (h *heatMap) format(v float64) string {
	if math.IsNaN(v) {
		return "–"
	}
	s := strconv.FormatFloat(v, 'f', h.digits, 64)
	if strings.Trim(s, "-0.") == "" {
		s = strings.TrimPrefix(s, "-") // no "-0.00"
	}
	return s
}

// colourBar draws the colour bar of h's scale at barX, barW wide, beside a
// grid from bottom to top: its ticks (in the style tick) and, along the
// figure's right edge, its title (in the style label).
func (h *heatMap) colourBar(c draw.Canvas, barX, barW, top, bottom vg.Length, ticks []float64, label, tick text.Style) {
	// The colour bar, as tall as the grid but at most 2 inches.
	barTop := top
	barH := min(top-bottom, 2*vg.Inch)
	barBottom := barTop - barH
	const steps = 64
	lo, hi := h.scale.Min, h.scale.Max
	for k := 0; k < steps; k++ {
		v0 := lo + (hi-lo)*float64(k)/steps
		v1 := lo + (hi-lo)*float64(k+1)/steps
		y0 := barBottom + barH*vg.Length(k)/steps
		y1 := barBottom + barH*vg.Length(k+1)/steps
		c.FillPolygon(h.scale.Color((v0+v1)/2), rectPath(vg.Rectangle{Min: vg.Point{X: barX, Y: y0}, Max: vg.Point{X: barX + barW, Y: y1 + vg.Points(0.2)}}))
	}
	edge := draw.LineStyle{Color: color.Gray{Y: 0x99}, Width: vg.Points(0.4)}
	c.StrokeLines(edge, rectPath(vg.Rectangle{Min: vg.Point{X: barX, Y: barBottom}, Max: vg.Point{X: barX + barW, Y: barTop}}))
	ts := tick
	ts.XAlign, ts.YAlign = draw.XLeft, draw.YCenter
	for _, t := range ticks {
		if hi == lo {
			break
		}
		y := barBottom + barH*vg.Length((t-lo)/(hi-lo))
		c.StrokeLine2(edge, barX+barW, y, barX+barW+vg.Points(2), y)
		c.FillText(ts, vg.Point{X: barX + barW + vg.Points(3), Y: y}, h.format(t))
	}
	// Turned a quarter left, the label's foot is toward the right edge:
	// anchored there by its foot, it reads upward inside the figure.
	ls := label
	ls.Rotation = math.Pi / 2
	ls.XAlign, ls.YAlign = draw.XCenter, draw.YBottom
	c.FillText(ls, vg.Point{X: c.Max.X, Y: barBottom + barH/2}, h.label)
}

func rectPath(r vg.Rectangle) []vg.Point {
	return []vg.Point{r.Min, {X: r.Max.X, Y: r.Min.Y}, r.Max, {X: r.Min.X, Y: r.Max.Y}, r.Min}
}
