package app

import (
	"cmp"
	"math"
	"slices"
	"strings"

	"github.com/auditscope/auditscope/analysis/explorer"
)

// Order is the table's rows (indexes into Rows) in the order a view shows
// them under metric m, sorted by sort, a key ExplorerTable checked ("name",
// "spread" or a column's key), descending with desc: undefined values last
// either way, ties in the annotators' order. The page, table.csv and the
// figures order by it (the strength figure under its own metric and
// column).
func (t *Table) Order(m Metric, sort string, desc bool) []int {
	idx := make([]int, len(t.Rows))
	for i := range idx {
		idx[i] = i
	}
	if sort == "name" {
		slices.SortStableFunc(idx, func(a, b int) int {
			c := strings.Compare(strings.ToLower(t.Rows[a].Name), strings.ToLower(t.Rows[b].Name))
			if desc {
				c = -c
			}
			return c
		})
		return idx
	}
	col := slices.IndexFunc(t.Columns, func(c Column) bool { return c.Key == sort })
	key := make([]float64, len(t.Rows))
	for i := range t.Rows {
		if col < 0 {
			key[i] = t.RowSpread(m, i)
		} else {
			key[i], _, _ = m.Value(t.Stats[col][i])
		}
	}
	slices.SortStableFunc(idx, func(a, b int) int { return CmpNaNLast(key[a], key[b], desc) })
	return idx
}

// RowSpread is row i's range across the columns under metric m: its
// largest value less its smallest, of those defined.
func (t *Table) RowSpread(m Metric, i int) float64 {
	values := make([]float64, len(t.Columns))
	for j := range t.Columns {
		values[j], _, _ = m.Value(t.Stats[j][i])
	}
	return explorer.Spread(values)
}

// CmpNaNLast orders x before y ascending, or descending with desc, for
// slices.SortStableFunc; NaN, an undefined statistic, comes last either
// way, so sorting a column never puts the blanks first. (The explorer's
// order and web's sortable tables share it.)
func CmpNaNLast(x, y float64, desc bool) int {
	xn, yn := math.IsNaN(x), math.IsNaN(y)
	switch {
	case xn && yn:
		return 0
	case xn:
		return 1
	case yn:
		return -1
	case desc:
		return cmp.Compare(y, x)
	}
	return cmp.Compare(x, y)
}
