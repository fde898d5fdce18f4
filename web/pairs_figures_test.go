package web

import (
	"math"
	"testing"

	"github.com/auditscope/auditscope/views/figures"
	"github.com/auditscope/auditscope/web/app"
)

func TestMetricScale(t *testing.T) {
	nan := math.NaN()
	for _, tt := range []struct {
		metric string
		values [][]float64
		want   figures.Diverging
		digits int
	}{
		{"strength", [][]float64{{0.12, -0.31}, {nan, 0.05}}, figures.Diverging{Min: -0.5, Center: 0, Max: 0.5}, 2},
		{"kappa", [][]float64{{0.9, -1}}, figures.Diverging{Min: -1, Center: 0, Max: 1}, 2},
		{"kappa_unadjusted", [][]float64{{nan}}, figures.Diverging{Min: -0.05, Center: 0, Max: 0.05}, 2},
		{"accuracy", [][]float64{{0.62, 0.45}}, figures.Diverging{Min: 0.3, Center: 0.5, Max: 0.7}, 2},
		{"accuracy", [][]float64{{1, 0}}, figures.Diverging{Min: 0, Center: 0.5, Max: 1}, 2},
		{"relevance", [][]float64{{0.93, 0.2}}, figures.Diverging{Min: 0, Center: 0, Max: 1}, 2},
		{"kept", [][]float64{{2757, 12}}, figures.Diverging{Min: 0, Center: 0, Max: 2757}, 0},
		{"agree", [][]float64{{0}}, figures.Diverging{Min: 0, Center: 0, Max: 1}, 0},
	} {
		m, _ := app.LookupMetric(tt.metric)
		got, digits := metricScale(m, tt.values)
		if math.Abs(got.Min-tt.want.Min) > 1e-12 || got.Center != tt.want.Center || math.Abs(got.Max-tt.want.Max) > 1e-12 || digits != tt.digits {
			t.Errorf("%s %v: scale %+v, %d digits; want %+v, %d", tt.metric, tt.values, got, digits, tt.want, tt.digits)
		}
	}
}
