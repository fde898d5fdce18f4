package storetest

import (
	"math"
	"strconv"
	"strings"
	"testing"

	"github.com/auditscope/auditscope/data/model"
)

// ExportScores returns the scores of row i of an export's chunk in the
// order of its n dimensions, NaN for none: its Scores, or its Cells read
// back. Cells must be what the export's CSV would write for each score:
// the integer from 1 to 15 as strconv.Itoa writes it, or "" for none; a
// row has one or the other, never both.
func ExportScores(t testing.TB, c model.ExportChunk, i, n int) []float64 {
	t.Helper()
	if len(c.Cells) != len(c.Rows) || len(c.Scores) != len(c.Rows) {
		t.Fatalf("chunk of %d rows has %d cells and %d scores", len(c.Rows), len(c.Cells), len(c.Scores))
	}
	if c.Scores[i] != nil {
		if c.Cells[i] != "" {
			t.Fatalf("row %d has scores and cells %q", i, c.Cells[i])
		}
		if len(c.Scores[i]) != n {
			t.Fatalf("row %d has %d scores, want %d", i, len(c.Scores[i]), n)
		}
		return c.Scores[i]
	}
	cells := strings.Split(c.Cells[i], ",")
	if len(cells) != n {
		t.Fatalf("row %d has %d cells %q, want %d", i, len(cells), c.Cells[i], n)
	}
	out := make([]float64, n)
	for j, cell := range cells {
		if cell == "" {
			out[j] = math.NaN()
			continue
		}
		v, err := strconv.Atoi(cell)
		if err != nil || strconv.Itoa(v) != cell || v < 1 || v > 15 {
			t.Fatalf("row %d: cell %d is %q, not an integer from 1 to 15 as Itoa writes it", i, j, cell)
		}
		out[j] = float64(v)
	}
	return out
}
