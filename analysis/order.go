package analysis

import (
	"cmp"
	"math"
	"slices"
)

// ByAbs orders xs by the size of key(x), largest first, stably; those whose
// key is NaN (no difference to size: a unit one side lacks) go last, in
// their order.
func ByAbs[T any](xs []T, key func(T) float64) {
	slices.SortStableFunc(xs, func(x, y T) int {
		kx, ky := key(x), key(y)
		switch {
		case math.IsNaN(kx) && math.IsNaN(ky):
			return 0
		case math.IsNaN(kx):
			return 1
		case math.IsNaN(ky):
			return -1
		}
		return cmp.Compare(math.Abs(ky), math.Abs(kx))
	})
}

// BySigned sorts xs by key, largest first, NaN keys last; the sort is
// stable, so equal keys keep their order.
func BySigned[T any](xs []T, key func(T) float64) {
	slices.SortStableFunc(xs, func(x, y T) int {
		kx, ky := key(x), key(y)
		switch {
		case math.IsNaN(kx) && math.IsNaN(ky):
			return 0
		case math.IsNaN(kx):
			return 1
		case math.IsNaN(ky):
			return -1
		}
		return cmp.Compare(ky, kx)
	})
}
