package storetest

import (
	"math"
	"testing"

	"github.com/auditscope/auditscope/data/model"
)

// ExportScores returns the scores of row i of an export's chunk in the
// order of its n dimensions, NaN for none: its Scores, or its packed scores
// read back (model.PackedScore: 1 to 15, 0 for none). A row has one or the
// other, never both, and its packs hold n scores and nothing past them.
func ExportScores(t testing.TB, c model.ExportChunk, i, n int) []float64 {
	t.Helper()
	if len(c.Packed) != len(c.Rows) || len(c.Scores) != len(c.Rows) {
		t.Fatalf("chunk of %d rows has %d packed and %d scores", len(c.Rows), len(c.Packed), len(c.Scores))
	}
	if c.Scores[i] != nil {
		if c.Packed[i] != nil {
			t.Fatalf("row %d has scores and packed scores %v", i, c.Packed[i])
		}
		if len(c.Scores[i]) != n {
			t.Fatalf("row %d has %d scores, want %d", i, len(c.Scores[i]), n)
		}
		return c.Scores[i]
	}
	words := (n + model.ScoresPerWord - 1) / model.ScoresPerWord
	if len(c.Packed[i]) != words {
		t.Fatalf("row %d has %d packed words, want %d for %d scores", i, len(c.Packed[i]), words, n)
	}
	if rest := n % model.ScoresPerWord; rest > 0 && c.Packed[i][words-1]>>(4*rest) != 0 {
		t.Fatalf("row %d: bits past its %d scores in %x", i, n, c.Packed[i][words-1])
	}
	out := make([]float64, n)
	for j := range out {
		out[j] = math.NaN()
		if v := model.PackedScore(c.Packed[i], j); v > 0 {
			out[j] = float64(v)
		}
	}
	return out
}
