package experiment

import (
	"sort"

	"github.com/auditscope/auditscope/analysis"
)

// StrategyCount is how many of one auditor's audits carry a strategy label.
type StrategyCount struct {
	Auditor, Strategy string
	N                 int
}

// StrategyRow is one auditor's share of each strategy, in the order of
// StrategyMix.Strategies, over its N labelled audits.
type StrategyRow struct {
	Auditor string
	N       int
	Shares  []float64
	// Intervals are the shares' 95% Wilson intervals; the unit is the
	// labelled audit.
	Intervals []analysis.Estimate
}

// StrategyMix is how a run's checkpoints split their audits among
// investigation strategies.
type StrategyMix struct {
	Strategies []string // most used overall first, ties by name
	Rows       []StrategyRow
}

// StrategyShares computes each listed auditor's share of every strategy,
// in the order given; auditors without labels get no row.
func StrategyShares(counts []StrategyCount, auditors []string) StrategyMix {
	var m StrategyMix
	total := map[string]int{}
	per := map[string]map[string]int{}
	for _, c := range counts {
		total[c.Strategy] += c.N
		if per[c.Auditor] == nil {
			per[c.Auditor] = map[string]int{}
		}
		per[c.Auditor][c.Strategy] += c.N
	}
	for s := range total {
		m.Strategies = append(m.Strategies, s)
	}
	sort.Slice(m.Strategies, func(i, j int) bool {
		a, b := m.Strategies[i], m.Strategies[j]
		if total[a] != total[b] {
			return total[a] > total[b]
		}
		return a < b
	})
	for _, a := range auditors {
		c := per[a]
		n := 0
		for _, v := range c {
			n += v
		}
		if n == 0 {
			continue
		}
		row := StrategyRow{Auditor: a, N: n}
		for _, s := range m.Strategies {
			row.Shares = append(row.Shares, float64(c[s])/float64(n))
			iv, err := analysis.Wilson(float64(c[s]), n, 0.95)
			if err != nil { // n > 0 and 0 ≤ c[s] ≤ n: Wilson cannot fail here
				panic(err)
			}
			row.Intervals = append(row.Intervals, iv)
		}
		m.Rows = append(m.Rows, row)
	}
	return m
}
