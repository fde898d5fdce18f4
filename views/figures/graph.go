package figures

import (
	"image/color"
	"math"

	"gonum.org/v1/plot"
	"gonum.org/v1/plot/font"
	"gonum.org/v1/plot/text"
	"gonum.org/v1/plot/vg"
	"gonum.org/v1/plot/vg/draw"
)

// Graph draws a directed preference graph: items on a circle, an arrow
// i → j for each edge (i beat j by majority). Items flagged hot (in a cycle)
// and edges on a cycle are drawn in the accent colour.
func Graph(title string, labels []string, edges [][2]int, hot []bool, hotEdges map[[2]int]bool) *plot.Plot {
	p := plot.New()
	p.Title.Text = title
	p.Title.TextStyle.Font.Size = titleSize
	p.HideAxes()
	p.Add(&graphPlotter{labels: labels, edges: edges, hot: hot, hotEdges: hotEdges})
	p.X.Min, p.X.Max, p.Y.Min, p.Y.Max = -2.6, 2.6, -1.25, 1.25
	return p
}

type graphPlotter struct {
	labels   []string
	edges    [][2]int
	hot      []bool
	hotEdges map[[2]int]bool
}

var (
	graphAccent = color.RGBA{R: 0xc2, G: 0x2f, B: 0x2f, A: 0xff}
	graphEdge   = color.RGBA{R: 0x8a, G: 0x92, B: 0xa0, A: 0xff}
	graphNode   = color.RGBA{R: 0x2f, G: 0x5f, B: 0xb3, A: 0xff}
)

func (g *graphPlotter) pos(i int) (float64, float64) {
	n := len(g.labels)
	a := math.Pi/2 - 2*math.Pi*float64(i)/float64(n)
	return math.Cos(a), math.Sin(a)
}

// Plot implements plot.Plotter. The nodes sit on an ellipse sized from the
// canvas and the widest label, so no label runs off the figure; a label
// wider than the room beside the ellipse (at most a third of the figure) is
// shortened with "…".
func (g *graphPlotter) Plot(c draw.Canvas, plt *plot.Plot) {
	r := vg.Points(4)
	sty := text.Style{Color: color.Black, Font: font.From(plot.DefaultFont, textSize), Handler: plot.DefaultTextHandler}
	w, h := c.Max.X-c.Min.X, c.Max.Y-c.Min.Y
	labels := make([]string, len(g.labels))
	var widest vg.Length
	for i, l := range g.labels {
		labels[i] = fitLabel(sty, l, w/3)
		widest = max(widest, sty.Rectangle(labels[i]).Max.X)
	}
	lineH := sty.Rectangle("Mg").Max.Y
	rx := max(w/2-widest-r*3-vg.Points(4), w/6)
	// The ellipse keeps a third of the width: when that leaves less room
	// beside it than the widest label needs, the labels are shortened to
	// the room there is, so none runs off the figure.
	if room := w/2 - rx - r*2.5 - vg.Points(2); widest > room {
		for i, l := range g.labels {
			labels[i] = fitLabel(sty, l, min(w/3, room))
		}
	}
	ry := max(h/2-lineH-r*3, h/6)
	cx, cy := (c.Min.X+c.Max.X)/2, (c.Min.Y+c.Max.Y)/2
	at := func(i int) (vg.Point, float64, float64) {
		x, y := g.pos(i)
		return vg.Point{X: cx + rx*vg.Length(x), Y: cy + ry*vg.Length(y)}, x, y
	}
	for _, e := range g.edges {
		a, _, _ := at(e[0])
		b, _, _ := at(e[1])
		dx, dy := float64(b.X-a.X), float64(b.Y-a.Y)
		l := math.Hypot(dx, dy)
		if l == 0 {
			continue
		}
		ux, uy := dx/l, dy/l
		// Stop short of the nodes so arrowheads stay visible.
		a = vg.Point{X: a.X + vg.Length(ux)*r*1.6, Y: a.Y + vg.Length(uy)*r*1.6}
		b = vg.Point{X: b.X - vg.Length(ux)*r*1.6, Y: b.Y - vg.Length(uy)*r*1.6}
		col, lw := color.Color(graphEdge), vg.Points(0.6)
		if g.hotEdges[e] {
			col, lw = graphAccent, vg.Points(1.1)
		}
		ls := draw.LineStyle{Color: col, Width: lw}
		c.StrokeLine2(ls, a.X, a.Y, b.X, b.Y)
		edge := g.labels[e[0]] + " → " + g.labels[e[1]]
		if g.hotEdges[e] {
			edge += " (on a cycle)"
		}
		addHover(c, hoverShape{Kind: "line", X: a.X, Y: a.Y, X2: b.X, Y2: b.Y, Title: edge})
		head := vg.Points(5)
		for _, ang := range []float64{0.4, -0.4} {
			hx := -ux*math.Cos(ang) + uy*math.Sin(ang)
			hy := -uy*math.Cos(ang) - ux*math.Sin(ang)
			c.StrokeLine2(ls, b.X, b.Y, b.X+vg.Length(hx)*head, b.Y+vg.Length(hy)*head)
		}
	}
	for i, l := range labels {
		pt, x, y := at(i)
		col := color.Color(graphNode)
		if i < len(g.hot) && g.hot[i] {
			col = graphAccent
		}
		c.FillPolygon(col, circle(pt, r))
		addHover(c, hoverShape{Kind: "circle", X: pt.X, Y: pt.Y, R: r * 1.5, Title: g.labels[i]})
		s := sty
		s.XAlign, s.YAlign = draw.XCenter, draw.YCenter
		if x > 0.2 {
			s.XAlign = draw.XLeft
		} else if x < -0.2 {
			s.XAlign = draw.XRight
		}
		off := vg.Point{X: vg.Length(x) * r * 2.5, Y: vg.Length(y) * r * 2.5}
		c.FillText(s, pt.Add(off), l)
	}
}

// fitLabel shortens a label to at most width, ending it with "…".
func fitLabel(sty text.Style, l string, width vg.Length) string {
	if sty.Rectangle(l).Max.X <= width {
		return l
	}
	rs := []rune(l)
	for n := len(rs) - 1; n > 1; n-- {
		if s := string(rs[:n]) + "…"; sty.Rectangle(s).Max.X <= width {
			return s
		}
	}
	return string(rs[:1]) + "…"
}

func circle(c vg.Point, r vg.Length) []vg.Point {
	pts := make([]vg.Point, 0, 16)
	for k := 0; k < 16; k++ {
		a := 2 * math.Pi * float64(k) / 16
		pts = append(pts, vg.Point{X: c.X + r*vg.Length(math.Cos(a)), Y: c.Y + r*vg.Length(math.Sin(a))})
	}
	return pts
}
