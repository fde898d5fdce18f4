package analysis

import (
	"math"
	"testing"
)

// TestClusterMeanCI: with one value a cluster it is the t interval; with
// clusters of equal size it is the t interval of the cluster means (the
// cluster-robust variance with G/(G−1) reduces to it), an independent
// route to the same number.
func TestClusterMeanCI(t *testing.T) {
	vals := []float64{3, 7, 1, 9, 4, 4, 8, 2}
	single := []int{0, 1, 2, 3, 4, 5, 6, 7}
	got, g, err := ClusterMeanCI(vals, single, 0.95)
	want, _ := MeanCI(vals, 0.95)
	if err != nil || g != 8 || !close9(got, want) {
		t.Errorf("singletons: %+v (%d clusters, %v), want %+v", got, g, err, want)
	}
	pairs := []int{0, 0, 1, 1, 2, 2, 3, 3}
	got, g, _ = ClusterMeanCI(vals, pairs, 0.95)
	want, _ = MeanCI([]float64{5, 5, 4, 5}, 0.95)
	if g != 4 || !close9(got, want) {
		t.Errorf("pairs: %+v (%d clusters), want the t interval of the cluster means %+v", got, g, want)
	}
	one, g, _ := ClusterMeanCI([]float64{2, 4}, []int{7, 7}, 0.95)
	if g != 1 || one.Value != 3 || !math.IsNaN(one.Lo) || !math.IsNaN(one.Hi) {
		t.Errorf("one cluster: %+v, want the mean and no interval", one)
	}
}

// TestClusterWilson: Wilson's interval on n for singletons, on the
// effective n (n over the design effect) for clusters; values from an
// independent computation in Python.
func TestClusterWilson(t *testing.T) {
	hits := []bool{true, true, false, false, false, false, true, true, true, false, true, false}
	single := make([]int, len(hits))
	for i := range single {
		single[i] = i
	}
	got, _ := ClusterWilson(hits, single, 0.95)
	want, _ := Wilson(6, 12, 0.95)
	if !close9(got, want) {
		t.Errorf("singletons: %+v, want Wilson %+v", got, want)
	}
	got, _ = ClusterWilson(hits, []int{0, 0, 0, 1, 1, 1, 2, 2, 2, 3, 3, 3}, 0.95)
	want = Estimate{Value: 0.5, Lo: 0.1776350402291358, Hi: 0.8223649597708642}
	if !close9(got, want) {
		t.Errorf("clusters of 3: %+v, want %+v (design effect 2.22)", got, want)
	}
}

// TestBenjaminiHochberg against the step-up rule computed independently
// (min over j ≥ i of m·p(j)/j), NaN left out.
func TestBenjaminiHochberg(t *testing.T) {
	got := BenjaminiHochberg([]float64{0.01, 0.04, 0.03, 0.5, math.NaN(), 0.002, 0.04})
	want := []float64{0.03, 0.048, 0.048, 0.5, math.NaN(), 0.012, 0.048}
	for i := range want {
		if math.IsNaN(want[i]) != math.IsNaN(got[i]) || !math.IsNaN(want[i]) && math.Abs(got[i]-want[i]) > 1e-12 {
			t.Errorf("q[%d] = %v, want %v", i, got[i], want[i])
		}
	}
}

func close9(a, b Estimate) bool {
	c := func(x, y float64) bool { return math.Abs(x-y) <= 1e-9*math.Abs(y)+1e-12 }
	return c(a.Value, b.Value) && c(a.Lo, b.Lo) && c(a.Hi, b.Hi)
}
