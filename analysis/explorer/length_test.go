package explorer

import (
	"math"
	"slices"
	"testing"

	"github.com/auditscope/auditscope/analysis"
)

// TestLengthOverview checks the overall statistics of h on the hand
// matrix: over the 6 kept comparisons text_a is preferred in c1 and c3
// (2/6); len_a 4+1+2+3+1+2 = 13 → 13/6; len_b 2+3+2+1+6+4 = 18 → 3;
// preferred 4+3+2+1+6+4 = 20 → 10/3; rejected 2+1+2+3+1+2 = 11 → 11/6. The
// longer response (text_b when equal) is a, b, b, a, b, b, and h picks it
// in c1, c2, c6 and c7: 4/6.
func TestLengthOverview(t *testing.T) {
	m := handMatrix()
	o := LengthOverview(m.Votes[0], m.LenA, m.LenB)
	if o.Pairs != 6 {
		t.Errorf("pairs = %d, want 6", o.Pairs)
	}
	for _, c := range []struct {
		what      string
		got, want float64
	}{
		{"prop_a", o.PropA, 2.0 / 6}, {"avg_len_a", o.AvgLenA, 13.0 / 6}, {"avg_len_b", o.AvgLenB, 3},
		{"avg_len_preferred", o.AvgLenPreferred, 20.0 / 6}, {"avg_len_rejected", o.AvgLenRejected, 11.0 / 6},
		{"prop_longer", o.PropLonger, 4.0 / 6},
	} {
		if !near(c.got, c.want) {
			t.Errorf("%s = %v, want %v", c.what, c.got, c.want)
		}
	}
	// A reference with no decisive vote: every ratio undefined.
	o = LengthOverview([]analysis.Vote{tie, none, inv}, []int32{1, 2, 3}, []int32{3, 2, 1})
	if o.Pairs != 0 || !math.IsNaN(o.PropA) || !math.IsNaN(o.AvgLenA) || !math.IsNaN(o.AvgLenB) ||
		!math.IsNaN(o.AvgLenPreferred) || !math.IsNaN(o.AvgLenRejected) || !math.IsNaN(o.PropLonger) {
		t.Errorf("no decisive vote: %+v, want 0 pairs and NaN", o)
	}
	// Equal lengths count as text_b being longer.
	o = LengthOverview([]analysis.Vote{va, vb}, []int32{5, 5}, []int32{5, 5})
	if o.PropLonger != 0.5 {
		t.Errorf("equal lengths: prop_longer %v, want 0.5 (text_b counts as longer)", o.PropLonger)
	}
}

// TestLengthBias checks the length figure's data for h: the preferred
// response is longer in c1, c2, c6 and c7 and as long in c3.
func TestLengthBias(t *testing.T) {
	m := handMatrix()
	b := LengthBiasOf(m.Votes[0], m.LenA, m.LenB)
	if !slices.Equal(b.Preferred, []float64{4, 3, 2, 1, 6, 4}) || !slices.Equal(b.Rejected, []float64{2, 1, 2, 3, 1, 2}) {
		t.Errorf("preferred %v, rejected %v", b.Preferred, b.Rejected)
	}
	if b.Longer != 4 || b.Equal != 1 {
		t.Errorf("longer %d, equal %d; want 4, 1", b.Longer, b.Equal)
	}
	if b := LengthBiasOf([]analysis.Vote{tie}, []int32{1}, []int32{2}); len(b.Preferred) != 0 || b.Longer != 0 {
		t.Errorf("no decisive vote: %+v", b)
	}
}
