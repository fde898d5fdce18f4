package model

// The AnnotatedPairs types: a dataset's header, annotators, votes and
// comparisons, as the store reads them and the explorer shows them.

// Pref is a coded AnnotatedPairs preference, one byte per vote so that a
// dataset's whole vote matrix (50,000 comparisons × 52 annotators) stays
// small. The statistics code votes the same way (analysis.Vote); the
// application layer converts at the boundary, so that the store does not
// depend on the statistics.
type Pref int8

// The coded preferences. Any string other than the four known ones is
// PrefInvalid.
const (
	PrefNone    Pref = iota // no vote, a null pref or an empty string
	PrefA                   // "text_a"
	PrefB                   // "text_b"
	PrefTie                 // "tie"
	PrefInvalid             // "invalid" and anything else
)

// PairsDataset is one AnnotatedPairs dataset's header.
type PairsDataset struct {
	ID, Name, Description, Version, Format string
	DefaultAnnotator                       string // "" when the file names none
	CreatedAt                              string
	Synthetic                              bool
	Comparisons                            int
	DroppedDuplicates                      int
	ImportID                               int64 // changes whenever the dataset is re-imported
	MetadataKeys                           []string
	// Texts is false for an annotation-only file: no comparison carries a
	// response text, so there are no lengths.
	Texts bool
}

// PairsAnnotator is one annotator of a dataset, in display order.
type PairsAnnotator struct {
	Idx                         int // row of VoteMatrix.Votes
	ID, Name, Description, Type string
	Declared                    bool
}

// VoteMatrix is a dataset's votes and the comparison facts the explorer
// needs, indexed by comparison position (ap_comparisons.idx, 0..N-1).
type VoteMatrix struct {
	N int
	// Votes[a][i] is annotator a's vote (PairsAnnotator.Idx) on comparison i.
	Votes [][]Pref
	// Models lists the distinct response models, sorted; ModelA[i] and
	// ModelB[i] index it, or are -1 when the response names no model.
	Models         []string
	ModelA, ModelB []int32
	// LenA and LenB are the response lengths in Unicode characters.
	LenA, LenB []int32
}

// MetaValue is one value of a metadata key with the number of comparisons
// that carry it.
type MetaValue struct {
	Value string
	Count int
}

// MetaValues is a metadata key's values over a dataset.
type MetaValues struct {
	Key string
	// Values are ordered by Count, most comparisons first, then by value.
	Values []MetaValue
	// Of[i] is comparison i's value as an index into Values, or -1 when the
	// comparison has no value for the key.
	Of []int32
}

// PairsComparison is one comparison's prompt and responses.
type PairsComparison struct {
	Idx            int
	ID, Prompt     string
	HasPrompt      bool // false when the file gives no prompt
	TextA, TextB   string
	ModelA, ModelB string // "" when not named
	LenA, LenB     int
	AttrsA, AttrsB []KeyValue  // response keys beyond text and model, sorted by key
	Metadata       []KeyValue  // in file order
	Votes          []PairsVote // only the store's PairsComparisonByID fills it
}

// KeyValue is a metadata entry or a response attribute, the value as text
// (strings as is, other JSON values as JSON).
type KeyValue struct{ Key, Value string }

// PairsVote is one annotator's vote on a comparison.
type PairsVote struct {
	Annotator PairsAnnotator
	Pref      string // as stored: text_a, text_b, tie, invalid...; "" when null
	Null      bool   // the vote is null (no preference)
	Reason    string // no_pref_reason, when given
}
