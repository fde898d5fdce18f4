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
	p.Title.TextStyle.Font.Size = vg.Points(9)
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

// Plot implements plot.Plotter.
func (g *graphPlotter) Plot(c draw.Canvas, plt *plot.Plot) {
	trX, trY := plt.Transforms(&c)
	r := vg.Points(4)
	for _, e := range g.edges {
		x1, y1 := g.pos(e[0])
		x2, y2 := g.pos(e[1])
		a := vg.Point{X: trX(x1), Y: trY(y1)}
		b := vg.Point{X: trX(x2), Y: trY(y2)}
		dx, dy := float64(b.X-a.X), float64(b.Y-a.Y)
		l := math.Hypot(dx, dy)
		if l == 0 {
			continue
		}
		ux, uy := dx/l, dy/l
		// Stop short of the nodes so arrowheads stay visible.
		a = vg.Point{X: a.X + vg.Length(ux)*r*1.6, Y: a.Y + vg.Length(uy)*r*1.6}
		b = vg.Point{X: b.X - vg.Length(ux)*r*1.6, Y: b.Y - vg.Length(uy)*r*1.6}
		col, w := color.Color(graphEdge), vg.Points(0.6)
		if g.hotEdges[e] {
			col, w = graphAccent, vg.Points(1.1)
		}
		ls := draw.LineStyle{Color: col, Width: w}
		c.StrokeLine2(ls, a.X, a.Y, b.X, b.Y)
		head := vg.Points(5)
		for _, ang := range []float64{0.4, -0.4} {
			hx := -ux*math.Cos(ang) + uy*math.Sin(ang)
			hy := -uy*math.Cos(ang) - ux*math.Sin(ang)
			c.StrokeLine2(ls, b.X, b.Y, b.X+vg.Length(hx)*head, b.Y+vg.Length(hy)*head)
		}
	}
	sty := text.Style{Color: color.Black, Font: font.From(plot.DefaultFont, vg.Points(7)), Handler: plot.DefaultTextHandler}
	for i, l := range g.labels {
		x, y := g.pos(i)
		pt := vg.Point{X: trX(x), Y: trY(y)}
		col := color.Color(graphNode)
		if i < len(g.hot) && g.hot[i] {
			col = graphAccent
		}
		c.FillPolygon(col, circle(pt, r))
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

func circle(c vg.Point, r vg.Length) []vg.Point {
	pts := make([]vg.Point, 0, 16)
	for k := 0; k < 16; k++ {
		a := 2 * math.Pi * float64(k) / 16
		pts = append(pts, vg.Point{X: c.X + r*vg.Length(math.Cos(a)), Y: c.Y + r*vg.Length(math.Sin(a))})
	}
	return pts
}
