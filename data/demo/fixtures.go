package demo

import "embed"

// Fixtures holds copies of the real AnnotatedPairs files from Feedback
// Forensics and ICAI (fixtures/README.md names their sources), so the
// binary's demo needs nothing beside it: demodb imports them.
//
//go:embed fixtures/*.json fixtures/*.csv
var Fixtures embed.FS

// GeneratorVersion changes whenever the generator's output changes, so a
// database that holds an older demo sees new content.
const GeneratorVersion = "demo-v1"

// ExperimentID is the demo experiment's id.
const ExperimentID = "demo"
