package figures

import (
	"fmt"
	"image/color"
	"math"
	"strconv"
	"strings"

	"gonum.org/v1/plot"
	"gonum.org/v1/plot/plotter"
	"gonum.org/v1/plot/vg"
	"gonum.org/v1/plot/vg/draw"
)

// The AnnotatedPairs figures: a dot-and-whisker chart of estimates, a heat
// map on a diverging colour scale (heatmap.go), and a paired-lengths
// scatter.

// The diverging scale's ends and middle, the same as the explorer table's
// shading (static/pairs.css): red below the centre, blue above.
var (
	divergingLow  = color.RGBA{R: 0xc8, G: 0x55, B: 0x3d, A: 0xff}
	divergingMid  = color.RGBA{R: 0xf6, G: 0xf6, B: 0xf4, A: 0xff}
	divergingHigh = color.RGBA{R: 0x2f, G: 0x5f, B: 0xb3, A: 0xff}
)

// Annotator kinds get fixed colours, so a figure coloured by kind reads the
// same whatever the order of its rows.
var kindColors = map[string]color.Color{
	"principle": okiBlue,
	"model":     okiVerm,
	"human":     okiGreen,
	"unknown":   okiGrey,
}

// seriesColors assigns colours to groups: the Palette's or an annotator
// kind's when the group has one, else the next colour of the cycle in order
// of first appearance.
type seriesColors struct {
	assigned map[string]color.Color
	next     int
}

func (s *seriesColors) of(group string) color.Color {
	if c, ok := s.assigned[group]; ok {
		return c
	}
	c, ok := Palette[group]
	if !ok {
		c, ok = kindColors[group]
	}
	if !ok {
		c = cycle[s.next%len(cycle)]
		s.next++
	}
	if s.assigned == nil {
		s.assigned = map[string]color.Color{}
	}
	s.assigned[group] = c
	return c
}

// Dot-and-whisker geometry, shared by the charts and their height helper.
const (
	dotRowPitch    = 10  // points per row with one series
	dotSeriesPitch = 3.5 // extra points per row for each further series
	dotLegendLine  = 9   // points per legend entry
	dotOverhead    = 62  // title, axis, tick labels and padding, in points
)

func dotPitch(series int) float64 {
	return dotRowPitch + dotSeriesPitch*float64(max(series, 1)-1)
}

// dotLegendRows is how many rows of space the legend of the given number of
// entries takes at the top of the chart (none for a single entry).
func dotLegendRows(entries, series int) int {
	if entries <= 1 {
		return 0
	}
	return int(math.Ceil(float64(entries*dotLegendLine+4) / dotPitch(series)))
}

// DotWhiskerHeight is a height that fits rows labels of the given number of
// series each, and a legend of legend entries.
func DotWhiskerHeight(rows, series, legend int) vg.Length {
	n := rows + dotLegendRows(legend, series)
	return vg.Points(float64(n)*dotPitch(series) + dotOverhead)
}

// DotWhisker draws one row per item, in the order given (first at the top):
// a dot at Value and a whisker from Lo to Hi (NaN bounds draw none; a NaN
// value draws nothing). Dots are coloured by Group, with a legend when there
// are several groups. A dashed line marks 0, which the axis always spans.
func DotWhisker(title, xLabel string, items []Interval) (*plot.Plot, error) {
	labels := make([]string, len(items))
	points := make([]Point, len(items))
	groups := make([]string, len(items))
	for i, it := range items {
		labels[i] = it.Label
		points[i] = Point{Value: it.Value, Lo: it.Lo, Hi: it.Hi}
		groups[i] = it.Group
	}
	return dotWhisker(title, xLabel, labels, []dotSeries{{points: points, groups: groups}})
}

// DotWhiskerSeries draws one row per label (first at the top) with one dot
// and whisker per series in each row, offset vertically within the row, and
// a legend of the series names. series[k].Points[i] is row i's estimate of
// series k (its X is ignored); a series' Group picks its colour.
func DotWhiskerSeries(title, xLabel string, labels []string, series []Series) (*plot.Plot, error) {
	ds := make([]dotSeries, len(series))
	for k, s := range series {
		if len(s.Points) != len(labels) {
			panic(fmt.Sprintf("figures: DotWhiskerSeries: series %q has %d points for %d labels", s.Name, len(s.Points), len(labels)))
		}
		group := s.Group
		if group == "" {
			// A key no palette holds, so the series takes the next colour
			// of the cycle whatever its name.
			group = fmt.Sprintf("\x00series %d", k)
		}
		groups := make([]string, len(labels))
		for i := range groups {
			groups[i] = group
		}
		ds[k] = dotSeries{name: s.Name, points: s.Points, groups: groups}
	}
	return dotWhisker(title, xLabel, labels, ds)
}

type dotSeries struct {
	name   string
	points []Point
	groups []string // per point: its colour group
}

func dotWhisker(title, xLabel string, labels []string, series []dotSeries) (*plot.Plot, error) {
	p := plot.New()
	styled(p, title, xLabel, "")
	n := len(labels)
	if n == 0 {
		return Empty(title, NothingMatches), nil
	}
	// Rows from the top: row i sits at y = n-1-i; series are offset within
	// the row, the first highest.
	names := make([]string, n)
	for i, l := range labels {
		names[n-1-i] = l
	}
	p.NominalY(fitRows(p.Y.Tick.Label, names)...)
	spread := 0.0
	if len(series) > 1 {
		spread = math.Min(0.7, dotSeriesPitch*float64(len(series)-1)/dotPitch(len(series))*1.1)
	}
	var colors seriesColors
	var legend []legendEntry
	seen := map[string]bool{}
	lo, hi := 0.0, 0.0 // the axis always spans 0
	for k, s := range series {
		off := 0.0
		if len(series) > 1 {
			off = spread/2 - spread*float64(k)/float64(len(series)-1)
		}
		// One scatter and one set of whiskers per colour group.
		byGroup := map[string]*struct {
			xys  plotter.XYs
			errs errorPoints
		}{}
		var order []string
		for i, pt := range s.points {
			if math.IsNaN(pt.Value) {
				continue
			}
			g := s.groups[i]
			b, ok := byGroup[g]
			if !ok {
				b = &struct {
					xys  plotter.XYs
					errs errorPoints
				}{}
				byGroup[g] = b
				order = append(order, g)
			}
			y := float64(n-1-i) + off
			b.xys = append(b.xys, plotter.XY{X: pt.Value, Y: y})
			lo, hi = math.Min(lo, pt.Value), math.Max(hi, pt.Value)
			if !math.IsNaN(pt.Lo) && !math.IsNaN(pt.Hi) {
				b.errs = append(b.errs, errorPoint{x: pt.Value, y: y, lo: pt.Value - pt.Lo, hi: pt.Hi - pt.Value})
				lo, hi = math.Min(lo, pt.Lo), math.Max(hi, pt.Hi)
			}
		}
		for _, g := range order {
			b := byGroup[g]
			col := colors.of(g)
			if len(b.errs) > 0 {
				eb, err := plotter.NewXErrorBars(b.errs)
				if err != nil {
					return nil, fmt.Errorf("figures: whiskers: %w", err)
				}
				eb.Color = col
				eb.LineStyle.Width = vg.Points(0.8)
				eb.CapWidth = vg.Points(2.5)
				p.Add(eb)
			}
			sc, err := plotter.NewScatter(b.xys)
			if err != nil {
				return nil, fmt.Errorf("figures: dots: %w", err)
			}
			sc.Color = col
			sc.Shape = draw.CircleGlyph{}
			sc.Radius = vg.Points(2)
			p.Add(sc)
			name := s.name
			if name == "" {
				name = g // a single series coloured by group: the group names the colour
			}
			if name != "" && !seen[name] {
				seen[name] = true
				legend = append(legend, legendEntry{name, sc})
			}
		}
	}
	p.Add(&zeroLine{})
	p.Add(dotHover(labels, series))
	pad := math.Max((hi-lo)*0.04, 0.02)
	p.X.Min, p.X.Max = lo-pad, hi+pad
	p.Y.Min, p.Y.Max = -0.6, float64(n)-0.4
	addDotLegend(p, legend, len(series))
	return p, nil
}

// legendEntry is a legend's name and swatch.
type legendEntry struct {
	name  string
	thumb plot.Thumbnailer
}

// addDotLegend puts a legend of more than one entry above a dot chart's
// rows, with the room it takes.
func addDotLegend(p *plot.Plot, legend []legendEntry, series int) {
	if len(legend) <= 1 {
		return
	}
	p.Y.Max += float64(dotLegendRows(len(legend), series))
	p.Legend.Top = true
	p.Legend.Padding = vg.Points(1)
	for _, e := range legend {
		p.Legend.Add(e.name, e.thumb)
	}
}

// dotHover names each row of a dot-and-whisker chart on hover: its label
// and each series' estimate.
func dotHover(labels []string, series []dotSeries) hoverRows {
	hover := hoverRows{titles: make([]string, len(labels))}
	for i, l := range labels {
		var parts []string
		for _, s := range series {
			pt := s.points[i]
			if len(series) == 1 {
				parts = append(parts, hoverEstimate("", pt.Value, pt.Lo, pt.Hi))
			} else {
				parts = append(parts, hoverEstimate(s.name, pt.Value, pt.Lo, pt.Hi))
			}
		}
		hover.titles[i] = l + ": " + strings.Join(parts, "; ")
	}
	return hover
}

// zeroLine is a dashed vertical line at x = 0 across the data area.
type zeroLine struct{}

// Plot implements plot.Plotter.
func (zeroLine) Plot(c draw.Canvas, plt *plot.Plot) {
	if plt.X.Min > 0 || plt.X.Max < 0 {
		return
	}
	trX, _ := plt.Transforms(&c)
	x := trX(0)
	ls := draw.LineStyle{Color: color.Gray{Y: 0x80}, Width: vg.Points(0.6), Dashes: []vg.Length{vg.Points(2), vg.Points(2)}}
	c.StrokeLine2(ls, x, c.Min.Y, x, c.Max.Y)
}

// PairedLengths draws one translucent dot per pair (x[i], y[i]) on log–log
// axes that share one range, with the dashed y = x line: dots above it are
// pairs whose y is larger. Values below 1 are drawn at 1.
func PairedLengths(title, xLabel, yLabel string, x, y []float64) (*plot.Plot, error) {
	if len(x) != len(y) {
		panic(fmt.Sprintf("figures: PairedLengths: %d x values for %d y values", len(x), len(y)))
	}
	p := plot.New()
	styled(p, title, xLabel, yLabel)
	if len(x) == 0 {
		return p, nil
	}
	// The axes are linear in log10 of the values, with ticks labelled in the
	// values: gonum's LogScale misplaces centred axis labels.
	xys := make(plotter.XYs, len(x))
	lo, hi := math.Inf(1), math.Inf(-1)
	for i := range x {
		xys[i] = plotter.XY{X: math.Log10(math.Max(x[i], 1)), Y: math.Log10(math.Max(y[i], 1))}
		lo = math.Min(lo, math.Min(xys[i].X, xys[i].Y))
		hi = math.Max(hi, math.Max(xys[i].X, xys[i].Y))
	}
	lo, hi = lo-0.06, hi+0.06
	sc, err := plotter.NewScatter(xys)
	if err != nil {
		return nil, fmt.Errorf("figures: paired lengths: %w", err)
	}
	sc.Color = color.NRGBA{R: divergingHigh.R, G: divergingHigh.G, B: divergingHigh.B, A: 0x50}
	sc.Shape = draw.CircleGlyph{}
	sc.Radius = vg.Points(1.6)
	p.Add(sc)
	hover := &hoverPoints{}
	for i, xy := range xys {
		hover.add(xy.X, xy.Y, xLabel+" "+hoverNum(x[i])+", "+yLabel+" "+hoverNum(y[i]))
	}
	p.Add(hover)
	d, err := plotter.NewLine(plotter.XYs{{X: lo, Y: lo}, {X: hi, Y: hi}})
	if err != nil {
		return nil, fmt.Errorf("figures: paired lengths: %w", err)
	}
	d.Dashes = []vg.Length{vg.Points(3), vg.Points(3)}
	d.Color = divergingLow
	d.Width = vg.Points(0.8)
	p.Add(d)
	p.Legend.Top, p.Legend.Left = true, true
	p.Legend.Add("y = x (above: y is larger)", d)
	p.X.Tick.Marker, p.Y.Tick.Marker = log10Ticks{}, log10Ticks{}
	p.X.Min, p.X.Max, p.Y.Min, p.Y.Max = lo, hi, lo, hi
	return p, nil
}

// log10Ticks marks an axis of log10 values at the integer multiples of the
// powers of ten, labelling 1, 2 and 5 times each power with its value.
type log10Ticks struct{}

// Ticks implements plot.Ticker.
func (log10Ticks) Ticks(lo, hi float64) []plot.Tick {
	var out []plot.Tick
	for e := math.Floor(lo); e <= hi; e++ {
		base := math.Pow(10, e)
		for m := 1; m <= 9; m++ {
			v := math.Log10(float64(m) * base)
			if v < lo || v > hi {
				continue
			}
			t := plot.Tick{Value: v}
			if m == 1 || m == 2 || m == 5 {
				t.Label = strconv.FormatFloat(float64(m)*base, 'f', -1, 64)
			}
			out = append(out, t)
		}
	}
	return out
}
