package explorer

import (
	"math"
	"testing"

	"github.com/auditscope/auditscope/analysis"
)

// TestSplit checks the columns of a split by topic (t1: c1 c2 c5 c7, t2: c3
// c4, t3: c6): h's kept comparisons per value, and p2's strength in each,
// (2-1)/3 = 1/3 on t1 (c5 dropped), (0-1)/2 = -1/2 on t2 and 1 on t3, a
// spread of 1.5.
func TestSplit(t *testing.T) {
	d := handDataset(t)
	ref := d.VotesOf(mustLookup(t, d, "h"), nil)
	p2 := d.VotesOf(mustLookup(t, d, "p2"), nil)
	keeps := Split(ref, topicOf, []int32{0, 1, 2})
	wantKeeps := [][]int32{{0, 1, 6}, {2, 3}, {5}}
	wantStrength := []float64{1.0 / 3, -0.5, 1}
	values := make([]float64, len(keeps))
	for k, keep := range keeps {
		if !equalInt32(keep, wantKeeps[k]) {
			t.Errorf("value %d: keep %v, want %v", k, keep, wantKeeps[k])
		}
		st, err := Compare(ref, keep, [][]analysis.Vote{p2}, Needs{}, nil)
		if err != nil {
			t.Fatal(err)
		}
		values[k] = st[0].Agreement.Strength
		if !near(values[k], wantStrength[k]) {
			t.Errorf("value %d: p2 strength %v, want %v", k, values[k], wantStrength[k])
		}
	}
	if s := Spread(values); !near(s, 1.5) {
		t.Errorf("spread %v, want 1.5", s)
	}
	// Chosen values in another order, and a value no comparison has.
	keeps = Split(ref, topicOf, []int32{2, 0, 7})
	if len(keeps) != 3 || !equalInt32(keeps[0], []int32{5}) || !equalInt32(keeps[1], []int32{0, 1, 6}) || len(keeps[2]) != 0 {
		t.Errorf("values 2, 0, 7: %v", keeps)
	}
	st, _ := Compare(ref, keeps[2], [][]analysis.Vote{p2}, Needs{}, nil)
	if !math.IsNaN(st[0].Agreement.Strength) {
		t.Errorf("an empty column's strength %v, want NaN", st[0].Agreement.Strength)
	}
}

func TestUnvalued(t *testing.T) {
	if n := Unvalued(topicOf); n != 0 {
		t.Errorf("every comparison has a topic: %d unvalued", n)
	}
	if n := Unvalued([]int32{-1, 0, -1, 3}); n != 2 {
		t.Errorf("%d unvalued, want 2", n)
	}
}

func TestGather(t *testing.T) {
	v := []analysis.Vote{va, vb, tie, none}
	got := Gather(v, []int32{3, 0, 0})
	if len(got) != 3 || got[0] != none || got[1] != va || got[2] != va {
		t.Errorf("Gather = %v", got)
	}
	if got := Decisive([]analysis.Vote{tie, va, none, vb, inv}); !equalInt32(got, []int32{1, 3}) {
		t.Errorf("Decisive = %v, want [1 3]", got)
	}
}
