package figures

import (
	"bytes"
	"encoding/xml"
	"fmt"
	"math"
	"strconv"
	"strings"

	"gonum.org/v1/plot"
	"gonum.org/v1/plot/vg"
	"gonum.org/v1/plot/vg/draw"
	"gonum.org/v1/plot/vg/vgsvg"
)

// Hover titles: in an SVG every mark (a bar's row, a point, a heat map
// cell, a node or an edge) gets an invisible shape with a <title> naming
// its label, value and interval, which a browser shows on hover and a
// screen reader reads. gonum's SVG writer has no titles, so the figures'
// plotters hand their marks' places to the canvas while they draw
// (addHover), and Write appends the shapes after the drawing. PNG and PDF
// canvases take no hover shapes, so they are drawn as before.

// maxHover bounds the titled shapes of one figure: a scatter of tens of
// thousands of points would otherwise grow the file by megabytes for titles
// nobody can aim at, so it gets none. (A title costs about 100 bytes; the
// embedded font alone is 200 kB.)
const maxHover = 5000

// hoverShape is one titled region in canvas coordinates (points, y up): a
// rectangle, a circle (centre X, Y and radius R) or a line (X, Y to X2, Y2).
type hoverShape struct {
	Kind         string // "rect", "circle" or "line"
	X, Y, X2, Y2 vg.Length
	R            vg.Length
	Title        string
}

// svgCanvas is the SVG canvas Write draws on: it collects the hover shapes
// the plotters add while drawing.
type svgCanvas struct {
	*vgsvg.Canvas
	hover []hoverShape
}

// addHover gives c's figure a titled region, when c draws an SVG.
func addHover(c draw.Canvas, s hoverShape) {
	// Cropping wraps a canvas in another draw.Canvas: unwrap to the one
	// Write made.
	var v vg.Canvas = c.Canvas
	for {
		switch w := v.(type) {
		case draw.Canvas:
			v = w.Canvas
			continue
		case *draw.Canvas:
			v = w.Canvas
			continue
		case *svgCanvas:
			if len(w.hover) < maxHover {
				w.hover = append(w.hover, s)
			}
		}
		return
	}
}

// withHover returns the SVG document svg with the hover shapes appended
// inside its drawing group (whose coordinates are the canvas's), on top of
// everything, transparent and titled.
func withHover(svg []byte, shapes []hoverShape) []byte {
	end := bytes.LastIndex(svg, []byte("</g>"))
	if len(shapes) == 0 || end < 0 {
		return svg
	}
	var b bytes.Buffer
	b.Write(svg[:end])
	b.WriteString(`<g class="hover" fill="#000" fill-opacity="0" stroke="#000" stroke-opacity="0">` + "\n")
	f := func(v vg.Length) string { return strconv.FormatFloat(float64(v), 'f', 2, 64) }
	for _, s := range shapes {
		switch s.Kind {
		case "rect":
			x, y := min(s.X, s.X2), min(s.Y, s.Y2)
			fmt.Fprintf(&b, `<rect x="%s" y="%s" width="%s" height="%s" stroke-width="0">`, f(x), f(y), f(max(s.X, s.X2)-x), f(max(s.Y, s.Y2)-y))
		case "circle":
			fmt.Fprintf(&b, `<circle cx="%s" cy="%s" r="%s" stroke-width="0">`, f(s.X), f(s.Y), f(s.R))
		case "line":
			fmt.Fprintf(&b, `<line x1="%s" y1="%s" x2="%s" y2="%s" stroke-width="5">`, f(s.X), f(s.Y), f(s.X2), f(s.Y2))
		default:
			continue
		}
		b.WriteString("<title>")
		xml.EscapeText(&b, []byte(s.Title))
		b.WriteString("</title></" + s.Kind + ">\n")
	}
	b.WriteString("</g>\n")
	b.Write(svg[end:])
	return b.Bytes()
}

// hoverRows titles the rows of a chart with one row per item (NominalY):
// row i, counted from the top, spans the data area's width and a unit of
// y around n−1−i.
type hoverRows struct{ titles []string }

// Plot implements plot.Plotter; it draws nothing.
func (h hoverRows) Plot(c draw.Canvas, p *plot.Plot) {
	_, trY := p.Transforms(&c)
	n := len(h.titles)
	for i, t := range h.titles {
		if t == "" {
			continue
		}
		y := float64(n - 1 - i)
		addHover(c, hoverShape{Kind: "rect", X: c.Min.X, X2: c.Max.X, Y: trY(y - 0.5), Y2: trY(y + 0.5), Title: t})
	}
}

// hoverPoints titles points in data coordinates.
type hoverPoints struct {
	xs, ys []float64
	titles []string
}

func (h *hoverPoints) add(x, y float64, title string) {
	h.xs, h.ys, h.titles = append(h.xs, x), append(h.ys, y), append(h.titles, title)
}

// Plot implements plot.Plotter; it draws nothing.
func (h *hoverPoints) Plot(c draw.Canvas, p *plot.Plot) {
	if len(h.titles) > maxHover {
		return // all or none: a title on some of thousands of points misleads
	}
	trX, trY := p.Transforms(&c)
	for i, t := range h.titles {
		if math.IsNaN(h.xs[i]) || math.IsNaN(h.ys[i]) {
			continue
		}
		addHover(c, hoverShape{Kind: "circle", X: trX(h.xs[i]), Y: trY(h.ys[i]), R: vg.Points(4), Title: t})
	}
}

// hoverNum formats a value for a title: four significant digits.
func hoverNum(v float64) string {
	if math.IsNaN(v) {
		return "no value"
	}
	return strconv.FormatFloat(v, 'g', 4, 64)
}

// hoverEstimate is "label: value [lo, hi]", or without the interval when
// it has none.
func hoverEstimate(label string, v, lo, hi float64) string {
	s := hoverNum(v)
	if !math.IsNaN(v) && !math.IsNaN(lo) && !math.IsNaN(hi) {
		s += " [" + hoverNum(lo) + ", " + hoverNum(hi) + "]"
	}
	if label = strings.TrimSpace(label); label != "" {
		return label + ": " + s
	}
	return s
}
