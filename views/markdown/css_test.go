package markdown

import (
	"flag"
	"os"
	"path/filepath"
	"testing"
)

var writeCSS = flag.Bool("write-css", false, "write static/chroma.css from CSS()")

// TestChromaCSS: static/chroma.css is the stylesheet of Highlight's
// classes as chroma writes it now (go test ./views/markdown -run
// TestChromaCSS -args -write-css rewrites it).
func TestChromaCSS(t *testing.T) {
	p := filepath.Join("..", "..", "static", "chroma.css")
	if *writeCSS {
		if err := os.WriteFile(p, []byte("/* Generated from views/markdown.CSS (chroma's github style): go test ./views/markdown -run TestChromaCSS -args -write-css */\n"+CSS()), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	b, err := os.ReadFile(p)
	if err != nil {
		t.Fatal(err)
	}
	if got, want := string(b), "/* Generated from views/markdown.CSS (chroma's github style): go test ./views/markdown -run TestChromaCSS -args -write-css */\n"+CSS(); got != want {
		t.Error("static/chroma.css is not what chroma writes now: rewrite it with -write-css")
	}
}
