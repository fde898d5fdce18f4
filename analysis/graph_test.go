package analysis

import (
	"math"
	"math/rand/v2"
	"reflect"
	"slices"
	"testing"
	"time"
)

// cyclesCase is one case of cycles.json (networkx 2.8.8 simple_cycles,
// cross-checked there by brute force).
type cyclesCase struct {
	Name         string      `json:"name"`
	Wins         [][]float64 `json:"wins"`
	Edges        [][2]int    `json:"edges"`
	OutDegrees   []int       `json:"out_degrees"`
	IsTournament bool        `json:"is_tournament"`
	Cycles3      [][]int     `json:"cycles3"`
	NCycles3     int         `json:"n_cycles3"`
	C3Formula    *int        `json:"c3_formula"`
	CyclesLE5    [][]int     `json:"cycles_le5"`
}

// TestCyclesReference checks every case of cycles.json: edges, out-degrees,
// the listed 3-cycles and cycles of length <= 5 (exact lists in canonical
// order), the 3-cycle count from CountCycles3, and the Kendall–Babington
// Smith formula for tournaments.
func TestCyclesReference(t *testing.T) {
	for _, c := range loadRef[cyclesCase](t, "cycles.json") {
		t.Run(c.Name, func(t *testing.T) {
			if got := MajorityEdges(c.Wins); !sameIndexLists(got, c.Edges) {
				t.Errorf("edges: got %v, want %v", got, c.Edges)
			}
			if got := OutDegrees(c.Wins); !reflect.DeepEqual(got, c.OutDegrees) {
				t.Errorf("out_degrees: got %v, want %v", got, c.OutDegrees)
			}
			if got := Cycles(c.Wins, 3); !sameCycles(got, c.Cycles3) {
				t.Errorf("cycles3: got %v, want %v", got, c.Cycles3)
			}
			if got := len(Cycles(c.Wins, 3)); got != c.NCycles3 {
				t.Errorf("n_cycles3 from Cycles: got %d, want %d", got, c.NCycles3)
			}
			if got := CountCycles3(c.Wins); got != c.NCycles3 {
				t.Errorf("n_cycles3 from CountCycles3: got %d, want %d", got, c.NCycles3)
			}
			got, capped := CyclesCapped(c.Wins, 5, 0)
			if capped || !sameCycles(got, c.CyclesLE5) {
				t.Errorf("cycles_le5: got %v (capped %v), want %v", got, capped, c.CyclesLE5)
			}
			if c.C3Formula != nil {
				if !c.IsTournament {
					t.Fatalf("c3_formula given for a non-tournament")
				}
				if got := kendallC3(OutDegrees(c.Wins)); got != *c.C3Formula {
					t.Errorf("c3_formula: got %d, want %d", got, *c.C3Formula)
				}
			}
		})
	}
}

// kendallC3 is C(n,3) - Σ C(s_i, 2), the 3-cycle count of a tournament.
func kendallC3(deg []int) int {
	n := len(deg)
	c := n * (n - 1) * (n - 2) / 6
	for _, s := range deg {
		c -= s * (s - 1) / 2
	}
	return c
}

func sameIndexLists(got [][2]int, want [][2]int) bool {
	if len(got) == 0 && len(want) == 0 {
		return true
	}
	return reflect.DeepEqual(got, want)
}

func sameCycles(got, want [][]int) bool {
	if len(got) == 0 && len(want) == 0 {
		return true
	}
	return reflect.DeepEqual(got, want)
}

// randomWins returns an n-item wins matrix from a seeded generator. With
// tournament set no pair is equal; otherwise about a fifth of the pairs are.
func randomWins(rng *rand.Rand, n int, tournament bool) [][]float64 {
	w := make([][]float64, n)
	for i := range w {
		w[i] = make([]float64, n)
	}
	for i := 0; i < n; i++ {
		for j := i + 1; j < n; j++ {
			a, b := float64(rng.IntN(5)), float64(rng.IntN(5))
			if tournament && a == b {
				a++
			}
			if !tournament && rng.IntN(5) == 0 {
				b = a
			}
			w[i][j], w[j][i] = a, b
		}
	}
	return w
}

// bruteCycles lists all elementary cycles with 3..maxLen items by trying
// every sequence of distinct items that starts with its smallest one, then
// sorts them with slices.Compare (lexicographic, proper prefix first). It is
// an independent check of the search and ordering in CyclesCapped.
func bruteCycles(wins [][]float64, maxLen int) [][]int {
	n := len(wins)
	edge := func(i, j int) bool { return wins[i][j] > wins[j][i] }
	var out [][]int
	var extend func(path []int, used []bool)
	extend = func(path []int, used []bool) {
		if len(path) >= 3 && edge(path[len(path)-1], path[0]) {
			out = append(out, slices.Clone(path))
		}
		if len(path) == maxLen {
			return
		}
		for w := path[0] + 1; w < n; w++ {
			if !used[w] && edge(path[len(path)-1], w) {
				used[w] = true
				extend(append(path, w), used)
				used[w] = false
			}
		}
	}
	for s := 0; s < n; s++ {
		used := make([]bool, n)
		used[s] = true
		extend([]int{s}, used)
	}
	slices.SortFunc(out, slices.Compare)
	return out
}

// TestCyclesBruteForce compares CyclesCapped and CountCycles3 with the
// brute-force enumeration on random graphs, and InCycle with membership in
// any brute-force cycle.
func TestCyclesBruteForce(t *testing.T) {
	rng := rand.New(rand.NewPCG(7, 11))
	for trial := 0; trial < 40; trial++ {
		n := 3 + rng.IntN(6)
		wins := randomWins(rng, n, trial%2 == 0)
		for _, maxLen := range []int{2, 3, 4, 5, n} {
			want := bruteCycles(wins, maxLen)
			got, capped := CyclesCapped(wins, maxLen, 0)
			if capped || !sameCycles(got, want) {
				t.Fatalf("trial %d, maxLen %d: got %v (capped %v), want %v", trial, maxLen, got, capped, want)
			}
		}
		if got, want := CountCycles3(wins), len(bruteCycles(wins, 3)); got != want {
			t.Errorf("trial %d: CountCycles3 = %d, want %d", trial, got, want)
		}
		inAny := make([]bool, n)
		for _, c := range bruteCycles(wins, n) {
			for _, v := range c {
				inAny[v] = true
			}
		}
		if got := InCycle(wins); !reflect.DeepEqual(got, inAny) {
			t.Errorf("trial %d: InCycle = %v, want %v", trial, got, inAny)
		}
	}
}

// TestCyclesCap checks that a capped list is the canonical prefix and is
// reported as capped, and that the step budget bounds the work on 50 items
// with dense intransitivity and no length bound.
func TestCyclesCap(t *testing.T) {
	rng := rand.New(rand.NewPCG(3, 5))
	wins := randomWins(rng, 8, true)
	full, capped := CyclesCapped(wins, 8, 0)
	if capped || len(full) < 10 {
		t.Fatalf("setup: %d cycles, capped %v; want at least 10, not capped", len(full), capped)
	}
	part, capped := CyclesCapped(wins, 8, 10)
	if !capped || !reflect.DeepEqual(part, full[:10]) {
		t.Errorf("maxCycles 10: got %v (capped %v), want the first 10 of %v, capped", part, capped, full)
	}
	if got, capped := CyclesCapped(wins, 8, len(full)); capped || !reflect.DeepEqual(got, full) {
		t.Errorf("maxCycles = total: got %d cycles, capped %v; want all %d, not capped", len(got), capped, len(full))
	}

	big := randomWins(rand.New(rand.NewPCG(1, 1)), 50, true)
	start := time.Now()
	cycles, capped := CyclesCapped(big, 50, 0)
	elapsed := time.Since(start)
	if !capped {
		t.Errorf("50 items, no length bound: got %d cycles, not capped; want capped", len(cycles))
	}
	if !slices.IsSortedFunc(cycles, slices.Compare) {
		t.Error("50 items: capped list is not in canonical order")
	}
	t.Logf("50 items, maxLen 50: %d cycles listed in %v before the step budget ran out", len(cycles), elapsed)

	// A transitive order with one upset (49 beat 0) has 2^48 cycles, all
	// through 0 and 49; the budget must stop the search all the same.
	chain := make([][]float64, 50)
	for i := range chain {
		chain[i] = make([]float64, 50)
		for j := i + 1; j < 50; j++ {
			chain[i][j] = 1
		}
	}
	chain[0][49], chain[49][0] = 0, 1
	start = time.Now()
	cycles, capped = CyclesCapped(chain, 50, 0)
	if !capped || CountCycles3(chain) != 48 {
		t.Errorf("chain: capped %v, %d 3-cycles; want capped, 48", capped, CountCycles3(chain))
	}
	t.Logf("50-item chain with one upset: %d cycles listed in %v", len(cycles), time.Since(start))
}

// TestGraphDegenerate shows empty input, maxLen < 3 and the panics on a
// non-square matrix.
func TestGraphDegenerate(t *testing.T) {
	if got := Cycles(nil, 5); got != nil {
		t.Errorf("Cycles(nil): got %v, want nil", got)
	}
	if got := CountCycles3(nil); got != 0 {
		t.Errorf("CountCycles3(nil): got %d, want 0", got)
	}
	rps := [][]float64{{0, 3, 1}, {1, 0, 3}, {3, 1, 0}}
	for _, maxLen := range []int{-1, 0, 2} {
		if got := Cycles(rps, maxLen); got != nil {
			t.Errorf("Cycles(rps, %d): got %v, want nil", maxLen, got)
		}
	}
	if got := InCycle(rps); !reflect.DeepEqual(got, []bool{true, true, true}) {
		t.Errorf("InCycle(rps) = %v, want all true", got)
	}
	ragged := [][]float64{{0, 1}, {1}}
	for name, f := range map[string]func(){
		"MajorityEdges": func() { MajorityEdges(ragged) },
		"OutDegrees":    func() { OutDegrees(ragged) },
		"CountCycles3":  func() { CountCycles3(ragged) },
		"Cycles":        func() { Cycles(ragged, 3) },
		"InCycle":       func() { InCycle(ragged) },
	} {
		t.Run(name, func(t *testing.T) {
			defer func() {
				if recover() == nil {
					t.Error("non-square wins: want a panic")
				}
			}()
			f()
		})
	}
}

// TestBradleyTerryReference checks every case of bradley_terry.json
// (statsmodels GLM Binomial, cross-checked there with Logit and Hunter's MM
// algorithm) within 1e-6.
func TestBradleyTerryReference(t *testing.T) {
	type btCase struct {
		Name        string      `json:"name"`
		Wins        [][]float64 `json:"wins"`
		LogStrength []float64   `json:"log_strength"`
	}
	for _, c := range loadRef[btCase](t, "bradley_terry.json") {
		t.Run(c.Name, func(t *testing.T) {
			got, err := BradleyTerry(c.Wins)
			if err != nil {
				t.Fatal(err)
			}
			if len(got) != len(c.LogStrength) {
				t.Fatalf("len: got %d, want %d", len(got), len(c.LogStrength))
			}
			for i := range got {
				checkNum(t, "log_strength", got[i], c.LogStrength[i], tolAbs(1e-6))
			}
			if got[len(got)-1] != 0 {
				t.Errorf("last log-strength: got %v, want exactly 0", got[len(got)-1])
			}
		})
	}
}

// TestBradleyTerryCI checks the Wald interval on two items against the
// closed form: with a wins for item 0 and b for item 1, β0 = log(a/b) and
// se = sqrt(1/a + 1/b) (the binomial logit's standard error).
func TestBradleyTerryCI(t *testing.T) {
	const a, b = 7.0, 3.0
	est, err := BradleyTerryCI([][]float64{{0, a}, {b, 0}}, 0.95)
	if err != nil {
		t.Fatal(err)
	}
	z := 1.959963984540054
	se := math.Sqrt(1/a + 1/b)
	want := Estimate{Value: math.Log(a / b), Lo: math.Log(a/b) - z*se, Hi: math.Log(a/b) + z*se}
	if math.Abs(est[0].Value-want.Value) > 1e-9 || math.Abs(est[0].Lo-want.Lo) > 1e-9 || math.Abs(est[0].Hi-want.Hi) > 1e-9 {
		t.Errorf("item 0: got %+v, want %+v", est[0], want)
	}
	if est[1] != (Estimate{}) {
		t.Errorf("last item: got %+v, want the zero estimate", est[1])
	}
	if _, err := BradleyTerryCI([][]float64{{0, a}, {b, 0}}, 1); err == nil {
		t.Error("confidence 1: want an error")
	}
}

// TestBradleyTerryDegenerate shows the inputs for which the MLE does not
// exist or the input is unusable.
func TestBradleyTerryDegenerate(t *testing.T) {
	tests := []struct {
		name string
		wins [][]float64
	}{
		{"empty", nil},
		{"negative wins", [][]float64{{0, -1}, {1, 0}}},
		{"NaN wins", [][]float64{{0, math.NaN()}, {1, 0}}},
		{"never compared", [][]float64{{0, 0}, {0, 0}}},
		{"one item always wins", [][]float64{{0, 3}, {0, 0}}},
		// Two groups that never met: {0,1} and {2,3}.
		{"disconnected", [][]float64{{0, 2, 0, 0}, {1, 0, 0, 0}, {0, 0, 0, 1}, {0, 0, 4, 0}}},
		// A transitive chain with no upsets: 0 beats everyone.
		{"no upsets", [][]float64{{0, 2, 2}, {0, 0, 2}, {0, 0, 0}}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got, err := BradleyTerry(tt.wins); err == nil {
				t.Errorf("got %v, nil error; want an error", got)
			}
		})
	}
	wantPanic(t, "BradleyTerry", func() { BradleyTerry([][]float64{{0, 1}, {1}}) })
	got, err := BradleyTerry([][]float64{{0}})
	if err != nil || !reflect.DeepEqual(got, []float64{0}) {
		t.Errorf("single item: got %v, %v; want [0], nil", got, err)
	}
}

// BenchmarkCycles lists cycles of length <= 5 on a random 50-item
// tournament (dense intransitivity: about 4,900 3-cycles) with the default
// cap.
func BenchmarkCycles(b *testing.B) {
	wins := randomWins(rand.New(rand.NewPCG(1, 1)), 50, true)
	for b.Loop() {
		Cycles(wins, 5)
	}
}

// BenchmarkCountCycles3 counts 3-cycles on the same 50-item tournament.
func BenchmarkCountCycles3(b *testing.B) {
	wins := randomWins(rand.New(rand.NewPCG(1, 1)), 50, true)
	for b.Loop() {
		CountCycles3(wins)
	}
}

// BenchmarkBradleyTerry fits 50 items of a random tournament.
func BenchmarkBradleyTerry(b *testing.B) {
	wins := randomWins(rand.New(rand.NewPCG(1, 1)), 50, true)
	for b.Loop() {
		if _, err := BradleyTerry(wins); err != nil {
			b.Fatal(err)
		}
	}
}
