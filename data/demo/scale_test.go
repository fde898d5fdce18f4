package demo

import (
	"bytes"
	"context"
	"encoding/json"
	"testing"

	"github.com/auditscope/auditscope/data"
)

func scaleBytes(t *testing.T, o ScaleOptions) []byte {
	t.Helper()
	var buf bytes.Buffer
	if err := ScaleAnnotatedPairs(&buf, o); err != nil {
		t.Fatal(err)
	}
	return buf.Bytes()
}

func TestScaleDeterministic(t *testing.T) {
	o := ScaleOptions{Comparisons: 300, Traits: 7, Seed: 5}
	a, b := scaleBytes(t, o), scaleBytes(t, o)
	if !bytes.Equal(a, b) {
		t.Fatal("the same options gave different bytes")
	}
	o.Seed = 6
	if bytes.Equal(a, scaleBytes(t, o)) {
		t.Fatal("another seed gave the same bytes")
	}
}

// TestScaleSize compares file sizes with the Python generator the
// benchmarks were first measured with: these sizes are what gen_ap.py wrote
// for the same N, K and seed (run once on 2026-11-30). The two draw from
// different generators, so the sizes agree in distribution, not to the byte.
func TestScaleSize(t *testing.T) {
	for _, c := range []struct {
		n, k    int
		seed    uint64
		pyBytes int
	}{
		{2000, 40, 5, 5614308},
		{2000, 10, 1, 4159487},
		{500, 0, 3, 948988},
	} {
		got := len(scaleBytes(t, ScaleOptions{Comparisons: c.n, Traits: c.k, Seed: c.seed}))
		if r := float64(got) / float64(c.pyBytes); r < 0.94 || r > 1.06 {
			t.Errorf("%d × %d seed %d: %d bytes, gen_ap.py wrote %d (ratio %.3f)", c.n, c.k, c.seed, got, c.pyBytes, r)
		}
	}
}

// TestScaleShape checks the file's shape and the proportions the generator
// promises: N comparisons, K principles plus the human annotator, about 10%
// human ties, principle votes that are tie or absent about 40% of the time
// (relevance is uniform on [0.2, 1]), two thirds of those ties, and
// responses of about 120 words.
func TestScaleShape(t *testing.T) {
	const n, k = 4000, 40
	b := scaleBytes(t, ScaleOptions{Comparisons: n, Traits: k, Seed: 11})
	var f struct {
		Metadata struct {
			Version          string
			DefaultAnnotator string `json:"default_annotator"`
		}
		Annotators  map[string]struct{ Type string }
		Comparisons []struct {
			ID          string
			Prompt      string
			ResponseA   struct{ Text, Model string } `json:"response_a"`
			ResponseB   struct{ Text, Model string } `json:"response_b"`
			Annotations map[string]struct{ Pref string }
			Metadata    map[string]string
		}
	}
	if err := json.Unmarshal(b, &f); err != nil {
		t.Fatal(err)
	}
	if len(f.Comparisons) != n || len(f.Annotators) != k+1 {
		t.Fatalf("%d comparisons, %d annotators; want %d, %d", len(f.Comparisons), len(f.Annotators), n, k+1)
	}
	h := f.Metadata.DefaultAnnotator
	if f.Metadata.Version != "2.0" {
		t.Errorf("version %q", f.Metadata.Version)
	}
	if f.Annotators[h].Type != "human" {
		t.Fatalf("default annotator %q is %+v", h, f.Annotators[h])
	}
	var humanTies, ties, absent, words int
	models := map[string]bool{}
	for _, c := range f.Comparisons {
		if c.ResponseA.Model == c.ResponseB.Model {
			t.Fatalf("%s: both responses from %s", c.ID, c.ResponseA.Model)
		}
		models[c.ResponseA.Model] = true
		if c.Annotations[h].Pref == "tie" {
			humanTies++
		}
		absent += k + 1 - len(c.Annotations)
		for id, a := range c.Annotations {
			if id != h && a.Pref == "tie" {
				ties++
			}
		}
		words += len(bytes.Fields([]byte(c.ResponseA.Text)))
	}
	within := func(what string, got, lo, hi float64) {
		if got < lo || got > hi {
			t.Errorf("%s = %.3f, want within [%.2f, %.2f]", what, got, lo, hi)
		}
	}
	within("human ties", float64(humanTies)/n, 0.08, 0.12)
	within("principle ties or absent", float64(ties+absent)/(n*k), 0.3, 0.5)
	within("ties among those", float64(ties)/float64(ties+absent), 0.6, 0.73)
	within("words per response", float64(words)/n, 110, 130)
	if len(models) != scaleModels {
		t.Errorf("%d response models, want %d", len(models), scaleModels)
	}

	// And it imports as an AnnotatedPairs file.
	ctx := context.Background()
	s, err := data.Open(ctx, data.Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	small := scaleBytes(t, ScaleOptions{Comparisons: 200, Traits: 5, Seed: 2})
	r, err := s.ImportAnnotatedPairsBytes(ctx, small, "scale.json", data.ImportOptions{Name: "scale"})
	if err != nil {
		t.Fatal(err)
	}
	if r.Counts["comparisons"] != 200 {
		t.Errorf("imported %v", r.Counts)
	}
}

func TestScaleRefusesNothingToWrite(t *testing.T) {
	if err := ScaleAnnotatedPairs(&bytes.Buffer{}, ScaleOptions{}); err == nil {
		t.Fatal("0 comparisons accepted")
	}
}
