package scorer

import (
	"math"
	"testing"
)

func nan() float64 { return math.NaN() }

// TestTable: a stderr metric is folded into its scorer's other metrics, a
// dictionary scorer's key finds its values, metrics auditscope does not
// recompute keep only the reported number, and scorers the header does not
// report (a running log) get a recomputed row.
func TestTable(t *testing.T) {
	logs := []Log{{Log: "a.eval", Task: "t", Model: "m", Status: "success", Samples: 4, Total: 10, Scores: []Reported{
		{Name: "match", Scorer: "match", Metrics: []Metric{{"accuracy", 0.7}, {"stderr", 0.1}}},
		{Name: "honesty", Scorer: "judge", Metrics: []Metric{{"mean", 5.5}, {"f1", 0.3}}},
	}}}
	vals := []Values{
		{Log: "a.eval", Scorer: "match", N: 4, Mean: 0.75, SD: 0.5, Binary: true},
		{Log: "a.eval", Scorer: "judge", Key: "honesty", N: 4, Mean: 5, SD: 2},
		{Log: "a.eval", Scorer: "extra", N: 4, Mean: 0.5, SD: 0.57735, Binary: true},
	}
	rows := Table(logs, vals)
	if len(rows) != 4 {
		t.Fatalf("%d rows, want 4: %+v", len(rows), rows)
	}
	r := rows[0]
	if r.Scorer != "match" || r.Metric != "accuracy" || r.Reported != 0.7 || r.ReportedStderr != 0.1 || r.N != 4 || r.Value.Method != "wilson" || r.Value.Value != 0.75 || !r.Partial() {
		t.Errorf("match row = %+v", r)
	}
	// 3 of 4 with Wilson: the formula's bounds (statsmodels gives
	// 0.30064184258240205, 0.9544127391902995).
	if math.Abs(r.Value.Lo-0.300641842582402) > 1e-12 || math.Abs(r.Value.Hi-0.9544127391902995) > 1e-12 {
		t.Errorf("Wilson 3/4 = [%v, %v]", r.Value.Lo, r.Value.Hi)
	}
	r = rows[1]
	if r.Scorer != "honesty" || r.Metric != "mean" || r.Value.Method != "t" || r.Value.Value != 5 || !math.IsNaN(r.ReportedStderr) {
		t.Errorf("honesty mean row = %+v", r)
	}
	// t(0.975, 3) = 3.182446305284263; half-width 3.1824·2/2.
	if math.Abs(r.Value.Hi-(5+3.182446305284263)) > 1e-9 {
		t.Errorf("t interval hi = %v", r.Value.Hi)
	}
	if r := rows[2]; r.Metric != "f1" || !math.IsNaN(r.Value.Value) || r.Reported != 0.3 {
		t.Errorf("f1 row = %+v", r)
	}
	if r := rows[3]; r.Scorer != "extra" || r.Metric != "accuracy" || !math.IsNaN(r.Reported) || r.Value.Value != 0.5 {
		t.Errorf("unreported scorer row = %+v", r)
	}
}

// TestStderrAlone: a scorer reporting only stderr gets it recomputed.
func TestStderrAlone(t *testing.T) {
	rows := Table([]Log{{Log: "l", Scores: []Reported{{Name: "s", Metrics: []Metric{{"stderr", 0.25}}}}}},
		[]Values{{Log: "l", Scorer: "s", N: 4, Mean: 0.75, SD: 0.5, Binary: true}})
	if len(rows) != 1 || rows[0].Value.Value != 0.25 || rows[0].Reported != 0.25 {
		t.Errorf("rows = %+v", rows)
	}
	if Stderr(Values{N: 1, Mean: 1, SD: nan()}) != 0 {
		t.Error("one value: Inspect's stderr is 0")
	}
}

// TestMeanOneValue: a single non-binary value has no interval.
func TestMeanOneValue(t *testing.T) {
	e, err := Mean(Values{N: 1, Mean: 3.5, SD: nan()})
	if err != nil || e.Value != 3.5 || !math.IsNaN(e.Lo) || e.Method != "" {
		t.Errorf("Mean = %+v, %v", e, err)
	}
}

// TestMeanClipped: a mean of values in [0, 1] keeps its interval there
// (log_streaming: two samples whose epoch means are 0.5 and 1).
func TestMeanClipped(t *testing.T) {
	v := Values{N: 2, Mean: 0.75, SD: math.Sqrt(0.125), Min: 0.5, Max: 1}
	e, err := Mean(v)
	if err != nil {
		t.Fatal(err)
	}
	if e.Lo != 0 || e.Hi != 1 || e.Method != "t, clipped to [0, 1]" {
		t.Errorf("clipped: %+v", e)
	}
	v.Min, v.Max = -3, 4 // a scale that is not bounded by [0, 1]
	if e, _ := Mean(v); !(e.Lo < -2 && e.Hi > 3) || e.Method != "t" {
		t.Errorf("unclipped: %+v", e)
	}
}

// TestTableReductions: the file's records are recomputed, a partial file
// (15 of 790 results) saying so; the log's own reductions (every sample,
// epochs reduced) stand in only when the file holds no record, and the
// row says so.
func TestTableReductions(t *testing.T) {
	logs := []Log{{Log: "d.eval", Samples: 15, Total: 790, Scores: []Reported{{Name: "includes", Scorer: "includes",
		Metrics: []Metric{{"accuracy", 0.6759}, {"stderr", 0.0419}},
		Reduced: &Values{N: 79, Mean: 0.6759, SD: 0.0419 * math.Sqrt(79), Min: 0, Max: 1}}}}}
	vals := []Values{{Log: "d.eval", Scorer: "includes", N: 15, Records: 15, Mean: 0.6, SD: 0.5, Min: 0, Max: 1, Binary: true}}
	rows := Table(logs, vals)
	if len(rows) != 1 {
		t.Fatalf("rows: %+v", rows)
	}
	r := rows[0]
	// The file's 15 records of 15 samples are epoch 1 of 790 results: the
	// log's epochs are not known from them.
	if r.FromReductions || r.N != 15 || r.Records != 15 || !r.Partial() || r.Epochs() != 0 || r.Value.Value != 0.6 {
		t.Errorf("row %+v (partial %v, epochs %d)", r, r.Partial(), r.Epochs())
	}
	// No record of the scorer in the file: the reductions stand in.
	r = Table(logs, nil)[0]
	if !r.FromReductions || r.N != 79 || r.Partial() || r.Epochs() != 10 || r.Value.Value != 0.6759 {
		t.Errorf("from the reductions: %+v (partial %v, epochs %d)", r, r.Partial(), r.Epochs())
	}
}
