package annotatedpairs_test

import (
	"bytes"
	"testing"

	"github.com/auditscope/auditscope/data/annotatedpairs"
	"github.com/auditscope/auditscope/data/demo"
)

// TestAPFastGenerated checks that the generators' files (the benchmark's
// and the demo's) take the fast decoder whole, and that it reads them as
// the full decoder does.
func TestAPFastGenerated(t *testing.T) {
	files := map[string]func(*bytes.Buffer) error{
		"scale": func(b *bytes.Buffer) error {
			return demo.ScaleAnnotatedPairs(b, demo.ScaleOptions{Comparisons: 2000, Traits: 40, Seed: 5})
		},
		"scale-no-texts": func(b *bytes.Buffer) error {
			return demo.ScaleAnnotatedPairs(b, demo.ScaleOptions{Comparisons: 500, Traits: 8, Seed: 2, NoTexts: true})
		},
		"demo": func(b *bytes.Buffer) error { return demo.AnnotatedPairs(b, demo.Options{}) },
	}
	for name, write := range files {
		var b bytes.Buffer
		if err := write(&b); err != nil {
			t.Fatal(err)
		}
		raws, v2, haveMeta := annotatedpairs.ComparisonsOf(t, b.Bytes())
		if len(raws) == 0 {
			t.Fatalf("%s: no comparisons", name)
		}
		f := annotatedpairs.NewFastDecoder()
		for i, raw := range raws {
			fast, err := annotatedpairs.FastAgrees(f, raw, v2, haveMeta)
			if err != nil {
				t.Fatalf("%s comparisons[%d]: %v", name, i, err)
			}
			if !fast {
				t.Fatalf("%s comparisons[%d] took the slow way: %s", name, i, raw)
			}
		}
	}
}
