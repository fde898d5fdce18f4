package figures

import (
	"bytes"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"gonum.org/v1/plot"
)

// TestPDFText draws a figure whose labels hold non-ASCII text and reads the
// PDF back with pdftotext (poppler-utils; CI installs it): the text must
// come out as written, with its font embedded, and the same figure must
// give the same bytes in every format.
func TestPDFText(t *testing.T) {
	title := "Composite (0–100) · epoch 1"
	label := "agree → disagree; κ ≥ 0.5, naïve Zürich"
	p, err := IntervalChart(title, label, []Interval{{Label: "Claude Opus 4.7 — ré-run", Value: 0.5, Lo: 0.25, Hi: 0.75, Group: "a"}})
	if err != nil {
		t.Fatal(err)
	}
	write := func(format string) []byte {
		var buf bytes.Buffer
		if err := Write(&buf, p, ColumnWidth, ColumnWidth, format); err != nil {
			t.Fatal(err)
		}
		return buf.Bytes()
	}
	pdf := write("pdf")
	for _, f := range []string{"pdf", "svg", "png"} {
		a, b := write(f), write(f)
		if !bytes.Equal(a, b) {
			t.Errorf("%s: the same figure gave different bytes", f)
		}
	}
	if !bytes.Contains(pdf, []byte("/FontFile2")) {
		t.Error("the PDF embeds no TrueType font")
	}
	bin, err := exec.LookPath("pdftotext")
	if err != nil {
		if os.Getenv("CI") != "" {
			t.Fatal("CI needs pdftotext (apt-get install poppler-utils)")
		}
		t.Skip("pdftotext not installed")
	}
	path := filepath.Join(t.TempDir(), "f.pdf")
	if err := os.WriteFile(path, pdf, 0o644); err != nil {
		t.Fatal(err)
	}
	out, err := exec.Command(bin, "-raw", path, "-").Output()
	if err != nil {
		t.Fatal(err)
	}
	got := string(out)
	for _, want := range []string{title, label, "Claude Opus 4.7 — ré-run"} {
		if !strings.Contains(got, want) {
			t.Errorf("pdftotext does not find %q in:\n%s", want, got)
		}
	}
	if strings.Contains(got, "â") || strings.Contains(got, "Â") {
		t.Errorf("mojibake in:\n%s", got)
	}
}

// TestEmptyFigures: every chart drawn from an empty selection writes in
// every format without failing, and the interval charts say that nothing
// matches.
func TestEmptyFigures(t *testing.T) {
	must := func(p *plot.Plot, err error) *plot.Plot {
		t.Helper()
		if err != nil {
			t.Fatal(err)
		}
		return p
	}
	figs := map[string]*plot.Plot{
		"interval":    must(IntervalChart("Scores", "value", nil)),
		"dot-whisker": must(DotWhisker("Strength", "strength", nil)),
		"dot-series":  must(DotWhiskerSeries("Strength", "strength", nil, nil)),
		"lines":       must(Lines("Curves", "step", "value", nil)),
		"scatter":     must(Scatter("Scatter", "x", "y", nil, true)),
		"graph":       Graph("Cycles", nil, nil, nil, nil),
		"heat map":    HeatMap("Wins", "share", nil, nil, nil, Diverging{}, 2),
		"paired":      must(PairedLengths("Lengths", "a", "b", nil, nil)),
	}
	for name, p := range figs {
		for _, f := range []string{"png", "svg", "pdf"} {
			var buf bytes.Buffer
			if err := Write(&buf, p, ColumnWidth, ColumnWidth, f); err != nil {
				t.Errorf("%s as %s: %v", name, f, err)
			}
			if name == "interval" && f == "svg" && !bytes.Contains(buf.Bytes(), []byte(NothingMatches)) {
				t.Errorf("the empty interval chart does not say %q", NothingMatches)
			}
		}
	}
}
