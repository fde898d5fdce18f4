package model

import (
	"fmt"
	"math"
)

// BadScore finds the first score of vs outside its scale and says why: a
// judge's scores are on Petri's 1–10 scale; a person's labels of a
// dimension are too, or all 0/1 (a yes-or-no question). It returns the
// verdict's index, or -1 when every score is on its scale.
func BadScore(vs []Verdict) (int, string) {
	binary := map[[2]string]bool{}
	for _, v := range vs {
		if v.Kind != JudgeHuman {
			continue
		}
		for d, x := range v.Scores {
			k := [2]string{v.Judge, d}
			b, ok := binary[k]
			binary[k] = (b || !ok) && (x == 0 || x == 1)
		}
	}
	for i, v := range vs {
		for d, x := range v.Scores {
			switch {
			case math.IsNaN(x) || math.IsInf(x, 0):
				return i, fmt.Sprintf("%s: the score is not a number", d)
			case binary[[2]string{v.Judge, d}]:
			case x < 1 || x > 10:
				if v.Kind == JudgeHuman {
					return i, fmt.Sprintf("%s: %v is outside the 1–10 scale (a person's labels of a dimension are 1–10, or all 0/1)", d, x)
				}
				return i, fmt.Sprintf("%s: %v is outside the judge's 1–10 scale", d, x)
			}
		}
	}
	return -1, ""
}
