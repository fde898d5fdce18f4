package web

import (
	"cmp"
	"math"
)

// cmpNaNLast orders x before y ascending, or descending with desc, for
// slices.SortStableFunc; NaN, an undefined statistic, comes last either
// way, so sorting a column never puts the blanks first.
func cmpNaNLast(x, y float64, desc bool) int {
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
