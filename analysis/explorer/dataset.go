package explorer

import (
	"fmt"
	"strings"

	"github.com/auditscope/auditscope/analysis"
)

// ModelPrefix starts the key of a model-identity annotator: "model:M".
const ModelPrefix = "model:"

// Matrix is a dataset's votes and the comparison facts the explorer needs,
// indexed by comparison position 0..N-1.
type Matrix struct {
	N int
	// Votes[row][i] is the vote of the annotator on vote row row on
	// comparison i.
	Votes [][]analysis.Vote
	// Models lists the response models, sorted; ModelA[i] and ModelB[i]
	// index it, or are -1 when the response names no model.
	Models         []string
	ModelA, ModelB []int32
	// LenA and LenB are the response lengths in characters.
	LenA, LenB []int32
}

// The Row of an annotator that has no vote row of its own.
const (
	RowModel   = -1 // a model-identity annotator: its votes are derived (Dataset.VotesOf)
	RowForeign = -2 // listed from another dataset: look it up by key in each column's dataset
)

// Annotator is an annotator the explorer can compare: one of the dataset's,
// or a model-identity annotator "model:M" that prefers model M's response.
type Annotator struct {
	Key, Name, Kind, Description string
	Row                          int   // vote row of a dataset annotator; RowModel or RowForeign otherwise
	Model                        int32 // the model of a model annotator
}

// IsModel reports whether a has no vote row of the dataset's own.
func (a Annotator) IsModel() bool { return a.Row < 0 }

// Foreign returns a marked as listed from another dataset.
func (a Annotator) Foreign() Annotator {
	a.Row, a.Model = RowForeign, RowForeign
	return a
}

// IsForeign reports whether a was listed from another dataset.
func (a Annotator) IsForeign() bool { return a.Row == RowForeign }

// Dataset is a vote matrix with its annotators, which the explorer looks up
// by key.
type Dataset struct {
	Matrix
	annotators []Annotator // the dataset's, display order
	byKey      map[string]int
	modelIndex map[string]int32
}

// NewDataset indexes a matrix and its annotators (in display order, each
// with its vote row). It fails when an annotator's row is not in m.Votes.
func NewDataset(m Matrix, annotators []Annotator) (*Dataset, error) {
	d := &Dataset{Matrix: m, annotators: annotators, byKey: make(map[string]int, len(annotators)),
		modelIndex: make(map[string]int32, len(m.Models))}
	for i, a := range annotators {
		if a.Row < 0 || a.Row >= len(m.Votes) {
			return nil, fmt.Errorf("explorer: annotator %s has no vote row", a.Key)
		}
		d.byKey[a.Key] = i
	}
	for i, name := range m.Models {
		d.modelIndex[name] = int32(i)
	}
	return d, nil
}

// Annotators are the dataset's annotators in display order (no model
// annotators). Callers must not modify the slice.
func (d *Dataset) Annotators() []Annotator { return d.annotators }

// ModelIndex returns a response model's position in Models.
func (d *Dataset) ModelIndex(name string) (int32, bool) {
	i, ok := d.modelIndex[name]
	return i, ok
}

// IsModel reports whether name is a response model of the dataset.
func (d *Dataset) IsModel(name string) bool {
	_, ok := d.modelIndex[name]
	return ok
}

// ModelAnnotator is the model-identity annotator of model m.
func (d *Dataset) ModelAnnotator(m int32) Annotator {
	name := d.Models[m]
	return Annotator{Key: ModelPrefix + name, Name: name, Kind: "model", Row: RowModel, Model: m,
		Description: "Prefers the response written by " + name + " when the other response is from another (reference) model"}
}

// Lookup finds an annotator by key; dataset annotators win over model
// annotators of the same spelling.
func (d *Dataset) Lookup(key string) (Annotator, bool) {
	if i, ok := d.byKey[key]; ok {
		return d.annotators[i], true
	}
	if name, ok := strings.CutPrefix(key, ModelPrefix); ok {
		if m, ok := d.modelIndex[name]; ok {
			return d.ModelAnnotator(m), true
		}
	}
	return Annotator{}, false
}

// Default is the reference when none is chosen: the annotator keyed
// preferred (the file's default annotator) when there is one, else the first
// human or unknown-typed annotator, else the first annotator, else the first
// model annotator. ok is false when the dataset has none of these.
func (d *Dataset) Default(preferred string) (Annotator, bool) {
	if preferred != "" {
		if i, ok := d.byKey[preferred]; ok {
			return d.annotators[i], true
		}
	}
	for _, a := range d.annotators {
		if a.Kind == "human" || a.Kind == "unknown" {
			return a, true
		}
	}
	if len(d.annotators) > 0 {
		return d.annotators[0], true
	}
	if len(d.Models) > 0 {
		return d.ModelAnnotator(0), true
	}
	return Annotator{}, false
}

// FeedbackRows lists the annotators compared with the reference keyed ref:
// every dataset annotator but ref, then a model annotator per response
// model but ref. An empty ref leaves none out.
func (d *Dataset) FeedbackRows(ref string) []Annotator {
	var out []Annotator
	for _, a := range d.annotators {
		if a.Key != ref {
			out = append(out, a)
		}
	}
	for m := range d.Models {
		if a := d.ModelAnnotator(int32(m)); a.Key != ref {
			out = append(out, a)
		}
	}
	return out
}

// ModelAnnotators lists a model annotator per response model.
func (d *Dataset) ModelAnnotators() []Annotator {
	out := make([]Annotator, len(d.Models))
	for m := range d.Models {
		out[m] = d.ModelAnnotator(int32(m))
	}
	return out
}

// TraitRows lists the principle annotators (traits), or every dataset
// annotator when none is typed principle.
func (d *Dataset) TraitRows() []Annotator {
	var out []Annotator
	for _, a := range d.annotators {
		if a.Kind == "principle" {
			out = append(out, a)
		}
	}
	if len(out) == 0 {
		out = append(out, d.annotators...)
	}
	return out
}

// RefMask marks the reference models among the named ones for VotesOf:
// mask[m] is true when model m is named. Names that are not models of the
// dataset are skipped and left out of used. No names give a nil mask (every
// model is a reference); names of which none is a model here give a mask
// with no reference model, so model annotators vote nowhere.
func (d *Dataset) RefMask(names []string) (mask []bool, used []string) {
	if len(names) == 0 {
		return nil, nil
	}
	mask = make([]bool, len(d.Models))
	for _, name := range names {
		if i, ok := d.modelIndex[name]; ok {
			mask[i] = true
			used = append(used, name)
		}
	}
	return mask, used
}

// VotesOf returns an annotator's votes. A model annotator for model M votes
// text_a when response A is M's and response B is another model's (one
// marked in refs, when refs is not nil), text_b in the mirror case, and
// nothing otherwise: when a model is missing, or both responses are M's. A
// dataset annotator's votes are the matrix row itself: callers must not
// modify them.
func (d *Dataset) VotesOf(a Annotator, refs []bool) []analysis.Vote {
	if !a.IsModel() {
		return d.Matrix.Votes[a.Row]
	}
	out := make([]analysis.Vote, d.N)
	m := a.Model
	for i := range out {
		ma, mb := d.ModelA[i], d.ModelB[i]
		if ma < 0 || mb < 0 || ma == mb {
			continue
		}
		switch {
		case ma == m && (refs == nil || refs[mb]):
			out[i] = analysis.VoteA
		case mb == m && (refs == nil || refs[ma]):
			out[i] = analysis.VoteB
		}
	}
	return out
}
