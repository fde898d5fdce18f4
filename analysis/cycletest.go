package analysis

import (
	"math"
	"math/rand/v2"

	"gonum.org/v1/gonum/stat/distuv"
)

// EdgeP is the two-sided exact binomial p-value of an edge of the majority
// graph: wins against losses (ties left out) under a coin flip, min(1,
// 2·P(X ≤ min(wins, losses))) (scipy's binomtest at ½). An edge of 18
// wins to 10 is p = 0.185: a cycle of such edges is what chance gives.
func EdgeP(wins, losses int) float64 {
	n := wins + losses
	if n == 0 {
		return math.NaN()
	}
	return math.Min(1, 2*distuv.Binomial{N: float64(n), P: 0.5}.CDF(float64(min(wins, losses))))
}

// CycleP is the p-value of a cycle as a finding: the largest of its edges'
// EdgeP (every edge must hold for the cycle to, an intersection–union
// test), so a cycle is called a finding only when each of its edges is.
func CycleP(wins [][]float64, cycle []int) float64 {
	p := 0.0
	for k, i := range cycle {
		j := cycle[(k+1)%len(cycle)]
		p = math.Max(p, EdgeP(int(math.Round(wins[i][j])), int(math.Round(wins[j][i]))))
	}
	return p
}

// TransitiveCycles is the parametric bootstrap test of "at least this many
// 3-cycles": the win matrix's own Bradley–Terry fit (transitive by
// construction) replays every pair's comparisons (as many as the pair had,
// ties left out) replications times, and P is the share of replays with at
// least the observed count of 3-cycles in their majority graph, (1 + k)/(B
// + 1). A transitive model with close strengths makes cycles by chance (in
// the demo, at least one in 29% of replays): a count near Mean is no
// evidence of intransitivity.
type TransitiveCycles struct {
	Observed     int
	Mean         float64 // 3-cycles per replay
	P            float64
	Replications int
}

// TestTransitiveCycles runs the test with a fixed seed. It fails when the
// Bradley–Terry fit does not exist (an item that never loses or never
// wins), which the caller says.
func TestTransitiveCycles(wins [][]float64, replications int, seed uint64) (TransitiveCycles, error) {
	out := TransitiveCycles{Observed: CountCycles3(wins), P: math.NaN(), Mean: math.NaN(), Replications: replications}
	beta, err := BradleyTerry(wins)
	if err != nil {
		return out, err
	}
	n := len(wins)
	rng := rand.New(rand.NewPCG(seed, 0x6379636c6573)) // "cycles"
	sim := make([][]float64, n)
	for i := range sim {
		sim[i] = make([]float64, n)
	}
	k, total := 0, 0
	for range replications {
		for i := range n {
			for j := i + 1; j < n; j++ {
				m := int(math.Round(wins[i][j] + wins[j][i]))
				p := sigmoid(beta[i] - beta[j])
				w := 0
				for range m {
					if rng.Float64() < p {
						w++
					}
				}
				sim[i][j], sim[j][i] = float64(w), float64(m-w)
			}
		}
		c := CountCycles3(sim)
		total += c
		if c >= out.Observed {
			k++
		}
	}
	out.P = float64(1+k) / float64(replications+1)
	out.Mean = float64(total) / float64(replications)
	return out, nil
}
