// Package figures draws the dashboard's figures with gonum/plot. A figure is
// a function from analysis results to a *plot.Plot; handlers write it as PNG,
// SVG or PDF with Write.
package figures

import (
	"bytes"
	"fmt"
	"image/color"
	"io"
	"math"
	"strconv"
	"strings"

	"gonum.org/v1/plot"
	"gonum.org/v1/plot/plotter"
	"gonum.org/v1/plot/text"
	"gonum.org/v1/plot/vg"
	"gonum.org/v1/plot/vg/draw"
	"gonum.org/v1/plot/vg/vgimg"
	"gonum.org/v1/plot/vg/vgsvg"

	"github.com/auditscope/auditscope/data/model"
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

// The house style's text sizes (docs/FIGURES.md): nothing is smaller than
// textSize, 8 pt, the smallest a single-column figure is read at in print
// or on a page; a cell value that does not fit at it is left out rather
// than shrunk.
const (
	titleSize = vg.Length(10)
	labelSize = vg.Length(9)
	textSize  = vg.Length(8)
)

// Palette holds the colours used consistently across figures: one per
// auditor group, and one per behavior split. They are Okabe and Ito's
// colour-blind-safe set ("Color Universal Design", 2008), told apart also
// under deuteranopia and protanopia: grey for the baselines, vermillion,
// bluish green, blue and reddish purple for the training families, blue
// and vermillion for the two sides of any pair.
var (
	okiGrey   = color.RGBA{R: 0x6e, G: 0x6e, B: 0x6e, A: 0xff}
	okiVerm   = color.RGBA{R: 0xd5, G: 0x5e, B: 0x00, A: 0xff}
	okiGreen  = color.RGBA{R: 0x00, G: 0x9e, B: 0x73, A: 0xff}
	okiBlue   = color.RGBA{R: 0x00, G: 0x72, B: 0xb2, A: 0xff}
	okiPurple = color.RGBA{R: 0xcc, G: 0x79, B: 0xa7, A: 0xff}
	Palette   = map[string]color.Color{
		"baseline":                  okiGrey,
		"binary_pointwise":          okiVerm,
		"intragroup_pairwise":       okiGreen,
		"reference_pairwise":        okiBlue,
		"concerningness_rl":         okiPurple,
		"train":                     okiBlue,
		"heldout":                   okiVerm,
		"benign":                    okiGreen,
		model.EvalAuditBenchSTC:     okiBlue,
		model.EvalAuditBenchDefault: okiVerm,
		"recomputed":                okiBlue,
		"reported":                  okiVerm,
		"differs":                   okiVerm,
		"not distinguishable":       okiBlue,
		"judges agree":              okiBlue,
		"judges agree weakly":       okiVerm,
	}
)

// groupLabels are the palette groups' display names.
var groupLabels = map[string]string{
	"baseline":                  "Baseline models",
	"binary_pointwise":          "Binary pointwise",
	"intragroup_pairwise":       "Intragroup pairwise",
	"reference_pairwise":        "Reference pairwise",
	"concerningness_rl":         "Concerningness RL",
	"train":                     "Training behaviors",
	"heldout":                   "Held-out behaviors",
	"benign":                    "Benign targets",
	model.EvalAuditBenchSTC:     "AuditBench, short-transcript condition (STC)",
	model.EvalAuditBenchDefault: "AuditBench, default condition",
	"recomputed":                "Recomputed from the samples (95% CI)",
	"reported":                  "As the log reports (±1.96 stderr)",
	"differs":                   "Differs after the correction across dimensions",
	"not distinguishable":       "Not distinguishable after the correction",
	"judges agree":              "Kappa 0.6 or more",
	"judges agree weakly":       "Kappa under 0.6 (0 when a judge gives one score only)",
}

// GroupLabel is a colour group's display name: a legend never shows a key
// such as intragroup_pairwise.
func GroupLabel(group string) string {
	if l, ok := groupLabels[group]; ok {
		return l
	}
	s := strings.ReplaceAll(group, "_", " ")
	if s == "" {
		return s
	}
	return strings.ToUpper(s[:1]) + s[1:]
}

// ColorFor returns the palette colour of a group, grey for unknown groups.
func ColorFor(group string) color.Color {
	if c, ok := Palette[group]; ok {
		return c
	}
	return color.RGBA{R: 0x88, G: 0x88, B: 0x88, A: 0xff}
}

// maxRowLabel is the widest a row's label is drawn. gonum/plot gives the
// labels the width they ask for and the data what is left: labels of 190
// characters left it none, and the figure came out blank. A longer label
// loses its middle to an ellipsis, keeping its start and its end (where
// auditors' names differ: "… · epoch 3"); the row's hover title (SVG) and
// the page's table keep it whole. The demo's longest labels fit.
const maxRowLabel = 3.6 * vg.Inch

// fitRows is labels, each fitted to maxRowLabel in sty.
func fitRows(sty text.Style, labels []string) []string {
	out := make([]string, len(labels))
	for i, l := range labels {
		out[i] = fitWidth(sty, l, maxRowLabel)
	}
	return out
}

// fitWidth is s, with runes taken from its middle and replaced by "…"
// until it is no wider than width in sty.
func fitWidth(sty text.Style, s string, width vg.Length) string {
	if sty.Width(s) <= width {
		return s
	}
	r := []rune(s)
	cut := func(keep int) string {
		head := (keep + 1) / 2
		return strings.TrimRight(string(r[:head]), " ") + "…" + strings.TrimLeft(string(r[len(r)-(keep-head):]), " ")
	}
	// Halving on the runes kept: labels may be long, and Width measures
	// the whole string.
	lo, hi := 0, len(r)-1
	for lo < hi {
		mid := (lo + hi + 1) / 2
		if sty.Width(cut(mid)) <= width {
			lo = mid
		} else {
			hi = mid - 1
		}
	}
	return cut(lo)
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
	p.Title.TextStyle.Font.Size = titleSize
	p.X.Label.TextStyle.Font.Size = labelSize
	p.X.Tick.Label.Font.Size = textSize
	p.Y.Tick.Label.Font.Size = textSize
	n := len(items)
	if n == 0 {
		return Empty(title, NothingMatches), nil
	}
	labels := make([]string, n)
	for i, it := range items {
		labels[n-1-i] = it.Label
	}
	p.NominalY(fitRows(p.Y.Tick.Label, labels)...)
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
		// Colour carries the group: say which is which, beside the bars.
		if len(order) > 1 && g != "" {
			p.Legend.Add(GroupLabel(g), bars)
		}
	}
	if len(order) > 1 {
		p.Legend.TextStyle.Font.Size = textSize
		p.Legend.XOffs = legendOutside
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
	// The axis spans 0 and every whisker, with a little room so a cap at
	// the end is not cut.
	lo, hi := 0.0, 0.0
	for _, it := range items {
		for _, v := range []float64{it.Value, it.Lo, it.Hi} {
			if !math.IsNaN(v) {
				lo, hi = math.Min(lo, v), math.Max(hi, v)
			}
		}
	}
	pad := 0.03 * (hi - lo)
	p.X.Min, p.X.Max = lo, hi+pad
	if lo < 0 {
		p.X.Min = lo - pad
	}
	p.X.Tick.Marker = roundTicks{}
	p.Add(itemHover(items))
	return p, nil
}

// itemHover titles each item's row with its label, value and interval.
func itemHover(items []Interval) hoverRows {
	h := hoverRows{titles: make([]string, len(items))}
	for i, it := range items {
		h.titles[i] = hoverEstimate(it.Label, it.Value, it.Lo, it.Hi)
	}
	return h
}

// IntervalChartHeight is a height that fits the rows of items.
//
// The room besides the rows is the title, the axis and, when the items
// fall in several groups, the legend under the chart (draw1): without it
// a chart of two rows and a legend had no room left for its rows.
func IntervalChartHeight(items []Interval) vg.Length {
	groups := map[string]bool{}
	for _, it := range items {
		groups[it.Group] = true
	}
	h := vg.Length(len(items))*vg.Points(10) + vg.Points(66)
	if len(groups) > 1 {
		h += vg.Length(len(groups))*(textSize+vg.Points(2)) + vg.Points(12)
	}
	return h
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
	var c vg.CanvasWriterTo
	var svg *svgCanvas
	switch format {
	case "png":
		// Twice the default resolution, so figures stay sharp on a slide.
		c = vgimg.PngCanvas{Canvas: vgimg.NewWith(vgimg.UseWH(width, height), vgimg.UseDPI(2*vgimg.DefaultDPI))}
	case "pdf":
		c = newPDFCanvas(width, height)
	default:
		svg = &svgCanvas{Canvas: vgsvg.NewWith(vgsvg.UseWH(width, height), vgsvg.EmbedFonts(true))}
		c = svg
	}
	// A point of margin all round: gonum/plot sets the axis labels on the
	// canvas's very edge, where their glyphs spill half a pixel over it.
	m := vg.Points(1)
	draw1(draw.Crop(draw.New(c), m, -m, m, -m), p)
	if svg != nil {
		// The hover titles the plotters gave go in after the drawing.
		var buf bytes.Buffer
		if _, err := svg.WriteTo(&buf); err != nil {
			return fmt.Errorf("figures: %w", err)
		}
		_, err := w.Write(withHover(buf.Bytes(), svg.hover))
		return err
	}
	if _, err := c.WriteTo(w); err != nil {
		return fmt.Errorf("figures: %w", err)
	}
	return nil
}

// legendOutside marks a plot whose legend Write draws under the figure, in
// a strip of its own, instead of over the data. The mark is a NaN XOffs
// (no real offset is NaN), which Write never draws with.
var legendOutside = vg.Length(math.NaN())

// draw1 draws p on c, with its legend under the figure when p is marked:
// the plot is drawn without it on the canvas less a strip at the bottom,
// then the legend alone in that strip, so it never covers data and the
// title keeps the figure's full width.
func draw1(c draw.Canvas, p *plot.Plot) {
	p.Title.Text = wrapText(p.Title.TextStyle, p.Title.Text, c.Max.X-c.Min.X)
	if !math.IsNaN(float64(p.Legend.XOffs)) {
		p.Draw(c)
		return
	}
	legend := p.Legend
	legend.XOffs, legend.YOffs = 0, 0
	legend.Top, legend.Left = true, true
	r := legend.Rectangle(c)
	h := r.Max.Y - r.Min.Y
	if h <= 0 {
		p.Legend = legend
		p.Draw(c)
		p.Legend.XOffs = legendOutside
		return
	}
	gap := vg.Points(6)
	p.Legend = plot.NewLegend()
	p.Draw(draw.Crop(c, 0, 0, h+2*gap, 0))
	legend.Draw(draw.Crop(c, gap, 0, gap, -(c.Max.Y - c.Min.Y - h - gap)))
	legend.XOffs = legendOutside
	p.Legend = legend
}

// wrapText breaks s into lines at spaces so that no line is wider than
// width in style sty (a word wider than that keeps its own line): a long
// title (a run's full name) would otherwise run off both sides.
func wrapText(sty text.Style, s string, width vg.Length) string {
	if s == "" || sty.Width(s) <= width {
		return s
	}
	var lines []string
	line := ""
	for _, w := range strings.Fields(s) {
		if line != "" && sty.Width(line+" "+w) > width {
			lines = append(lines, line)
			line = w
			continue
		}
		line = strings.TrimSpace(line + " " + w)
	}
	return strings.Join(append(lines, line), "\n")
}

// NothingMatches is what an empty figure says.
const NothingMatches = "Nothing matches this selection"

// Empty is a figure with a title and, where the data would be, a line of
// text saying why there is none: a figure asked for an empty selection says
// so instead of failing or drawing bare axes.
func Empty(title, why string) *plot.Plot {
	p := plot.New()
	p.Title.Text = title
	p.Title.TextStyle.Font.Size = titleSize
	p.HideAxes()
	p.X.Min, p.X.Max, p.Y.Min, p.Y.Max = 0, 1, 0, 1
	l, err := plotter.NewLabels(plotter.XYLabels{XYs: []plotter.XY{{X: 0.5, Y: 0.5}}, Labels: []string{why}})
	if err == nil {
		l.TextStyle[0].XAlign = draw.XCenter
		l.TextStyle[0].YAlign = draw.YCenter
		l.TextStyle[0].Font.Size = textSize
		p.Add(l)
	}
	return p
}

// roundTicks are gonum's default ticks labelled with no more decimals than
// their step needs: 0, 25, 50 rather than 0.00, 25.00, 50.00, and 0 rather
// than -0.
type roundTicks struct{}

func (roundTicks) Ticks(min, max float64) []plot.Tick {
	ts := plot.DefaultTicks{}.Ticks(min, max)
	var majors []float64
	for _, t := range ts {
		if t.Label != "" {
			majors = append(majors, t.Value)
		}
	}
	dec := 0
	if len(majors) > 1 {
		step := math.Abs(majors[1] - majors[0])
		for dec < 8 {
			scaled := step * math.Pow(10, float64(dec))
			if math.Abs(scaled-math.Round(scaled)) <= 1e-9*math.Max(1, scaled) {
				break
			}
			dec++
		}
	}
	for i := range ts {
		if ts[i].Label == "" {
			continue
		}
		v := ts[i].Value
		if math.Abs(v) < 1e-12*math.Max(1, math.Abs(max-min)) {
			v = 0
		}
		ts[i].Label = strconv.FormatFloat(v, 'f', dec, 64)
	}
	return ts
}
