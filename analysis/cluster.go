package analysis

import (
	"fmt"
	"math"
	"slices"
)

// ClusterMeanCI is the mean of values with a two-sided t interval that
// treats values of one cluster as dependent: the cluster-robust standard
// error with the small-sample factor G/(G−1),
//
//	se² = G/(G−1) · Σ_g (Σ_{i∈g} (xᵢ − x̄))² / n²,
//
// and G − 1 degrees of freedom, G the number of clusters. With one value a
// cluster it is MeanCI exactly (se² = s²/n). cluster[i] names the cluster
// of values[i]. Fewer than two clusters leave the interval undefined (NaN);
// no spread gives Lo = Hi = Value.
func ClusterMeanCI(values []float64, cluster []int, confidence float64) (Estimate, int, error) {
	if err := checkConfidence("ClusterMeanCI", confidence); err != nil {
		return nanEstimate(), 0, err
	}
	if len(values) != len(cluster) {
		return nanEstimate(), 0, fmt.Errorf("analysis: ClusterMeanCI: %d values, %d clusters", len(values), len(cluster))
	}
	n := len(values)
	if n == 0 {
		return nanEstimate(), 0, nil
	}
	mean := 0.0
	for _, v := range values {
		mean += v
	}
	mean /= float64(n)
	sums := map[int]float64{}
	for i, v := range values {
		sums[cluster[i]] += v - mean
	}
	g := len(sums)
	if g < 2 {
		return Estimate{Value: mean, Lo: math.NaN(), Hi: math.NaN()}, g, nil
	}
	se := math.Sqrt(float64(g) / float64(g-1) * sumSquares(sums) / (float64(n) * float64(n)))
	half := tCrit(confidence, g-1) * se
	return Estimate{Value: mean, Lo: mean - half, Hi: mean + half}, g, nil
}

// ClusterWilson is the share of true values with a Wilson interval whose
// sample size is the effective one under clustering: n / deff, where the
// design effect deff is the cluster-robust variance of the share (as in
// ClusterMeanCI) over the binomial p(1−p)/n, at least 1 (clustering is not
// allowed to narrow the interval). With one value a cluster, or a share of
// 0 or 1, it is Wilson on n.
func ClusterWilson(hits []bool, cluster []int, confidence float64) (Estimate, error) {
	if len(hits) != len(cluster) {
		return nanEstimate(), fmt.Errorf("analysis: ClusterWilson: %d values, %d clusters", len(hits), len(cluster))
	}
	n := len(hits)
	if n == 0 {
		return nanEstimate(), checkConfidence("ClusterWilson", confidence)
	}
	k := 0
	sums := map[int]float64{}
	for _, h := range hits {
		if h {
			k++
		}
	}
	p := float64(k) / float64(n)
	for i, h := range hits {
		y := 0.0
		if h {
			y = 1
		}
		sums[cluster[i]] += y - p
	}
	g := len(sums)
	neff := float64(n)
	if g >= 2 && g < n && k > 0 && k < n {
		v := float64(g) / float64(g-1) * sumSquares(sums) / (float64(n) * float64(n))
		if deff := v / (p * (1 - p) / float64(n)); deff > 1 {
			neff = float64(n) / deff
		}
	}
	e, err := wilsonN(p, neff, confidence)
	return e, err
}

// wilsonN is Wilson's interval for a share p of a sample of size n, which
// may be fractional (an effective size).
func wilsonN(p, n float64, confidence float64) (Estimate, error) {
	if err := checkConfidence("ClusterWilson", confidence); err != nil {
		return nanEstimate(), err
	}
	z := normalCrit(confidence)
	z2 := z * z
	d := 1 + z2/n
	center := (p + z2/(2*n)) / d
	half := z * math.Sqrt(p*(1-p)/n+z2/(4*n*n)) / d
	return Estimate{Value: p, Lo: center - half, Hi: center + half}, nil
}

// BenjaminiHochberg adjusts p-values for the false-discovery rate with
// Benjamini and Hochberg's step-up method (statsmodels' multipletests(
// method="fdr_bh")): sorted ascending, the i-th (from 1) of m becomes
// min over j ≥ i of min(1, m·p(j)/j). NaN p-values are left NaN and not
// counted in m.
func BenjaminiHochberg(p []float64) []float64 {
	out := make([]float64, len(p))
	idx := sortedFinite(p, out)
	m := len(idx)
	running := 1.0
	for k := m - 1; k >= 0; k-- {
		i := idx[k]
		running = math.Min(running, math.Min(1, float64(m)*p[i]/float64(k+1)))
		out[i] = running
	}
	return out
}

// sumSquares adds the squares of the cluster sums in ascending order, so
// the same clusters give the same bits however they were numbered (a
// folder's files and a log's samples come in other orders).
func sumSquares(sums map[int]float64) float64 {
	sq := make([]float64, 0, len(sums))
	for _, s := range sums {
		sq = append(sq, s*s)
	}
	slices.Sort(sq)
	total := 0.0
	for _, v := range sq {
		total += v
	}
	return total
}
