package experiment

import (
	"math"
	"reflect"
	"testing"

	"github.com/auditscope/auditscope/analysis"
)

// TestStrategyShares: strategies ordered by overall use (ties by name),
// shares per auditor summing its labels, auditors in the order asked and
// those without labels left out.
func TestStrategyShares(t *testing.T) {
	counts := []StrategyCount{
		{Auditor: "cp1", Strategy: "roleplay", N: 3},
		{Auditor: "cp1", Strategy: "direct", N: 1},
		{Auditor: "cp2", Strategy: "direct", N: 2},
		{Auditor: "cp2", Strategy: "honeypot", N: 2},
		{Auditor: "cp2", Strategy: "direct", N: 2}, // a second group of the same label adds up
	}
	got := StrategyShares(counts, []string{"cp2", "cp0", "cp1"})
	want := StrategyMix{
		Strategies: []string{"direct", "roleplay", "honeypot"}, // 5, 3, 2
		Rows: []StrategyRow{
			{Auditor: "cp2", N: 6, Shares: []float64{4.0 / 6, 0, 2.0 / 6}},
			{Auditor: "cp1", N: 4, Shares: []float64{0.25, 0.75, 0}},
		},
	}
	// Each share's interval is Wilson's on its count (Wilson is checked
	// against statsmodels in analysis).
	for _, r := range got.Rows {
		for j, sh := range r.Shares {
			w, _ := analysis.Wilson(sh*float64(r.N), r.N, 0.95)
			if iv := r.Intervals[j]; math.Abs(iv.Lo-w.Lo) > 1e-12 || math.Abs(iv.Hi-w.Hi) > 1e-12 || iv.Lo > sh || iv.Hi < sh {
				t.Errorf("%s %s: interval %+v, Wilson says %+v", r.Auditor, got.Strategies[j], iv, w)
			}
		}
	}
	for i := range got.Rows {
		got.Rows[i].Intervals = nil
	}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("got %+v\nwant %+v", got, want)
	}
}
