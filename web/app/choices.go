package app

import (
	"slices"
	"strings"
)

// UnknownValue is the QueryError of a value that names nothing: it names
// the query's field (the URL parameter's name, or a field web names as its
// URL does: params.go) and the value, and lists the valid choices (the
// closest first when there are many).
func UnknownValue(field, value string, choices []string) error {
	if len(choices) == 0 {
		return FieldErrorf(field, "unknown value %q (there is nothing to choose from here)", value)
	}
	sorted := slices.Clone(choices)
	if len(sorted) > 12 {
		slices.SortStableFunc(sorted, func(a, b string) int { return editDistance(value, a) - editDistance(value, b) })
		return FieldErrorf(field, "unknown value %q; the nearest are %s (of %d)", value, strings.Join(sorted[:5], ", "), len(sorted))
	}
	return FieldErrorf(field, "unknown value %q; choose one of %s", value, strings.Join(sorted, ", "))
}

// editDistance is the Levenshtein distance between a and b, for "the
// nearest" suggestions.
func editDistance(a, b string) int {
	ra, rb := []rune(a), []rune(b)
	prev := make([]int, len(rb)+1)
	for j := range prev {
		prev[j] = j
	}
	for i := 1; i <= len(ra); i++ {
		cur := make([]int, len(rb)+1)
		cur[0] = i
		for j := 1; j <= len(rb); j++ {
			cost := 1
			if ra[i-1] == rb[j-1] {
				cost = 0
			}
			cur[j] = min(prev[j]+1, cur[j-1]+1, prev[j-1]+cost)
		}
		prev = cur
	}
	return prev[len(rb)]
}
