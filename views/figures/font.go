package figures

import (
	"golang.org/x/image/font/gofont/goregular"
	"golang.org/x/image/font/opentype"
	"gonum.org/v1/plot"
	"gonum.org/v1/plot/font"
)

// houseFont is every figure's font: Go's own sans-serif (Go Regular, BSD
// licence, which allows embedding), in place of gonum/plot's default serif.
// Each format embeds it: PNG draws its glyphs, PDF embeds a subset
// (pdf.go), SVG carries it as a data: font (vgsvg.EmbedFonts), so a figure
// looks the same wherever it is opened, without the font installed.
var houseFont = font.Font{Typeface: "Go", Variant: "Sans"}

func init() {
	face, err := opentype.Parse(goregular.TTF)
	if err != nil {
		panic("figures: Go Regular: " + err.Error()) // a font compiled in: cannot fail
	}
	font.DefaultCache.Add(font.Collection{{Font: houseFont, Face: face}})
	// Read by plot.New for every title, axis and legend, and by the text
	// styles here: set before any figure is made.
	plot.DefaultFont = houseFont
}
