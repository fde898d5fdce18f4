package logs

import (
	"encoding/json"
	"math"
	"testing"

	"github.com/auditscope/auditscope/data/inspect"
)

// TestSummarizeReductions: a scorer reduced two ways keeps each reducer's
// values apart (not one list of twice the samples); a dictionary value is
// split by key; C/I grades map as value_to_float does; no reducer named is
// the mean.
func TestSummarizeReductions(t *testing.T) {
	raw := func(s string) json.RawMessage { return json.RawMessage(s) }
	reds := []inspect.Reduction{
		{Scorer: "match", Samples: []inspect.ReducedSample{{Value: raw(`1`)}, {Value: raw(`0.5`)}, {Value: raw(`"C"`)}}},
		{Scorer: "match", Reducer: "max", Samples: []inspect.ReducedSample{{Value: raw(`1`)}, {Value: raw(`1`)}, {Value: raw(`1`)}}},
		{Scorer: "dict", Reducer: "mean", Samples: []inspect.ReducedSample{{Value: raw(`{"a": 1, "b": "I"}`)}, {Value: raw(`{"a": 0, "b": [1]}`)}}},
	}
	got := summarizeReductions(reds)
	if m := got[[3]string{"match", "mean", ""}]; m == nil || m.N != 3 || math.Abs(m.Mean-2.5/3) > 1e-15 || m.Binary || m.Min != 0.5 || m.Max != 1 {
		t.Errorf("match/mean: %+v", m)
	}
	if m := got[[3]string{"match", "max", ""}]; m == nil || m.N != 3 || m.Mean != 1 || !m.Binary || m.SD != 0 {
		t.Errorf("match/max: %+v", m)
	}
	if m := got[[3]string{"dict", "mean", "a"}]; m == nil || m.N != 2 || m.Mean != 0.5 {
		t.Errorf("dict.a: %+v", m)
	}
	if m := got[[3]string{"dict", "mean", "b"}]; m == nil || m.N != 2 || m.Mean != 0 || m.Unconverted != 1 {
		t.Errorf("dict.b: %+v", m)
	}
}
