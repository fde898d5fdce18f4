package explorer

import (
	"math"
	"testing"

	"github.com/auditscope/auditscope/analysis"
)

// TestComparePairedByHand: six comparisons, the reference decisive on five.
func TestComparePairedByHand(t *testing.T) {
	A, B, T, N := analysis.VoteA, analysis.VoteB, analysis.VoteTie, analysis.VoteNone
	ref := []analysis.Vote{A, A, B, B, A, T}
	a := []analysis.Vote{A, A, B, A, T, A} // agree, agree, agree, disagree, n/a
	b := []analysis.Vote{A, B, A, A, A, B} // agree, disagree, disagree, disagree, agree
	_ = N
	got, err := ComparePaired(ref, a, b)
	if err != nil {
		t.Fatal(err)
	}
	// Agreement 3/5 vs 2/5; discordant: A only on comparisons 2 and 3, B
	// only on 5; both on 1; neither on 4.
	if got.Kept != 5 || got.OnlyA != 2 || got.OnlyB != 1 || math.Abs(got.Agreement.Value-0.2) > 1e-15 {
		t.Errorf("agreement: %+v", got)
	}
	want, _ := analysis.NewcombePaired(1, 2, 1, 1, 0.95)
	if got.Agreement != want {
		t.Errorf("interval %+v, want %+v", got.Agreement, want)
	}
	// McNemar exact on 2 and 1: 2·P(X ≤ 1), X ~ Bin(3, 1/2) = 2·0.5 = 1.
	if got.AgreementP != 1 || !got.McNemarExact {
		t.Errorf("McNemar p %v exact %v", got.AgreementP, got.McNemarExact)
	}
	// Strength: A (3 − 1)/5 = 0.4, B (2 − 3)/5 = −0.2; difference 0.6,
	// the mean of the per-comparison differences 0, 2, 2, 0, −1.
	if math.Abs(got.Strength.Value-0.6) > 1e-15 || math.Abs(got.A.Strength-0.4) > 1e-15 || math.Abs(got.B.Strength+0.2) > 1e-15 {
		t.Errorf("strength %+v (A %v, B %v)", got.Strength, got.A.Strength, got.B.Strength)
	}
	ws, wp, _ := analysis.PairedT([]float64{1, 1, 1, -1, 0}, []float64{1, -1, -1, -1, 1}, 0.95)
	if got.Strength != ws || got.StrengthP != wp {
		t.Errorf("strength %+v p %v, want %+v p %v", got.Strength, got.StrengthP, ws, wp)
	}
	if _, err := ComparePaired(ref, a[:2], b); err == nil {
		t.Error("unequal lengths: want an error")
	}
}
