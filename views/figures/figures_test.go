package figures

import (
	"bytes"
	"flag"
	"fmt"
	"math"
	"os"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"

	"gonum.org/v1/plot"
	"gonum.org/v1/plot/vg"
)

// update rewrites the golden files: go test ./views/figures -update
var update = flag.Bool("update", false, "rewrite the golden SVG files")

// golden compares a figure's SVG with testdata/NAME.svg. SVG (not PNG) is
// compared because PNG bytes differ across CPUs.
func golden(t *testing.T, name string, p *plot.Plot, w, h vg.Length) {
	t.Helper()
	var buf bytes.Buffer
	if err := Write(&buf, p, w, h, "svg"); err != nil {
		t.Fatal(err)
	}
	path := filepath.Join("testdata", name+".svg")
	if *update {
		if err := os.WriteFile(path, buf.Bytes(), 0o644); err != nil {
			t.Fatal(err)
		}
		return
	}
	want, err := os.ReadFile(path)
	if err != nil {
		t.Fatalf("%v (run go test ./views/figures -update to create it)", err)
	}
	if !bytes.Equal(buf.Bytes(), want) {
		t.Errorf("%s differs from its golden file; inspect and run with -update if the change is intended", path)
	}
}

func TestIntervalChartGolden(t *testing.T) {
	items := []Interval{
		{Label: "Claude Opus 4.7", Group: "baseline", Value: 49.9, Lo: 46.2, Hi: 54.5},
		{Label: "Claude Haiku 4.5", Group: "baseline", Value: 44.2, Lo: 41.3, Hi: 48.3},
		{Label: "ref-pairwise cal 4/8 e3", Group: "reference_pairwise", Value: 48.7, Lo: 45.0, Hi: 52.1},
		{Label: "no data", Group: "baseline", Value: math.NaN(), Lo: math.NaN(), Hi: math.NaN()},
		{Label: "one audit", Group: "intragroup_pairwise", Value: 30, Lo: math.NaN(), Hi: math.NaN()},
	}
	p, err := IntervalChart("Composite by auditor (95% CI)", "Composite (0–100)", items)
	if err != nil {
		t.Fatal(err)
	}
	golden(t, "interval_chart", p, 2*ColumnWidth, IntervalChartHeight(items))
}

func TestLinesGolden(t *testing.T) {
	series := []Series{
		{Name: "train", Group: "train", Points: []Point{{X: 100, Value: 40, Lo: 35, Hi: 45}, {X: 200, Value: 52, Lo: 47, Hi: 57}, {X: 300, Value: 58, Lo: 53, Hi: 63}}},
		{Name: "heldout", Group: "heldout", Points: []Point{{X: 100, Value: 38, Lo: 30, Hi: 46}, {X: 200, Value: 41, Lo: 33, Hi: 49}, {X: 300, Value: math.NaN(), Lo: math.NaN(), Hi: math.NaN()}}},
	}
	p, err := Lines("RWR over training", "step", "RWR (%)", series)
	if err != nil {
		t.Fatal(err)
	}
	golden(t, "lines", p, ColumnWidth, ColumnWidth*0.7)
}

func TestScatterGolden(t *testing.T) {
	pts := []Point{{X: 10, Value: 12}, {X: 20, Value: 18}, {X: 30, Value: 33}, {X: math.NaN(), Value: 5}}
	p, err := Scatter("Realism: crux prediction", "predicted", "observed", pts, true)
	if err != nil {
		t.Fatal(err)
	}
	golden(t, "scatter", p, ColumnWidth, ColumnWidth)
}

func TestGraphGolden(t *testing.T) {
	labels := []string{"A", "B", "C", "D"}
	edges := [][2]int{{0, 1}, {1, 2}, {2, 0}, {3, 0}}
	hot := []bool{true, true, true, false}
	hotEdges := map[[2]int]bool{{0, 1}: true, {1, 2}: true, {2, 0}: true}
	golden(t, "graph", Graph("Majority preferences", labels, edges, hot, hotEdges), ColumnWidth*1.5, ColumnWidth*1.3)
}

func TestWriteFormats(t *testing.T) {
	p, err := Scatter("x", "a", "b", []Point{{X: 1, Value: 2}}, false)
	if err != nil {
		t.Fatal(err)
	}
	magic := map[string]string{"png": "\x89PNG", "pdf": "%PDF", "svg": "<?xml"}
	for f, m := range magic {
		var buf bytes.Buffer
		if err := Write(&buf, p, ColumnWidth, ColumnWidth, f); err != nil {
			t.Fatal(err)
		}
		if !bytes.HasPrefix(buf.Bytes(), []byte(m)) {
			t.Errorf("%s output starts %q", f, buf.Bytes()[:8])
		}
	}
	if err := Write(&bytes.Buffer{}, p, ColumnWidth, ColumnWidth, "gif"); err == nil {
		t.Error("gif: want an error")
	}
}

// TestMinTextSize: no text of any figure kind (their golden SVGs, which
// the golden tests hold equal to what the code draws) is smaller than the
// house style's 8 pt (docs/FIGURES.md).
func TestMinTextSize(t *testing.T) {
	files, err := filepath.Glob(filepath.Join("testdata", "*.svg"))
	if err != nil || len(files) < 8 {
		t.Fatalf("%d golden SVGs: %v", len(files), err)
	}
	re := regexp.MustCompile(`font-size:([0-9.]+)px`)
	for _, f := range files {
		b, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		sizes := re.FindAllSubmatch(b, -1)
		if len(sizes) == 0 {
			t.Errorf("%s: no text sizes found", f)
		}
		for _, m := range sizes {
			if v, _ := strconv.ParseFloat(string(m[1]), 64); v < float64(textSize)-1e-9 {
				t.Errorf("%s: text of %s pt, smaller than %v", f, m[1], float64(textSize))
			}
		}
	}
}

// TestHoverTitles: an SVG gives each mark a titled, transparent shape on
// top (a row of a bar chart: its label, value and interval), escaped as
// XML; PNG and PDF carry none, and a scatter of more points than maxHover
// gets no titles at all.
func TestHoverTitles(t *testing.T) {
	items := []Interval{{Label: "Claude Opus 4.7", Value: 49.9, Lo: 46.2, Hi: 54.5}, {Label: `<b>"x" & y</b>`, Value: 30, Lo: math.NaN(), Hi: math.NaN()}}
	p, err := IntervalChart("t", "x", items)
	if err != nil {
		t.Fatal(err)
	}
	var svg bytes.Buffer
	if err := Write(&svg, p, 300, 100, "svg"); err != nil {
		t.Fatal(err)
	}
	s := svg.String()
	for _, want := range []string{`<g class="hover" fill="#000" fill-opacity="0"`, "<title>Claude Opus 4.7: 49.9 [46.2, 54.5]</title>", "<title>&lt;b&gt;&#34;x&#34; &amp; y&lt;/b&gt;: 30</title>"} {
		if !strings.Contains(s, want) {
			t.Errorf("the SVG lacks %s", want)
		}
	}
	if strings.Index(s, `<g class="hover"`) > strings.LastIndex(s, "</g>") || !strings.HasSuffix(strings.TrimSpace(s), "</svg>") {
		t.Error("the hover group is not inside the drawing")
	}
	for _, format := range []string{"png", "pdf"} {
		var b bytes.Buffer
		if err := Write(&b, p, 300, 100, format); err != nil {
			t.Fatal(err)
		}
		if bytes.Contains(b.Bytes(), []byte("Claude Opus 4.7: 49.9")) {
			t.Errorf("the %s carries a hover title", format)
		}
	}
	many := make([]float64, maxHover+1)
	for i := range many {
		many[i] = float64(i + 1)
	}
	p, err = PairedLengths("t", "x", "y", many, many)
	if err != nil {
		t.Fatal(err)
	}
	svg.Reset()
	if err := Write(&svg, p, 300, 300, "svg"); err != nil {
		t.Fatal(err)
	}
	if n := strings.Count(svg.String(), "<title>"); n != 0 {
		t.Errorf("%d titles on %d points, want none", n, len(many))
	}
}

// TestIntervalChartRoom: a chart of few rows in several groups (its legend
// under it) still gives each row its room: a scorer chart of two rows and a
// legend once had them drawn on top of each other.
func TestIntervalChartRoom(t *testing.T) {
	for n := 1; n <= 4; n++ {
		var items []Interval
		for i := range n {
			items = append(items, Interval{Label: fmt.Sprintf("row%d", i), Group: []string{"recomputed", "reported"}[i%2], Value: 0.5, Lo: 0.4, Hi: 0.6})
		}
		p, err := IntervalChart("Scorer metrics", "metric value", items)
		if err != nil {
			t.Fatal(err)
		}
		var b bytes.Buffer
		if err := Write(&b, p, 2*ColumnWidth, IntervalChartHeight(items), "svg"); err != nil {
			t.Fatal(err)
		}
		var ys []float64
		for i := range n {
			m := regexp.MustCompile(`(?s)<text x="[^"]*" y="([^"]*)"[^>]*>row` + strconv.Itoa(i) + `</text>`).FindStringSubmatch(b.String())
			if m == nil {
				t.Fatalf("%d rows: row%d has no label", n, i)
			}
			y, _ := strconv.ParseFloat(m[1], 64)
			ys = append(ys, y)
		}
		for i := 1; i < n; i++ {
			if d := math.Abs(ys[i] - ys[i-1]); d < 8 {
				t.Errorf("%d rows: rows %d and %d are %.1f pt apart, want at least 8", n, i-1, i, d)
			}
		}
	}
}

// TestAxesSpanWhiskers: every interval chart's axis spans every value and
// whisker, with room for the cap at the end.
func TestAxesSpanWhiskers(t *testing.T) {
	items := []Interval{{Label: "a", Value: 0.7, Lo: 0.55, Hi: 0.98}, {Label: "b", Value: -0.2, Lo: -0.61, Hi: 0.1}, {Label: "c", Value: 0.3, Lo: math.NaN(), Hi: math.NaN()}}
	charts := map[string]func(string, string, []Interval) (*plot.Plot, error){"IntervalChart": IntervalChart, "ForestPlot": ForestPlot, "DotWhisker": DotWhisker}
	for name, chart := range charts {
		p, err := chart("t", "x", items)
		if err != nil {
			t.Fatal(err)
		}
		if p.X.Min >= -0.61 || p.X.Max <= 0.98 {
			t.Errorf("%s: axis [%v, %v] does not leave room round the whiskers [-0.61, 0.98]", name, p.X.Min, p.X.Max)
		}
	}
}

// badCoord is a NaN or infinite number in an SVG attribute or path.
var badCoord = regexp.MustCompile(`[ ,"(MLCZ]([+-]?Inf|NaN)\b`)

// TestLongRowLabels: rows labelled with 190 characters still draw their
// data (the labels took every point of width, and the figure came out
// blank, with NaN and +Inf coordinates): each label is cut with an
// ellipsis, its hover title keeps it whole, and every format is written.
func TestLongRowLabels(t *testing.T) {
	long := func(i int) string {
		return fmt.Sprintf("auditor %d ", i) + strings.Repeat("with a very long descriptive name ", 6)
	}
	items := []Interval{
		{Label: long(1), Group: "baseline", Value: 49.9, Lo: 46.2, Hi: 54.5},
		{Label: long(2), Group: "baseline", Value: 44.2, Lo: 41.3, Hi: 48.3},
	}
	if len(items[0].Label) < 190 {
		t.Fatalf("label of %d characters", len(items[0].Label))
	}
	charts := map[string]func() (*plot.Plot, error){
		"interval": func() (*plot.Plot, error) { return IntervalChart("t", "x", items) },
		"forest":   func() (*plot.Plot, error) { return ForestPlot("t", "x", items) },
		"dots":     func() (*plot.Plot, error) { return DotWhisker("t", "x", items) },
	}
	for name, chart := range charts {
		p, err := chart()
		if err != nil {
			t.Fatal(err)
		}
		var svg bytes.Buffer
		if err := Write(&svg, p, 2*ColumnWidth, IntervalChartHeight(items), "svg"); err != nil {
			t.Fatal(err)
		}
		s := svg.String()
		// (The embedded font's base64 may spell NaN: coordinates only.)
		if badCoord.MatchString(s) {
			t.Errorf("%s: the SVG has NaN or Inf coordinates: %s", name, badCoord.FindString(s))
		}
		if !strings.Contains(s, "…") || !strings.Contains(s, strings.TrimSpace(long(1))) {
			t.Errorf("%s: the labels are not cut with an ellipsis, or the hover title lacks the whole label", name)
		}
		for _, format := range []string{"png", "pdf"} {
			var b bytes.Buffer
			if err := Write(&b, p, 2*ColumnWidth, IntervalChartHeight(items), format); err != nil || b.Len() == 0 {
				t.Errorf("%s as %s: %v", name, format, err)
			}
		}
	}
}
