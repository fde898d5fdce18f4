package model

import (
	"regexp"
	"slices"
	"strings"
)

// The kinds of input an import reads, defined here once for the importers,
// the watcher and the commands.
const (
	KindAnnotatedPairs = "annotated_pairs"
	KindPreferenceCSV  = "preference_csv"
	KindBundle         = "bundle"
	KindPetri          = "petri"
	KindInspect        = "inspect"
)

var slugRe = regexp.MustCompile(`[^a-z0-9._-]+`)

// Slugify turns a name into a URL-safe id: lower case, runs of other
// characters become "-". Every importer names datasets and experiments
// with it, so one file gets one id whichever importer reads it.
func Slugify(s string) string {
	s = slugRe.ReplaceAllString(strings.ToLower(strings.TrimSpace(s)), "-")
	s = strings.Trim(s, "-.")
	if len(s) > 80 {
		s = strings.TrimRight(s[:80], "-.")
	}
	return s
}

// ValidName reports whether an id given with --name is URL-safe.
func ValidName(s string) bool {
	return s != "" && Slugify(s) == s
}

// IsEval reports whether e is one of Evals.
func IsEval(e string) bool {
	return slices.Contains(Evals, e)
}
