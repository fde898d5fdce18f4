package app

import (
	"context"
	"math"
	"sort"

	"github.com/auditscope/auditscope/analysis"
	"github.com/auditscope/auditscope/data/model"
)

// MaxCyclesListed is where a list of cycles stops (and says so).
const MaxCyclesListed = 1000

// WinMatrix is a win matrix between items: Wins[i][j] is the number of
// times item i beat item j.
type WinMatrix struct {
	IDs, Labels []string
	Wins        [][]float64
}

// Ranked is one item of a Bradley–Terry ranking.
type Ranked struct {
	Item         int // index into the matrix
	Rank         int // 1 is the strongest; 0 without a fit
	Wins, Losses int // ties left out
	InCycle      bool
	// Strength is the log-strength with its 95% interval, NaN without a
	// fit; the anchor (fixed at 0 by the fit) has no interval.
	Strength analysis.Estimate
	Anchor   bool
}

// WinAnalysis is what the intransitivity pages show of a win matrix:
// majority edges, elementary cycles (shortest first), counts and a
// Bradley–Terry ranking with the items on cycles flagged.
type WinAnalysis struct {
	Matrix WinMatrix
	MaxLen int
	Cycles [][]int // at most MaxCyclesListed, shortest first
	Capped bool    // the list stopped at its bound
	Count3 int     // 3-cycles, all counted
	Edges  [][2]int
	// InCycle flags the items on some cycle of any length.
	InCycle []bool
	// Ranking is in rank order; BTErr says why there is no fit (the
	// ranking then keeps the matrix's order, every strength NaN).
	Ranking []Ranked
	BTErr   error
	// CycleP is each listed cycle's p-value as a finding (analysis.CycleP:
	// its weakest edge's binomial p).
	CycleP []float64
	// Test asks whether a transitive Bradley–Terry model makes as many
	// 3-cycles (analysis.TestTransitiveCycles); TestErr says why it could
	// not run (no fit).
	Test    analysis.TransitiveCycles
	TestErr error
}

// CycleReplications is the number of replays behind the transitive-model
// test of the 3-cycle count.
const CycleReplications = 2000

// AnalyzeWins analyses a win matrix, listing cycles up to maxLen long.
func AnalyzeWins(m WinMatrix, maxLen int) WinAnalysis {
	w := WinAnalysis{Matrix: m, MaxLen: maxLen}
	if len(m.IDs) == 0 {
		return w
	}
	w.Cycles, w.Capped = analysis.CyclesCapped(m.Wins, maxLen, MaxCyclesListed)
	sort.SliceStable(w.Cycles, func(i, j int) bool { return len(w.Cycles[i]) < len(w.Cycles[j]) })
	w.Count3 = analysis.CountCycles3(m.Wins)
	for _, c := range w.Cycles {
		w.CycleP = append(w.CycleP, analysis.CycleP(m.Wins, c))
	}
	if w.Count3 > 0 {
		// A fixed seed: the page shows the same p every time.
		w.Test, w.TestErr = analysis.TestTransitiveCycles(m.Wins, CycleReplications, uint64(len(m.IDs))<<32|uint64(w.Count3))
	}
	w.Edges = analysis.MajorityEdges(m.Wins)
	w.InCycle = analysis.InCycle(m.Wins)
	bt, err := analysis.BradleyTerryCI(m.Wins, 0.95)
	w.BTErr = err
	nan := math.NaN()
	for i := range m.IDs {
		r := Ranked{Item: i, InCycle: w.InCycle[i], Strength: analysis.Estimate{Value: nan, Lo: nan, Hi: nan}}
		for j := range m.IDs {
			r.Wins += int(m.Wins[i][j])
			r.Losses += int(m.Wins[j][i])
		}
		if bt != nil {
			r.Strength = bt[i]
			// The fit fixes the last item at 0; it has no interval of its own.
			if i == len(m.IDs)-1 {
				r.Anchor, r.Strength.Lo, r.Strength.Hi = true, nan, nan
			}
		}
		w.Ranking = append(w.Ranking, r)
	}
	if bt != nil {
		rankByStrength(w.Ranking)
	}
	return w
}

// rankByStrength sorts items by log-strength, strongest first, and ranks
// them; strengths equal to within rounding residue (1e-9) share a rank and
// keep the matrix's order, so two exactly tied items are never ordered by
// noise.
func rankByStrength(rows []Ranked) {
	same := func(a, b float64) bool { return math.Abs(a-b) <= 1e-9*math.Max(1, math.Abs(a)) }
	sort.SliceStable(rows, func(i, j int) bool {
		a, b := rows[i].Strength.Value, rows[j].Strength.Value
		return !same(a, b) && a > b
	})
	for i := range rows {
		rows[i].Rank = i + 1
		if i > 0 && same(rows[i].Strength.Value, rows[i-1].Strength.Value) {
			rows[i].Rank = rows[i-1].Rank
		}
	}
}

// AuditorCycles analyses the win matrix between an experiment's auditors
// from its judgments of one kind whose two sides are audits of different
// auditors, and returns it with the experiment's statistics.
func (s *Service) AuditorCycles(ctx context.Context, exp, kind string, maxLen int) (*ExperimentStats, WinAnalysis, error) {
	st, err := s.Stats(ctx, exp)
	if err != nil {
		return nil, WinAnalysis{}, err
	}
	sides, err := s.r.SideJudgments(ctx, st.Exp.ID, kind)
	if err != nil {
		return nil, WinAnalysis{}, err
	}
	return st, AnalyzeWins(auditorWins(st.Auditors, sides), maxLen), nil
}

// auditorWins counts each auditor's wins over each other auditor, in the
// experiment's auditor order; only auditors with a counted win or loss
// appear (one the experiment does not list, after the others, unnamed).
func auditorWins(auditors []AuditorScores, sides []model.SideJudgment) WinMatrix {
	type pair struct{ a, b string }
	wins := map[pair]float64{}
	var order []string // first seen first
	seen := map[string]bool{}
	for _, j := range sides {
		if j.OtherAuditor == "" || j.OtherAuditor == j.Auditor || j.Outcome != "win" {
			continue
		}
		for _, id := range []string{j.Auditor, j.OtherAuditor} {
			if !seen[id] {
				seen[id] = true
				order = append(order, id)
			}
		}
		wins[pair{j.Auditor, j.OtherAuditor}]++
	}
	var m WinMatrix
	for _, a := range auditors {
		if seen[a.Auditor.ID] {
			m.IDs = append(m.IDs, a.Auditor.ID)
			m.Labels = append(m.Labels, a.Auditor.Name)
			delete(seen, a.Auditor.ID)
		}
	}
	for _, id := range order {
		if seen[id] {
			m.IDs = append(m.IDs, id)
			m.Labels = append(m.Labels, "")
		}
	}
	m.Wins = make([][]float64, len(m.IDs))
	for i, a := range m.IDs {
		m.Wins[i] = make([]float64, len(m.IDs))
		for j, b := range m.IDs {
			m.Wins[i][j] = wins[pair{a, b}]
		}
	}
	return m
}

// EdgeP is analysis.EdgeP, for the pages.
func EdgeP(wins, losses int) float64 { return analysis.EdgeP(wins, losses) }
