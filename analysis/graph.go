package analysis

import (
	"errors"
	"fmt"
	"math"

	"gonum.org/v1/gonum/graph/simple"
	"gonum.org/v1/gonum/graph/topo"
	"gonum.org/v1/gonum/mat"
)

// The functions in this file read a square matrix of pairwise wins:
// wins[i][j] is the number of times item i beat item j (ties are not
// recorded, the diagonal is ignored). The majority graph has an edge i→j iff
// wins[i][j] > wins[j][i]; equal pairs, including never-compared 0–0 pairs,
// have no edge, so it has no 2-cycles. The graph functions panic on a
// non-square matrix (a caller bug), as BradleyTerry does.

// DefaultMaxCycles is the cap on the number of cycles that Cycles lists.
const DefaultMaxCycles = 100_000

// cycleStepBudget bounds the depth-first search in CyclesCapped: after this
// many path extensions the search stops and reports the list as capped. It
// keeps the worst case (long length bounds on large, nearly acyclic graphs)
// to a fraction of a second.
const cycleStepBudget = 1 << 23

// majority returns the n×n majority adjacency matrix, flattened row-major.
func majority(fn string, wins [][]float64) (adj []bool, n int) {
	n = len(wins)
	for i, row := range wins {
		if len(row) != n {
			panic(fmt.Sprintf("analysis: %s: wins is not square: row %d has %d entries, want %d", fn, i, len(row), n))
		}
	}
	adj = make([]bool, n*n)
	for i := 0; i < n; i++ {
		for j := 0; j < n; j++ {
			adj[i*n+j] = i != j && wins[i][j] > wins[j][i]
		}
	}
	return adj, n
}

// MajorityEdges returns the edges [i, j] of the majority graph (i beat j more
// often than j beat i), sorted by i and then j.
func MajorityEdges(wins [][]float64) [][2]int {
	adj, n := majority("MajorityEdges", wins)
	var edges [][2]int
	for i := 0; i < n; i++ {
		for j := 0; j < n; j++ {
			if adj[i*n+j] {
				edges = append(edges, [2]int{i, j})
			}
		}
	}
	return edges
}

// OutDegrees returns the out-degree of every item in the majority graph: the
// number of items it beat more often than it lost to. For a tournament (no
// equal pairs) the number of 3-cycles is C(n,3) - Σ_i C(out_i, 2)
// (Kendall and Babington Smith).
func OutDegrees(wins [][]float64) []int {
	adj, n := majority("OutDegrees", wins)
	deg := make([]int, n)
	for i := 0; i < n; i++ {
		for j := 0; j < n; j++ {
			if adj[i*n+j] {
				deg[i]++
			}
		}
	}
	return deg
}

// CountCycles3 returns the number of directed 3-cycles of the majority graph,
// counting each triple {i, j, k} that forms i→j→k→i or i→k→j→i once. It takes
// O(n³) time and lists nothing, so it works for any number of items.
func CountCycles3(wins [][]float64) int {
	adj, n := majority("CountCycles3", wins)
	count := 0
	for i := 0; i < n; i++ {
		for j := i + 1; j < n; j++ {
			for k := j + 1; k < n; k++ {
				if (adj[i*n+j] && adj[j*n+k] && adj[k*n+i]) || (adj[i*n+k] && adj[k*n+j] && adj[j*n+i]) {
					count++
				}
			}
		}
	}
	return count
}

// Cycles lists the elementary cycles of the majority graph with 3 to maxLen
// items, in canonical order: each cycle is rotated so its smallest index
// comes first (keeping the direction), and the list is sorted
// lexicographically with a proper prefix first, so [0 2 3] < [0 2 3 1] <
// [0 2 4]. It returns nil when maxLen < 3.
//
// Cycles is CyclesCapped with DefaultMaxCycles: on a large, dense
// intransitive graph the list is a prefix of the full canonical list. Use
// CyclesCapped to learn whether it was cut short, and CountCycles3 to count
// 3-cycles without listing them.
func Cycles(wins [][]float64, maxLen int) [][]int {
	cycles, _ := CyclesCapped(wins, maxLen, DefaultMaxCycles)
	return cycles
}

// CyclesCapped is Cycles with a bound on the work. It lists at most
// maxCycles cycles (no count limit when maxCycles <= 0) and stops after a
// fixed budget of 2^23 search steps, where listing a cycle of length l
// counts as l steps; that is about 0.1 s on one core. capped is true when
// more than maxCycles cycles exist, or when the step budget ran out before
// the search finished; the list is then a prefix of the canonical list.
//
// Cycles are enumerated by a depth-first search from each start item s over
// items greater than s, with the path length bounded by maxLen and pruned to
// items from which s can still be reached within the remaining length.
func CyclesCapped(wins [][]float64, maxLen, maxCycles int) (cycles [][]int, capped bool) {
	adj, n := majority("CyclesCapped", wins)
	if maxLen < 3 || n < 3 {
		return nil, false
	}
	maxLen = min(maxLen, n)
	out := make([][]int, n) // out-neighbours in ascending order
	in := make([][]int, n)  // in-neighbours
	for i := 0; i < n; i++ {
		for j := 0; j < n; j++ {
			if adj[i*n+j] {
				out[i] = append(out[i], j)
				in[j] = append(in[j], i)
			}
		}
	}
	e := cycleSearch{
		n: n, adj: adj, out: out, maxLen: maxLen, maxCycles: maxCycles,
		onPath: make([]bool, n), dist: make([]int, n), path: make([]int, 0, maxLen),
		steps: cycleStepBudget,
	}
	queue := make([]int, 0, n)
	for s := 0; s < n-2 && !e.stop; s++ {
		// dist[v] = length of the shortest path v → s through items >= s.
		for v := range e.dist {
			e.dist[v] = math.MaxInt
		}
		e.dist[s] = 0
		queue = append(queue[:0], s)
		for len(queue) > 0 {
			v := queue[0]
			queue = queue[1:]
			for _, u := range in[v] {
				if u > s && e.dist[u] == math.MaxInt {
					e.dist[u] = e.dist[v] + 1
					queue = append(queue, u)
				}
			}
		}
		e.s = s
		e.path = append(e.path[:0], s)
		e.onPath[s] = true
		e.visit(s)
		e.onPath[s] = false
	}
	return e.cycles, e.stop
}

// cycleSearch is the state of the depth-first search in CyclesCapped.
type cycleSearch struct {
	n         int
	adj       []bool
	out       [][]int
	maxLen    int
	maxCycles int
	s         int    // start item, the smallest on every path
	path      []int  // current path, starting at s
	onPath    []bool // membership of path
	dist      []int  // shortest distance back to s
	steps     int    // remaining step budget
	cycles    [][]int
	stop      bool // a limit was reached
}

// visit is called with v the last item of the path. It records the path as a
// cycle when v→s closes it and then extends the path in ascending order,
// which yields the cycles in canonical order.
func (e *cycleSearch) visit(v int) {
	l := len(e.path)
	if l >= 3 && e.adj[v*e.n+e.s] {
		if e.maxCycles > 0 && len(e.cycles) == e.maxCycles {
			// A cycle beyond the cap exists, so the list is incomplete.
			e.stop = true
			return
		}
		e.cycles = append(e.cycles, append([]int(nil), e.path...))
		// Copying the cycle costs about as much as l search steps.
		e.steps -= l
	}
	if l == e.maxLen {
		return
	}
	for _, w := range e.out[v] {
		// The cycle closed through w has at least l + dist[w] items.
		if w <= e.s || e.onPath[w] || e.dist[w] > e.maxLen-l {
			continue
		}
		e.steps--
		if e.steps < 0 {
			e.stop = true
			return
		}
		e.path = append(e.path, w)
		e.onPath[w] = true
		e.visit(w)
		e.onPath[w] = false
		e.path = e.path[:l]
		if e.stop {
			return
		}
	}
}

// InCycle reports for every item whether it lies on some directed cycle of
// the majority graph (of any length), that is whether its strongly connected
// component has more than one item. Such items have no place in a ranking
// consistent with all majority preferences.
func InCycle(wins [][]float64) []bool {
	adj, n := majority("InCycle", wins)
	comp := sccs(n, func(v, w int) bool { return adj[v*n+w] })
	size := make(map[int]int)
	for _, c := range comp {
		size[c]++
	}
	flags := make([]bool, n)
	for v, c := range comp {
		flags[v] = size[c] > 1
	}
	return flags
}

// sccs labels the strongly connected components of a directed graph with n
// vertices (gonum's Tarjan); vertices with the same label share a
// component. edge reports whether v→w is an edge.
func sccs(n int, edge func(v, w int) bool) []int {
	g := simple.NewDirectedGraph()
	for v := range n {
		g.AddNode(simple.Node(v))
	}
	for v := range n {
		for w := range n {
			if v != w && edge(v, w) {
				g.SetEdge(simple.Edge{F: simple.Node(v), T: simple.Node(w)})
			}
		}
	}
	comp := make([]int, n)
	for label, c := range topo.TarjanSCC(g) {
		for _, v := range c {
			comp[v.ID()] = label
		}
	}
	return comp
}

// BradleyTerry returns the maximum-likelihood Bradley–Terry log-strengths β
// of the items, with the last item fixed at β = 0, under
//
//	P(i beats j) = 1/(1 + exp(-(β_i - β_j)))
//
// over all recorded games (wins[i][j] games won by i against j; the diagonal
// is ignored). It maximises the log-likelihood Σ_{i≠j} wins[i][j]·log P(i
// beats j) by Newton's method with step halving, which converges because the
// log-likelihood is concave.
//
// The MLE exists iff the graph with an edge i→j whenever wins[i][j] > 0 is
// strongly connected (every item has beaten, and been beaten by, the rest
// through some chain of wins); otherwise an error is returned. Empty input
// and negative or non-finite wins are errors too; a non-square matrix
// panics. A single item gets β = [0].
func BradleyTerry(wins [][]float64) ([]float64, error) {
	beta, _, err := bradleyTerry("BradleyTerry", wins)
	return beta, err
}

// BradleyTerryCI returns the Bradley–Terry log-strengths with Wald intervals
// β_i ∓ z·se_i, where the standard errors come from the inverse of the
// Fisher information (the negative Hessian of the log-likelihood at the MLE)
// with the last item fixed at 0. The intervals are therefore relative to the
// last item, whose estimate is {0, 0, 0}. Errors are those of BradleyTerry,
// plus a confidence outside (0, 1).
func BradleyTerryCI(wins [][]float64, confidence float64) ([]Estimate, error) {
	if err := checkConfidence("BradleyTerryCI", confidence); err != nil {
		return nil, err
	}
	beta, info, err := bradleyTerry("BradleyTerryCI", wins)
	if err != nil {
		return nil, err
	}
	z := normalCrit(confidence)
	est := make([]Estimate, len(beta))
	m := len(beta) - 1
	if m > 0 {
		var chol mat.Cholesky
		if !chol.Factorize(info) {
			return nil, errors.New("analysis: BradleyTerryCI: Fisher information is not positive definite")
		}
		var cov mat.SymDense
		if err := chol.InverseTo(&cov); err != nil {
			return nil, fmt.Errorf("analysis: BradleyTerryCI: %w", err)
		}
		for i := 0; i < m; i++ {
			h := z * math.Sqrt(cov.At(i, i))
			est[i] = Estimate{Value: beta[i], Lo: beta[i] - h, Hi: beta[i] + h}
		}
	}
	est[m] = Estimate{}
	return est, nil
}

// bradleyTerry fits the model and also returns the Fisher information of the
// first n-1 log-strengths at the MLE (nil for a single item).
func bradleyTerry(fn string, wins [][]float64) ([]float64, *mat.SymDense, error) {
	n := len(wins)
	if err := checkWins(fn, wins); err != nil {
		return nil, nil, err
	}
	if n == 1 {
		return []float64{0}, nil, nil
	}

	m := n - 1 // free parameters; beta[m] stays 0
	beta := make([]float64, n)
	trial := make([]float64, n)
	grad := make([]float64, m)
	info := mat.NewSymDense(m, nil)
	ll := btLogLik(wins, beta)
	var games float64
	for i := 0; i < n; i++ {
		for j := 0; j < n; j++ {
			if i != j {
				games += wins[i][j]
			}
		}
	}
	const maxIter = 200
	for iter := 0; ; iter++ {
		btGradInfo(wins, beta, grad, info)
		var gmax float64
		for _, g := range grad {
			gmax = math.Max(gmax, math.Abs(g))
		}
		// The gradient is a sum of per-game residuals; stop when it is at
		// rounding level relative to the number of games.
		if gmax <= 1e-13*games {
			return beta, info, nil
		}
		if iter == maxIter {
			return nil, nil, fmt.Errorf("analysis: %s: Newton iteration did not converge in %d steps", fn, maxIter)
		}
		var chol mat.Cholesky
		if !chol.Factorize(info) {
			return nil, nil, fmt.Errorf("analysis: %s: Fisher information is not positive definite", fn)
		}
		var step mat.VecDense
		if err := chol.SolveVecTo(&step, mat.NewVecDense(m, grad)); err != nil {
			return nil, nil, fmt.Errorf("analysis: %s: %w", fn, err)
		}
		var smax float64
		for i := 0; i < m; i++ {
			smax = math.Max(smax, math.Abs(step.AtVec(i)))
		}
		if smax <= 1e-12 {
			// Newton converges quadratically, so a step this small leaves
			// beta within rounding of the MLE.
			for i := 0; i < m; i++ {
				beta[i] += step.AtVec(i)
			}
			btGradInfo(wins, beta, grad, info)
			return beta, info, nil
		}
		// Halve the Newton step until the log-likelihood does not decrease.
		// Near the optimum a full step changes the log-likelihood by less
		// than its rounding error, so decreases within that slack count as
		// no change.
		slack := 1e-12 * (1 + math.Abs(ll))
		t := 1.0
		improved := false
		for half := 0; half < 60; half++ {
			for i := 0; i < m; i++ {
				trial[i] = beta[i] + t*step.AtVec(i)
			}
			if llt := btLogLik(wins, trial); llt >= ll-slack {
				copy(beta, trial)
				ll = llt
				improved = true
				break
			}
			t /= 2
		}
		if !improved {
			// No step improves the likelihood: beta is at the optimum to
			// working precision.
			return beta, info, nil
		}
	}
}

// checkWins refuses a win matrix the Bradley–Terry MLE does not exist for
// (bradleyTerry): none, a count that is not finite and >= 0, or a graph of
// wins that is not strongly connected. A matrix that is not square is a
// caller's bug.
func checkWins(fn string, wins [][]float64) error {
	n := len(wins)
	if n == 0 {
		return fmt.Errorf("analysis: %s: no items", fn)
	}
	for i, row := range wins {
		if len(row) != n {
			panic(fmt.Sprintf("analysis: %s: wins is not square: row %d has %d entries, want %d", fn, i, len(row), n))
		}
		for j, w := range row {
			if i != j && !(w >= 0 && !math.IsInf(w, 1)) {
				return fmt.Errorf("analysis: %s: wins[%d][%d] = %v, want a finite count >= 0", fn, i, j, w)
			}
		}
	}
	comp := sccs(n, func(v, w int) bool { return wins[v][w] > 0 })
	for _, c := range comp {
		if c != comp[0] {
			return fmt.Errorf("analysis: %s: the MLE does not exist: the graph of wins (i→j when i beat j at least once) is not strongly connected", fn)
		}
	}
	return nil
}

// btLogLik is Σ_{i≠j} wins[i][j]·log σ(β_i - β_j).
func btLogLik(wins [][]float64, beta []float64) float64 {
	var ll float64
	for i, row := range wins {
		for j, w := range row {
			if i != j && w > 0 {
				ll += w * logSigmoid(beta[i]-beta[j])
			}
		}
	}
	return ll
}

// btGradInfo writes the gradient of the log-likelihood and the Fisher
// information (negative Hessian) for the first len(grad) parameters.
//
//	grad_i = Σ_j (w_ij - n_ij·p_ij),  info_ii = Σ_j n_ij·p_ij·(1-p_ij),
//	info_ij = -n_ij·p_ij·(1-p_ij),   n_ij = w_ij + w_ji,  p_ij = σ(β_i - β_j)
func btGradInfo(wins [][]float64, beta, grad []float64, info *mat.SymDense) {
	m := len(grad)
	n := len(beta)
	for i := 0; i < m; i++ {
		grad[i] = 0
		for j := i; j < m; j++ {
			info.SetSym(i, j, 0)
		}
	}
	for i := 0; i < m; i++ {
		var g, d float64
		for j := 0; j < n; j++ {
			if j == i {
				continue
			}
			nij := wins[i][j] + wins[j][i]
			if nij == 0 {
				continue
			}
			p := sigmoid(beta[i] - beta[j])
			g += wins[i][j] - nij*p
			v := nij * p * (1 - p)
			d += v
			if j > i && j < m {
				info.SetSym(i, j, -v)
			}
		}
		grad[i] = g
		info.SetSym(i, i, d)
	}
}

// sigmoid is 1/(1 + exp(-x)).
func sigmoid(x float64) float64 {
	if x >= 0 {
		return 1 / (1 + math.Exp(-x))
	}
	e := math.Exp(x)
	return e / (1 + e)
}

// logSigmoid is log σ(x), computed without overflow.
func logSigmoid(x float64) float64 {
	if x >= 0 {
		return -math.Log1p(math.Exp(-x))
	}
	return x - math.Log1p(math.Exp(x))
}
