// Package explorer holds the computations behind the AnnotatedPairs
// explorer: which votes a model-identity annotator casts, every annotator's
// agreement with a reference (the Feedback Forensics metrics, Cohen's kappa,
// Wilson intervals and the strength bootstrap), the length overview, splits
// by a metadata value, the head-to-head wins between response models and
// the comparisons the comparison viewer lists.
//
// It works on plain values: a dataset's vote matrix (Matrix) with its
// annotators (Dataset), coded as analysis.Vote. It imports analysis and the
// standard library only, never the store, HTTP or the views, so every number
// the explorer's pages show can be tested on hand-made votes.
//
// Undefined values follow package analysis: NaN, never an error.
package explorer

// The explorer's fixed statistical settings. Intervals are reproducible:
// the bootstrap is seeded.
const (
	Confidence = 0.95 // every interval's level
	Resamples  = 1000 // bootstrap resamples for the strength interval
	Seed       = 1    // bootstrap seed

	// DefaultSplitValues is how many split values the table shows when none
	// are chosen: the ones with the most comparisons.
	DefaultSplitValues = 4
)
