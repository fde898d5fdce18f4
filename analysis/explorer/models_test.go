package explorer

import (
	"testing"

	"github.com/auditscope/auditscope/analysis"
)

// TestModelWins checks the head-to-head record by h's votes: among the
// comparisons between two different models, c1 X>Y, c2 X>Y (X is text_b, h
// votes text_b), c3 X>Z, c4 Y>Z (Y is text_b), c7 Z>Y; c5 is X against X
// and c6 has a response without a model. 5 comparisons count.
func TestModelWins(t *testing.T) {
	m := handMatrix()
	w := m.ModelWins(m.Votes[0])
	if w.Pairs != 5 || !equalInt32(w.Models, []int32{mX, mY, mZ}) {
		t.Fatalf("pairs %d, models %v; want 5, [0 1 2]", w.Pairs, w.Models)
	}
	want := [][]float64{{0, 2, 1}, {0, 0, 1}, {0, 1, 0}}
	for i := range want {
		for j := range want[i] {
			if w.Wins[i][j] != want[i][j] {
				t.Errorf("wins[%d][%d] = %v, want %v", i, j, w.Wins[i][j], want[i][j])
			}
		}
	}
	for i, rec := range [][2]int{{3, 0}, {1, 3}, {1, 2}} {
		if wins, losses := w.Record(i); wins != rec[0] || losses != rec[1] {
			t.Errorf("record of %d: %d–%d, want %d–%d", i, wins, losses, rec[0], rec[1])
		}
	}
	// X: 3 of 3, the Wilson 95% interval [0.4385, 1].
	if e := WinRate(w.Record(0)); e.Value != 1 || !(e.Lo > 0.4384 && e.Lo < 0.4386) || !(e.Hi > 1-1e-12) {
		t.Errorf("X's win rate %+v, want 1 [0.4385, 1]", e)
	}

	// A model annotator as the reference: model:X only votes on X's
	// comparisons, so Y and Z are 0–0 but stay (both played X).
	d := handDataset(t)
	w = m.ModelWins(d.VotesOf(mustLookup(t, d, "model:X"), nil))
	if w.Pairs != 3 || len(w.Models) != 3 || w.Wins[0][1] != 2 || w.Wins[0][2] != 1 || w.Wins[1][2] != 0 || w.Wins[2][1] != 0 {
		t.Errorf("by model:X: %+v", w)
	}
	// Only the games between Y and Z: X is left out.
	ref := []analysis.Vote{none, none, none, va, none, none, va}
	w = m.ModelWins(ref)
	if w.Pairs != 2 || !equalInt32(w.Models, []int32{mY, mZ}) || w.Wins[0][1] != 1 || w.Wins[1][0] != 1 {
		t.Errorf("Y against Z only: %+v", w)
	}
	// No decisive vote: nothing.
	if w := m.ModelWins(make([]analysis.Vote, 7)); w.Pairs != 0 || len(w.Models) != 0 || len(w.Wins) != 0 {
		t.Errorf("no vote: %+v", w)
	}
}
