package e2e

import (
	"bytes"
	"flag"
	"net/http"
	"os"
	"path/filepath"
	"testing"
)

var writeDocFigures = flag.Bool("doc-figures", false, "write docs/figures/*.png from the built-in demo (task docs-figures)")

// TestDocFigures draws the three figures docs/FIGURES.md shows, from the
// built-in demo, and checks that the committed files are what the figures
// code draws now (PNGs are byte-reproducible): a change to the figures
// regenerates the page with `task docs-figures`.
func TestDocFigures(t *testing.T) {
	s := mustDemo(t)
	for name, u := range map[string]string{
		"scores.png":   "/experiments/demo/figures/scores.png",
		"strength.png": "/pairs/synthetic-personality-demo/figures/strength.png",
		"cycles.png":   "/experiments/demo/figures/cycles.png?kind=intragroup&max=4",
	} {
		r := mustGet(t, s, u, http.StatusOK, "image/png")
		p := filepath.Join("..", "..", "docs", "figures", name)
		if *writeDocFigures {
			if err := os.WriteFile(p, []byte(r.Body), 0o644); err != nil {
				t.Fatal(err)
			}
			continue
		}
		if b, err := os.ReadFile(p); err != nil || !bytes.Equal(b, []byte(r.Body)) {
			t.Errorf("%s is not what the figures draw now (%v): run task docs-figures and look at it", p, err)
		}
	}
}
