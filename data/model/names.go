package model

import (
	"fmt"
	"regexp"
	"slices"
	"sort"
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

// ImportResult describes an import that landed (or was a no-op).
type ImportResult struct {
	Kind      string
	Name      string
	Source    string
	Hash      string
	Rows      int64
	Counts    map[string]int64 // rows per table or entity
	Notes     []string         // e.g. "dropped 3 duplicate comparison ids"
	Unchanged bool             // the same content was already imported under this name
}

// String is the one-line summary the import command prints.
func (r ImportResult) String() string {
	if r.Unchanged {
		return fmt.Sprintf("%s %s: unchanged (same content already imported from %s)", r.Kind, r.Name, r.Source)
	}
	keys := make([]string, 0, len(r.Counts))
	for k := range r.Counts {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	parts := make([]string, 0, len(keys))
	for _, k := range keys {
		parts = append(parts, fmt.Sprintf("%d %s", r.Counts[k], k))
	}
	s := fmt.Sprintf("%s %s: %d rows (%s)", r.Kind, r.Name, r.Rows, strings.Join(parts, ", "))
	if len(r.Notes) > 0 {
		s += "; " + strings.Join(r.Notes, "; ")
	}
	return s
}
