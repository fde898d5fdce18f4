package explorer

import (
	"testing"

	"github.com/auditscope/auditscope/analysis"
)

func TestFilterKeep(t *testing.T) {
	for _, tt := range []struct {
		f        Filter
		ref, ann analysis.Vote
		want     bool
	}{
		{FilterAll, none, none, true},
		{FilterAgree, va, va, true}, {FilterAgree, va, vb, false}, {FilterAgree, tie, tie, false},
		{FilterDisagree, va, vb, true}, {FilterDisagree, va, va, false}, {FilterDisagree, va, tie, false},
		{FilterOne, va, tie, true}, {FilterOne, none, vb, true}, {FilterOne, va, vb, false}, {FilterOne, tie, inv, false},
		{FilterNeither, tie, none, true}, {FilterNeither, inv, va, false},
	} {
		if got := tt.f.Keep(tt.ref, tt.ann); got != tt.want {
			t.Errorf("%s.Keep(%v, %v) = %v, want %v", tt.f, tt.ref, tt.ann, got, tt.want)
		}
	}
}

// TestSelect checks the comparison viewer's selections on the hand matrix
// (positions 0..6 are c1..c7), as web/pairs_test.go does through the list
// page.
func TestSelect(t *testing.T) {
	d := handDataset(t)
	all := []int32{0, 1, 2, 3, 4, 5, 6}
	votes := func(key string, names ...string) []analysis.Vote {
		mask, _ := d.RefMask(names)
		return d.VotesOf(mustLookup(t, d, key), mask)
	}
	h := votes("h")
	for _, tt := range []struct {
		what string
		s    Selection
		want []int32
	}{
		{"all", Selection{Value: -1}, all},
		{"p2 agrees", Selection{Value: -1, Filter: FilterAgree, Ref: h, Ann: votes("p2")}, []int32{1, 5, 6}},
		{"p2 disagrees", Selection{Value: -1, Filter: FilterDisagree, Ref: h, Ann: votes("p2")}, []int32{0, 3}},
		{"one of p2, h", Selection{Value: -1, Filter: FilterOne, Ref: h, Ann: votes("p2")}, []int32{2, 4}},
		{"neither p1 nor h", Selection{Value: -1, Filter: FilterNeither, Ref: h, Ann: votes("p1")}, nil},
		{"neither g nor h", Selection{Value: -1, Filter: FilterNeither, Ref: h, Ann: votes("g")}, []int32{4}},
		{"model:X agrees", Selection{Value: -1, Filter: FilterAgree, Ref: h, Ann: votes("model:X")}, []int32{0, 1, 2}},
		{"model:X against Y agrees", Selection{Value: -1, Filter: FilterAgree, Ref: h, Ann: votes("model:X", "Y")}, []int32{0, 1}},
		{"topic t2", Selection{Of: topicOf, Value: 1}, []int32{2, 3}},
		{"p2 agrees on t1", Selection{Of: topicOf, Value: 0, Filter: FilterAgree, Ref: h, Ann: votes("p2")}, []int32{1, 6}},
		{"X and Y", Selection{Value: -1, Models: []int32{mX, mY}}, []int32{0, 1}},
		{"Y and Z", Selection{Value: -1, Models: []int32{mY, mZ}}, []int32{3, 6}},
		{"with Y", Selection{Value: -1, Models: []int32{mY}}, []int32{0, 1, 3, 5, 6}},
		{"with X", Selection{Value: -1, Models: []int32{mX}}, []int32{0, 1, 2, 4}},
	} {
		if got := d.Select(all, tt.s); !equalInt32(got, tt.want) {
			t.Errorf("%s: %v, want %v", tt.what, got, tt.want)
		}
	}
	// Candidates (a search's hits) keep their order; positions past the
	// matrix are dropped.
	if got := d.Select([]int32{6, 2, 9, 0}, Selection{Value: -1, Models: []int32{mX, mZ}}); !equalInt32(got, []int32{2}) {
		t.Errorf("candidates 6 2 9 0 between X and Z: %v, want [2]", got)
	}
	if got := d.Select(nil, Selection{Value: -1}); len(got) != 0 {
		t.Errorf("no candidates: %v", got)
	}
}
