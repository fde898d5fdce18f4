package explorer

import (
	"math"
	"strings"
	"testing"

	"github.com/auditscope/auditscope/analysis"
)

// TestComparePairedByHand: six comparisons, the reference decisive on five.
func TestComparePairedByHand(t *testing.T) {
	A, B, T := analysis.VoteA, analysis.VoteB, analysis.VoteTie
	ref := []analysis.Vote{A, A, B, B, A, T}
	a := []analysis.Vote{A, A, B, A, T, A} // agree, agree, agree, disagree, no valid vote
	b := []analysis.Vote{A, B, A, A, A, B} // agree, disagree, disagree, disagree, agree
	got, err := ComparePaired(ref, a, b)
	if err != nil {
		t.Fatal(err)
	}
	// Agreement rate 3/5 vs 2/5; discordant: A only on comparisons 2 and
	// 3, B only on 5.
	if got.Kept != 5 || got.OnlyA != 2 || got.OnlyB != 1 || math.Abs(got.Agreement.Value-0.2) > 1e-15 {
		t.Errorf("agreement: %+v", got)
	}
	// Both agree on comparison 1, neither on 4: Newcombe's paired
	// interval on (1, 2, 1, 1), the exact McNemar p on 2 against 1.
	want, _ := analysis.NewcombePaired(1, 2, 1, 1, 0.95)
	_, wp, _ := analysis.McNemarExact(2, 1, 5, 0.95)
	if got.Agreement != want || got.AgreementP != wp || wp != 1 {
		t.Errorf("agreement %+v p %v, want %+v p %v (2·P(X ≤ 1 | 3, ½) = 1)", got.Agreement, got.AgreementP, want, wp)
	}
	if w, _ := analysis.Wilson(3, 5, 0.95); got.AgreementA != w {
		t.Errorf("A's agreement rate %+v, want Wilson 3 of 5 %+v", got.AgreementA, w)
	}
	// Accuracy on the four comparisons both voted validly (1 to 4): A
	// agrees on 1, 2, 3 (3/4), B on 1 (1/4); A only on 2 and 3.
	if got.BothValid != 4 || got.AccuracyOnlyA != 2 || got.AccuracyOnlyB != 0 || math.Abs(got.Accuracy.Value-0.5) > 1e-15 {
		t.Errorf("accuracy: %+v", got)
	}
	if w, _ := analysis.Wilson(1, 4, 0.95); got.AccuracyB != w {
		t.Errorf("B's accuracy %+v, want Wilson 1 of 4 %+v", got.AccuracyB, w)
	}
	// Strength: A (3 − 1)/5 = 0.4, B (2 − 3)/5 = −0.2; difference 0.6,
	// the mean of the per-comparison differences 0, 2, 2, 0, −1.
	if math.Abs(got.Strength.Value-0.6) > 1e-15 || math.Abs(got.A.Strength-0.4) > 1e-15 || math.Abs(got.B.Strength+0.2) > 1e-15 {
		t.Errorf("strength %+v (A %v, B %v)", got.Strength, got.A.Strength, got.B.Strength)
	}
	ws, wsp, _ := analysis.PairedT([]float64{1, 1, 1, -1, 0}, []float64{1, -1, -1, -1, 1}, 0.95)
	if got.Strength != ws || got.StrengthP != wsp {
		t.Errorf("strength %+v p %v, want %+v p %v", got.Strength, got.StrengthP, ws, wsp)
	}
	if m, _ := analysis.MeanCI([]float64{1, 1, 1, -1, 0}, 0.95); got.StrengthA != m || math.Abs(m.Value-0.4) > 1e-15 {
		t.Errorf("A's strength %+v, want %+v", got.StrengthA, m)
	}
	defer func() {
		if msg, _ := recover().(string); !strings.Contains(msg, "ComparePaired") {
			t.Errorf("unequal lengths: got panic %q, want one naming ComparePaired", msg)
		}
	}()
	ComparePaired(ref, a[:2], b)
}
