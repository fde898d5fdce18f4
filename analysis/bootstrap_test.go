package analysis

import (
	"math"
	"math/rand/v2"
	"testing"
)

// TestQuantile7 checks the interpolated quantile against numpy.quantile
// values worked by hand: for [1 2 3 4], h = 3q, so q = 0.025 gives
// 1 + 0.075 = 1.075 and q = 0.975 gives 3 + 0.925 = 3.925.
func TestQuantile7(t *testing.T) {
	tests := []struct {
		data []float64
		q    float64
		want float64
	}{
		{[]float64{1, 2, 3, 4}, 0.025, 1.075},
		{[]float64{1, 2, 3, 4}, 0.975, 3.925},
		{[]float64{1, 2, 3, 4}, 0.5, 2.5},
		{[]float64{1, 2, 3, 4}, 0, 1},
		{[]float64{1, 2, 3, 4}, 1, 4},
		{[]float64{7}, 0.3, 7},
	}
	for _, tt := range tests {
		if got := quantile7(tt.data, tt.q); math.Abs(got-tt.want) > 1e-12 {
			t.Errorf("quantile7(%v, %v) = %v, want %v", tt.data, tt.q, got, tt.want)
		}
	}
}

// TestBootstrapMean checks the percentile interval of a mean against the
// large-sample normal theory it must approach (an independent computation):
// for 400 standard-normal draws the 95% interval is about
// mean ∓ 1.96·s/sqrt(n). Tolerance: 15% of the half-width, several times
// the Monte Carlo error of 2,000 resamples.
func TestBootstrapMean(t *testing.T) {
	rng := rand.New(rand.NewPCG(42, 42))
	x := make([]float64, 400)
	for i := range x {
		x[i] = rng.NormFloat64()
	}
	mean := func(idx []int) float64 {
		var s float64
		for _, i := range idx {
			s += x[i]
		}
		return s / float64(len(idx))
	}
	got, err := Bootstrap(len(x), mean, 2000, 0.95, 1)
	if err != nil {
		t.Fatal(err)
	}
	m, sem, _ := meanSEM(x)
	if math.Abs(got.Value-m) > 1e-12 {
		t.Errorf("value: got %v, want the sample mean %v", got.Value, m)
	}
	half := 1.959963984540054 * sem
	if math.Abs(got.Lo-(m-half)) > 0.15*half || math.Abs(got.Hi-(m+half)) > 0.15*half {
		t.Errorf("interval: got [%v, %v], want about [%v, %v]", got.Lo, got.Hi, m-half, m+half)
	}

	again, _ := Bootstrap(len(x), mean, 2000, 0.95, 1)
	if again != got {
		t.Errorf("same seed: got %+v then %+v", got, again)
	}
	other, _ := Bootstrap(len(x), mean, 2000, 0.95, 2)
	if other == got {
		t.Errorf("different seeds gave the same interval %+v", got)
	}
}

// TestBootstrapDegenerate shows NaN handling, a single row, and errors.
func TestBootstrapDegenerate(t *testing.T) {
	// A single row: every resample is that row, so the interval collapses.
	one, err := Bootstrap(1, func(idx []int) float64 { return 5 }, 100, 0.95, 1)
	if err != nil || one != (Estimate{5, 5, 5}) {
		t.Errorf("one row: got %+v, %v; want {5 5 5}, nil", one, err)
	}
	// NaN on resamples that contain row 0 is skipped; the rest is 1.
	skip, err := Bootstrap(3, func(idx []int) float64 {
		for _, i := range idx {
			if i == 0 {
				return math.NaN()
			}
		}
		return 1
	}, 200, 0.95, 1)
	if err != nil || !math.IsNaN(skip.Value) || skip.Lo != 1 || skip.Hi != 1 {
		t.Errorf("NaN resamples: got %+v, %v; want {NaN 1 1}, nil", skip, err)
	}
	all, err := Bootstrap(3, func([]int) float64 { return math.NaN() }, 50, 0.95, 1)
	if err != nil || !allNaN(all.Value, all.Lo, all.Hi) {
		t.Errorf("all NaN: got %+v, %v; want NaN, nil", all, err)
	}
	stat := func([]int) float64 { return 0 }
	errCases := []struct {
		name       string
		n          int
		stat       func([]int) float64
		resamples  int
		confidence float64
	}{
		{"n zero", 0, stat, 10, 0.95},
		{"nil stat", 3, nil, 10, 0.95},
		{"no resamples", 3, stat, 0, 0.95},
		{"confidence 0", 3, stat, 10, 0},
		{"confidence 1", 3, stat, 10, 1},
	}
	for _, tt := range errCases {
		if _, err := Bootstrap(tt.n, tt.stat, tt.resamples, tt.confidence, 1); err == nil {
			t.Errorf("%s: want an error", tt.name)
		}
	}
}

// naiveStrengthBootstrap is the direct computation that StrengthBootstrap
// speeds up: the same draws from the same per-resample generators, run
// sequentially, then per annotator a loop
// over the drawn comparisons counting agreements and disagreements. It is
// the independent check of the bit-plane counting.
func naiveStrengthBootstrap(ref []Vote, anns [][]Vote, resamples int, confidence float64, seed uint64) []Estimate {
	var kept []int
	for i, r := range ref {
		if r == VoteA || r == VoteB {
			kept = append(kept, i)
		}
	}
	m := len(kept)
	vals := make([][]float64, len(anns))
	draw := make([]int, m)
	for r := 0; r < resamples; r++ {
		rng := rand.New(rand.NewPCG(resampleSeed(seed, streamStrength, r)))
		for d := range draw {
			draw[d] = kept[rng.IntN(m)]
		}
		for a, ann := range anns {
			agree, disagree := 0, 0
			for _, i := range draw {
				if ann[i] == ref[i] {
					agree++
				} else if ann[i] == VoteA || ann[i] == VoteB {
					disagree++
				}
			}
			vals[a] = append(vals[a], AgreementFromCounts(m, agree, disagree).Strength)
		}
	}
	out := make([]Estimate, len(anns))
	for a := range anns {
		out[a].Value = AgreementCodes(ref, anns[a]).Strength
		out[a].Lo, out[a].Hi = percentileInterval(vals[a], confidence)
	}
	return out
}

// TestStrengthBootstrap compares StrengthBootstrap with the naive
// computation exactly (integer counts, same draws) for sizes that exercise
// one word, word boundaries and high multiplicities.
func TestStrengthBootstrap(t *testing.T) {
	rng := rand.New(rand.NewPCG(9, 9))
	for _, n := range []int{1, 2, 3, 64, 65, 130, 500} {
		ref := randomVotes(rng, n)
		if n <= 3 {
			for i := range ref {
				ref[i] = VoteA // keep every comparison so multiplicities reach n
			}
		}
		anns := make([][]Vote, 5)
		for a := range anns {
			anns[a] = randomVotes(rng, n)
		}
		anns[0] = ref // perfect agreement
		got, err := StrengthBootstrap(ref, anns, 300, 0.9, uint64(n))
		if err != nil {
			t.Fatal(err)
		}
		want := naiveStrengthBootstrap(ref, anns, 300, 0.9, uint64(n))
		for a := range want {
			if !sameFloat(got[a].Value, want[a].Value) || !sameFloat(got[a].Lo, want[a].Lo) || !sameFloat(got[a].Hi, want[a].Hi) {
				t.Errorf("n=%d annotator %d: got %+v, want %+v", n, a, got[a], want[a])
			}
		}
		if got[0] != (Estimate{1, 1, 1}) && n > 0 {
			t.Errorf("n=%d: annotator equal to ref: got %+v, want {1 1 1}", n, got[0])
		}
	}
}

// TestStrengthBootstrapDegenerate shows no kept comparison and the errors.
func TestStrengthBootstrapDegenerate(t *testing.T) {
	ref := []Vote{VoteTie, VoteNone}
	got, err := StrengthBootstrap(ref, [][]Vote{{VoteA, VoteB}}, 10, 0.95, 1)
	if err != nil || len(got) != 1 || !allNaN(got[0].Value, got[0].Lo, got[0].Hi) {
		t.Errorf("no kept comparison: got %+v, %v; want one NaN estimate", got, err)
	}
	wantPanic(t, "StrengthBootstrap", func() { StrengthBootstrap(ref, [][]Vote{{VoteA}}, 10, 0.95, 1) })
	if _, err := StrengthBootstrap(ref, nil, 0, 0.95, 1); err == nil {
		t.Error("no resamples: want an error")
	}
	if _, err := StrengthBootstrap(ref, nil, 10, 1.2, 1); err == nil {
		t.Error("confidence 1.2: want an error")
	}
}

// BenchmarkStrengthBootstrap is the dashboard's largest case: 52 annotators
// × 50,000 comparisons × 1,000 resamples per operation.
func BenchmarkStrengthBootstrap(b *testing.B) {
	rng := rand.New(rand.NewPCG(5, 5))
	const n, nAnn = 50_000, 52
	ref := randomVotes(rng, n)
	anns := make([][]Vote, nAnn)
	for a := range anns {
		anns[a] = randomVotes(rng, n)
	}
	for b.Loop() {
		if _, err := StrengthBootstrap(ref, anns, 1000, 0.95, 1); err != nil {
			b.Fatal(err)
		}
	}
}
