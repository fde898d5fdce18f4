package explorer

import "github.com/auditscope/auditscope/analysis"

// Filter selects comparisons by how an annotator's vote relates to the
// reference's.
type Filter string

// The filters of the comparison viewer.
const (
	FilterAll      Filter = "all"      // every comparison
	FilterAgree    Filter = "agree"    // both decisive and equal
	FilterDisagree Filter = "disagree" // both decisive and different
	FilterOne      Filter = "one"      // exactly one of the two decisive
	FilterNeither  Filter = "neither"  // neither decisive
)

// Filters lists the filters in menu order.
var Filters = []Filter{FilterAll, FilterAgree, FilterDisagree, FilterOne, FilterNeither}

// Keep reports whether a comparison with reference vote ref and annotator
// vote ann passes f. Decisive means text_a or text_b.
func (f Filter) Keep(ref, ann analysis.Vote) bool {
	rd := ref == analysis.VoteA || ref == analysis.VoteB
	ad := ann == analysis.VoteA || ann == analysis.VoteB
	switch f {
	case FilterAgree:
		return rd && ad && ref == ann
	case FilterDisagree:
		return rd && ad && ref != ann
	case FilterOne:
		return rd != ad
	case FilterNeither:
		return !rd && !ad
	default:
		return true
	}
}

// Selection says which comparisons the comparison viewer lists.
type Selection struct {
	// Of and Value restrict to one metadata value: Of[i] is comparison i's
	// value index; Value -1 keeps every comparison.
	Of    []int32
	Value int32
	// Models keeps comparisons with a response by the one model, or
	// between the two models in either position; none keeps all.
	Models []int32
	// Filter compares Ann's votes with Ref's; Ann may be nil with
	// FilterAll.
	Filter   Filter
	Ref, Ann []analysis.Vote
}

// MatchModels reports whether a comparison between models a and b (-1:
// none) passes the models restriction.
func (s Selection) MatchModels(a, b int32) bool {
	switch len(s.Models) {
	case 0:
		return true
	case 1:
		return a == s.Models[0] || b == s.Models[0]
	default:
		return a == s.Models[0] && b == s.Models[1] || a == s.Models[1] && b == s.Models[0]
	}
}

// Select returns the candidate positions (in their order) that s keeps;
// positions past the matrix are dropped.
func (m *Matrix) Select(candidates []int32, s Selection) []int32 {
	out := candidates[:0:0]
	for _, i := range candidates {
		if int(i) >= m.N || (s.Value >= 0 && s.Of[i] != s.Value) || !s.MatchModels(m.ModelA[i], m.ModelB[i]) {
			continue
		}
		if s.Filter != FilterAll && s.Filter != "" && !s.Filter.Keep(s.Ref[i], s.Ann[i]) {
			continue
		}
		out = append(out, i)
	}
	return out
}
