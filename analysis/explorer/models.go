package explorer

import (
	"math"

	"github.com/auditscope/auditscope/analysis"
)

// WinMatrix is the head-to-head record of the response models by a
// reference's votes.
type WinMatrix struct {
	// Models are the models in at least one counted comparison, as
	// positions in Matrix.Models, in that order.
	Models []int32
	// Wins[i][j] counts the comparisons between Models[i] and Models[j]
	// (in either position) where the reference preferred Models[i]'s
	// response.
	Wins [][]float64
	// Pairs is the number of comparisons counted.
	Pairs int
}

// ModelWins builds the win matrix of the response models by the reference
// votes ref. Only text_a and text_b votes count, and only comparisons whose
// two responses name two different models. Models in no counted
// comparison are left out.
func (m *Matrix) ModelWins(ref []analysis.Vote) WinMatrix {
	n := len(m.Models)
	wins := make([][]float64, n)
	for i := range wins {
		wins[i] = make([]float64, n)
	}
	var w WinMatrix
	for i, v := range ref {
		ma, mb := m.ModelA[i], m.ModelB[i]
		if ma < 0 || mb < 0 || ma == mb {
			continue
		}
		switch v {
		case analysis.VoteA:
			wins[ma][mb]++
		case analysis.VoteB:
			wins[mb][ma]++
		default:
			continue
		}
		w.Pairs++
	}
	for i := range n {
		for j := range n {
			if wins[i][j] > 0 || wins[j][i] > 0 {
				w.Models = append(w.Models, int32(i))
				break
			}
		}
	}
	w.Wins = make([][]float64, len(w.Models))
	for a, i := range w.Models {
		w.Wins[a] = make([]float64, len(w.Models))
		for b, j := range w.Models {
			w.Wins[a][b] = wins[i][j]
		}
	}
	return w
}

// Record is the total wins and losses of the model in row i.
func (w WinMatrix) Record(i int) (wins, losses int) {
	for j := range w.Wins {
		wins += int(w.Wins[i][j])
		losses += int(w.Wins[j][i])
	}
	return wins, losses
}

// WinRate is the share of games won with its Wilson interval at
// Confidence; NaN when no game was played.
func WinRate(wins, losses int) analysis.Estimate {
	if n := wins + losses; n > 0 {
		if e, err := analysis.Wilson(float64(wins), n, Confidence); err == nil {
			return e
		}
	}
	return analysis.Estimate{Value: math.NaN(), Lo: math.NaN(), Hi: math.NaN()}
}
