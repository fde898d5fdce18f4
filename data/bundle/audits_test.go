package bundle

import (
	"math"
	"testing"
)

// TestScoreNamesJSON: one worker's scores in turn, the names it keeps
// changing under it (as many names but others, fewer, more, none), each
// written with its own names in order.
func TestScoreNamesJSON(t *testing.T) {
	var n scoreNames
	for _, c := range []struct {
		scores map[string]float64
		want   any
	}{
		{map[string]float64{"b": 2, "a": 1}, `{"a":1,"b":2}`},
		{map[string]float64{"a": 3, "b": 4.5}, `{"a":3,"b":4.5}`},
		{map[string]float64{"c": 5, "a": 6}, `{"a":6,"c":5}`},
		{map[string]float64{"a": 7}, `{"a":7}`},
		{map[string]float64{"a": 1, "c": 2, "\"q\u00e9": -1e300}, `{"\"qé":-1e+300,"a":1,"c":2}`},
		{nil, nil},
		{map[string]float64{"a": math.Copysign(0, -1), "c": 1e15}, `{"a":0,"c":1e+15}`},
	} {
		if got := n.json(c.scores); got != c.want {
			t.Errorf("%v: got %v, want %v", c.scores, got, c.want)
		}
	}
}
