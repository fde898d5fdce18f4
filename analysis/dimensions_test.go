package analysis

import (
	"fmt"
	"gonum.org/v1/gonum/floats"
	"math"
	"math/rand/v2"
	"testing"
)

// TestDimensionsHandWorked checks each dimension on a small input whose
// values are worked by hand; the intervals reuse Wilson and MeanCI, which
// are checked against statsmodels and scipy in interval_test.go.
func TestDimensionsHandWorked(t *testing.T) {
	in := DimensionInput{
		Quality:       []float64{60, 80, 70},
		FalsePositive: []bool{false, true, false, false},
		Production: []ProductionAudit{
			{"a", 10}, {"b", 5}, {"a", 20}, {"c", 30}, {"c", 30}, {"c", 0},
		},
		Realism: []string{"win", "loss", "tie", "loss"},
	}
	got, err := Dimensions(in, 0.95, 500, 1)
	if err != nil {
		t.Fatal(err)
	}
	// Quality: mean 70.
	wantQ, _ := MeanCI([]float64{60, 80, 70}, 0.95)
	// FP: 1 of 4 → 100·(1 - 1/4) = 75, bounds from the FP rate's Wilson interval.
	fpRate, _ := Wilson(1, 4, 0.95)
	wantFP := Estimate{75, 100 * (1 - fpRate.Hi), 100 * (1 - fpRate.Lo)}
	// Production: seed means a 15, b 5, c 20 → 40/3.
	wantP, _ := MeanCI([]float64{15, 5, 20}, 0.95)
	// Realism: (1 + 0.5)/4 = 37.5%.
	re, _ := Wilson(1.5, 4, 0.95)
	wantR := Estimate{37.5, 100 * re.Lo, 100 * re.Hi}
	checks := []struct {
		name string
		got  DimensionScore
		want Estimate
		n    int
	}{
		{"quality", got.AuditQuality, wantQ, 3},
		{"fp", got.FPCalibration, wantFP, 4},
		{"production", got.Production, wantP, 3},
		{"realism", got.Realism, wantR, 4},
	}
	for _, c := range checks {
		if c.got.N != c.n || !closeEst(c.got.Estimate, c.want, 1e-12) {
			t.Errorf("%s: got %+v (N %d), want %+v (N %d)", c.name, c.got.Estimate, c.got.N, c.want, c.n)
		}
	}
	if math.Abs(wantP.Value-40.0/3) > 1e-12 {
		t.Errorf("production value: got %v, want 40/3", wantP.Value)
	}
	wantComposite := (70 + 75 + 40.0/3 + 37.5) / 4
	if c := got.Composite; math.Abs(c.Value-wantComposite) > 1e-12 || c.N != 4 || !(c.Lo <= c.Value && c.Value <= c.Hi) {
		t.Errorf("composite: got %+v, want value %v inside [Lo, Hi], N 4", c, wantComposite)
	}
	again, _ := Dimensions(in, 0.95, 500, 1)
	if again != got {
		t.Errorf("same seed: got %+v then %+v", got.Composite, again.Composite)
	}
}

func closeEst(a, b Estimate, eps float64) bool {
	return math.Abs(a.Value-b.Value) <= eps && math.Abs(a.Lo-b.Lo) <= eps && math.Abs(a.Hi-b.Hi) <= eps
}

// TestDimensionsCompositeInterval checks the composite bootstrap against
// normal theory (an independent computation): the four resampled means are
// independent, so the composite's standard error is
// sqrt(Σ se_d²)/4 with se_d = 100·sd_d/sqrt(n_d) (sd with divisor n, as the
// bootstrap uses), and the 95% interval is about value ∓ 1.96·se.
// Tolerance: 15% of the half-width, several times the Monte Carlo error.
func TestDimensionsCompositeInterval(t *testing.T) {
	rng := rand.New(rand.NewPCG(2, 3))
	var in DimensionInput
	for i := 0; i < 400; i++ {
		in.Quality = append(in.Quality, 60+15*rng.NormFloat64())
		in.FalsePositive = append(in.FalsePositive, rng.Float64() < 0.1)
		in.Realism = append(in.Realism, []string{"win", "loss", "loss", "tie"}[rng.IntN(4)])
	}
	for i := 0; i < 200; i++ {
		in.Production = append(in.Production, ProductionAudit{fmt.Sprint("seed", i), 10 + 8*rng.NormFloat64()})
	}
	got, err := Dimensions(in, 0.95, 4000, 7)
	if err != nil {
		t.Fatal(err)
	}
	popVar := func(v []float64) float64 {
		m := floats.Sum(v) / float64(len(v))
		var ss float64
		for _, x := range v {
			ss += (x - m) * (x - m)
		}
		return ss / float64(len(v)) / float64(len(v))
	}
	fp := make([]float64, 400)
	re := make([]float64, 400)
	for i := range fp {
		if in.FalsePositive[i] {
			fp[i] = 100
		}
		re[i] = 100 * map[string]float64{"win": 1, "tie": 0.5, "loss": 0}[in.Realism[i]]
	}
	prod := make([]float64, 200)
	for i, a := range in.Production {
		prod[i] = a.Value
	}
	se := math.Sqrt(popVar(in.Quality)+popVar(fp)+popVar(prod)+popVar(re)) / 4
	half := 1.959963984540054 * se
	c := got.Composite
	if math.Abs(c.Lo-(c.Value-half)) > 0.15*half || math.Abs(c.Hi-(c.Value+half)) > 0.15*half {
		t.Errorf("composite interval: got [%v, %v] around %v, want about ∓%v", c.Lo, c.Hi, c.Value, half)
	}
}

// TestDimensionsDegenerate shows missing dimensions, single observations,
// constant data and the errors.
func TestDimensionsDegenerate(t *testing.T) {
	full := DimensionInput{
		Quality:       []float64{50, 50},
		FalsePositive: []bool{false, false},
		Production:    []ProductionAudit{{"s", 20}, {"t", 20}},
		Realism:       []string{"tie", "tie"},
	}
	// Constant data: every resample gives the same composite, (50+100+20+50)/4.
	got, err := Dimensions(full, 0.95, 200, 1)
	if err != nil {
		t.Fatal(err)
	}
	if c := got.Composite; c.Value != 55 || c.Lo != 55 || c.Hi != 55 {
		t.Errorf("constant data: composite %+v, want {55 55 55}", c.Estimate)
	}

	// A missing dimension makes the composite NaN.
	noRealism := full
	noRealism.Realism = nil
	got, err = Dimensions(noRealism, 0.95, 200, 1)
	if err != nil {
		t.Fatal(err)
	}
	if got.Realism.N != 0 || !allNaN(got.Realism.Value, got.Realism.Lo, got.Realism.Hi) {
		t.Errorf("missing realism: got %+v", got.Realism)
	}
	if got.Composite.N != 3 || !allNaN(got.Composite.Value, got.Composite.Lo, got.Composite.Hi) {
		t.Errorf("missing realism: composite %+v, want NaN with N 3", got.Composite)
	}

	// Single quality audit and single seed: values but NaN t-interval bounds.
	single := full
	single.Quality = []float64{72}
	single.Production = []ProductionAudit{{"s", 8}, {"s", 10}}
	got, err = Dimensions(single, 0.95, 0, 1)
	if err != nil {
		t.Fatal(err)
	}
	if q := got.AuditQuality; q.Value != 72 || q.N != 1 || !allNaN(q.Lo, q.Hi) {
		t.Errorf("single audit: quality %+v, want 72 with NaN bounds", q)
	}
	if p := got.Production; p.Value != 9 || p.N != 1 || !allNaN(p.Lo, p.Hi) {
		t.Errorf("single seed: production %+v, want 9 with NaN bounds, N 1", p)
	}
	if c := got.Composite; c.Value != (72+100+9+50)/4.0 || !allNaN(c.Lo, c.Hi) {
		t.Errorf("no resamples: composite %+v, want value with NaN bounds", c)
	}

	empty, err := Dimensions(DimensionInput{}, 0.95, 100, 1)
	if err != nil || empty.Composite.N != 0 || !math.IsNaN(empty.Composite.Value) {
		t.Errorf("empty input: got %+v, %v", empty, err)
	}

	errCases := []struct {
		name       string
		in         DimensionInput
		confidence float64
		resamples  int
	}{
		{"confidence 0", full, 0, 10},
		{"confidence 1", full, 1, 10},
		{"negative resamples", full, 0.95, -1},
		{"NaN quality", DimensionInput{Quality: []float64{math.NaN()}}, 0.95, 10},
		{"Inf production", DimensionInput{Production: []ProductionAudit{{"s", math.Inf(1)}}}, 0.95, 10},
		{"unknown realism outcome", DimensionInput{Realism: []string{"win", "draw"}}, 0.95, 10},
	}
	for _, tt := range errCases {
		if _, err := Dimensions(tt.in, tt.confidence, tt.resamples, 1); err == nil {
			t.Errorf("%s: want an error", tt.name)
		}
	}
}

// BenchmarkDimensions uses the paper's sizes: 96 quality audits, 270 FP
// audits, 181 seeds × 3 production audits, 40 realism judgments, and 1,000
// composite resamples.
func BenchmarkDimensions(b *testing.B) {
	rng := rand.New(rand.NewPCG(4, 4))
	var in DimensionInput
	for i := 0; i < 96; i++ {
		in.Quality = append(in.Quality, 100*rng.Float64())
	}
	for i := 0; i < 270; i++ {
		in.FalsePositive = append(in.FalsePositive, rng.IntN(100) == 0)
	}
	for i := 0; i < 543; i++ {
		in.Production = append(in.Production, ProductionAudit{fmt.Sprint(i / 3), 30 * rng.Float64()})
	}
	for i := 0; i < 40; i++ {
		in.Realism = append(in.Realism, []string{"win", "loss", "tie"}[rng.IntN(3)])
	}
	for b.Loop() {
		if _, err := Dimensions(in, 0.95, 1000, 1); err != nil {
			b.Fatal(err)
		}
	}
}
