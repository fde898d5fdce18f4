package explorer

import (
	"slices"
	"testing"

	"github.com/auditscope/auditscope/analysis"
)

func keys(as []Annotator) []string {
	out := make([]string, len(as))
	for i, a := range as {
		out[i] = a.Key
	}
	return out
}

// TestModelVotes checks the model-identity annotators' votes on the hand
// matrix: model:M prefers M's response when the other one is another
// model's, and votes nowhere else (c5 is X against X, c6 has no model A).
func TestModelVotes(t *testing.T) {
	d := handDataset(t)
	for _, tt := range []struct {
		key   string
		names []string // reference models; nil: all
		want  []analysis.Vote
	}{
		{"model:X", nil, []analysis.Vote{va, vb, va, none, none, none, none}},
		{"model:Y", nil, []analysis.Vote{vb, va, none, vb, none, none, va}},
		{"model:Z", nil, []analysis.Vote{none, none, vb, va, none, none, vb}},
		// Against Y only, X's win over Z in c3 does not count.
		{"model:X", []string{"Y"}, []analysis.Vote{va, vb, none, none, none, none, none}},
		// Against itself only, a model votes nowhere.
		{"model:Y", []string{"Y"}, make([]analysis.Vote, 7)},
		// A dataset annotator's votes are its row, whatever the mask.
		{"p1", []string{"Y"}, []analysis.Vote{va, vb, vb, vb, va, tie, inv}},
	} {
		mask, _ := d.RefMask(tt.names)
		if got := d.VotesOf(mustLookup(t, d, tt.key), mask); !slices.Equal(got, tt.want) {
			t.Errorf("%s against %v: votes %v, want %v", tt.key, tt.names, got, tt.want)
		}
	}
}

func TestRefMask(t *testing.T) {
	d := handDataset(t)
	if mask, used := d.RefMask(nil); mask != nil || used != nil {
		t.Errorf("no names: mask %v, used %v; want nil, nil", mask, used)
	}
	mask, used := d.RefMask([]string{"Z", "W", "X"})
	if !slices.Equal(mask, []bool{true, false, true}) || !slices.Equal(used, []string{"Z", "X"}) {
		t.Errorf("Z, W, X: mask %v, used %v", mask, used)
	}
	// Names of which none is a model here: a mask with no reference model.
	if mask, used := d.RefMask([]string{"W"}); !slices.Equal(mask, []bool{false, false, false}) || used != nil {
		t.Errorf("W: mask %v, used %v", mask, used)
	}
}

func TestLookup(t *testing.T) {
	d := handDataset(t)
	h := mustLookup(t, d, "h")
	if h.Name != "Human" || h.Row != 0 || h.IsModel() {
		t.Errorf("h = %+v", h)
	}
	x := mustLookup(t, d, "model:X")
	if x.Name != "X" || x.Kind != "model" || x.Model != mX || !x.IsModel() || x.IsForeign() {
		t.Errorf("model:X = %+v", x)
	}
	for _, key := range []string{"model:W", "X", "nobody", ""} {
		if _, ok := d.Lookup(key); ok {
			t.Errorf("Lookup(%q) found an annotator", key)
		}
	}
	// A dataset annotator wins over a model annotator of the same key.
	anns := append(handAnnotators(), Annotator{Key: "model:X", Name: "impostor", Kind: "principle", Row: 3})
	d2, err := NewDataset(handMatrix(), anns)
	if err != nil {
		t.Fatal(err)
	}
	if a := mustLookup(t, d2, "model:X"); a.Name != "impostor" {
		t.Errorf("model:X = %+v, want the dataset annotator", a)
	}
	if f := h.Foreign(); !f.IsForeign() || f.Key != "h" {
		t.Errorf("Foreign() = %+v", f)
	}
	if _, err := NewDataset(handMatrix(), []Annotator{{Key: "x", Row: 4}}); err == nil {
		t.Error("an annotator without a vote row is accepted")
	}
}

func TestDefault(t *testing.T) {
	d := handDataset(t)
	for preferred, want := range map[string]string{"p2": "p2", "": "h", "nobody": "h", "model:X": "h"} {
		if a, ok := d.Default(preferred); !ok || a.Key != want {
			t.Errorf("Default(%q) = %s, %v; want %s", preferred, a.Key, ok, want)
		}
	}
	m := handMatrix()
	for _, tt := range []struct {
		anns []Annotator
		m    Matrix
		want string // "" for none
	}{
		// The first human or unknown-typed annotator.
		{[]Annotator{{Key: "p", Kind: "principle"}, {Key: "u", Kind: "unknown", Row: 1}}, m, "u"},
		// Else the first annotator.
		{[]Annotator{{Key: "p", Kind: "principle"}, {Key: "q", Kind: "principle", Row: 1}}, m, "p"},
		// Else the first model annotator.
		{nil, m, "model:X"},
		// Else none.
		{nil, Matrix{}, ""},
	} {
		d, err := NewDataset(tt.m, tt.anns)
		if err != nil {
			t.Fatal(err)
		}
		a, ok := d.Default("")
		if ok != (tt.want != "") || a.Key != tt.want {
			t.Errorf("%v with models %v: default %q, %v; want %q", keys(tt.anns), tt.m.Models, a.Key, ok, tt.want)
		}
	}
}

func TestRows(t *testing.T) {
	d := handDataset(t)
	for ref, want := range map[string][]string{
		"h":       {"p1", "p2", "g", "model:X", "model:Y", "model:Z"},
		"model:Y": {"h", "p1", "p2", "g", "model:X", "model:Z"},
		"":        {"h", "p1", "p2", "g", "model:X", "model:Y", "model:Z"},
	} {
		if got := keys(d.FeedbackRows(ref)); !slices.Equal(got, want) {
			t.Errorf("FeedbackRows(%q) = %v, want %v", ref, got, want)
		}
	}
	if got := keys(d.TraitRows()); !slices.Equal(got, []string{"p1", "p2"}) {
		t.Errorf("TraitRows = %v, want the principles p1 p2", got)
	}
	if got := keys(d.ModelAnnotators()); !slices.Equal(got, []string{"model:X", "model:Y", "model:Z"}) {
		t.Errorf("ModelAnnotators = %v", got)
	}
	// No principle: every dataset annotator is a trait.
	d2, err := NewDataset(handMatrix(), []Annotator{{Key: "h", Kind: "human"}, {Key: "g", Kind: "unknown", Row: 3}})
	if err != nil {
		t.Fatal(err)
	}
	if got := keys(d2.TraitRows()); !slices.Equal(got, []string{"h", "g"}) {
		t.Errorf("TraitRows without principles = %v, want h g", got)
	}
}
