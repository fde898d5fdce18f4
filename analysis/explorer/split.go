package explorer

import "github.com/auditscope/auditscope/analysis"

// Decisive returns the positions where v is text_a or text_b: the
// comparisons every metric keeps when v is the reference.
func Decisive(v []analysis.Vote) []int32 {
	return decisiveIf(v, nil)
}

// decisiveIf is Decisive restricted to the positions in accepts (nil: all).
func decisiveIf(v []analysis.Vote, in func(i int) bool) []int32 {
	var out []int32
	for i, x := range v {
		if (x == analysis.VoteA || x == analysis.VoteB) && (in == nil || in(i)) {
			out = append(out, int32(i))
		}
	}
	return out
}

// Gather returns v at the positions idx, in that order.
func Gather(v []analysis.Vote, idx []int32) []analysis.Vote {
	out := make([]analysis.Vote, len(idx))
	for k, i := range idx {
		out[k] = v[i]
	}
	return out
}

// Split returns, for each metadata value in values, the positions where
// ref is text_a or text_b and the comparison has that value: of[i] is
// comparison i's value (an index, -1 for none). Each is a column's keep
// for Compare.
func Split(ref []analysis.Vote, of []int32, values []int32) [][]int32 {
	out := make([][]int32, len(values))
	for k, v := range values {
		out[k] = decisiveIf(ref, func(i int) bool { return of[i] == v })
	}
	return out
}

// Unvalued counts the comparisons without a value for the split key (of[i]
// is -1).
func Unvalued(of []int32) int {
	n := 0
	for _, x := range of {
		if x == -1 {
			n++
		}
	}
	return n
}
