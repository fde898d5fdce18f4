package app

import (
	"context"
	"math"
	"testing"

	"github.com/auditscope/auditscope/data/model"
)

// TestServiceScorers: a log's header as the store returns it becomes the
// scorer table. Docent's numbers: 79 samples reduced over 10 epochs (790
// results), the file holding epoch 1 of 15 samples; the row recomputes
// those 15 (0.6), beside the log's 0.6759 ± 0.0419, the log's reductions
// standing in only for a scorer the file holds no record of. A metric the
// log reports without a number is NaN, never 0. No Inspect log, no table.
func TestServiceScorers(t *testing.T) {
	r := handExperiment()
	s := New(r)
	if rows, err := s.Scorers(context.Background(), "x"); rows != nil || err != nil {
		t.Fatalf("no logs: %v, %v", rows, err)
	}
	r.logs = []model.InspectLog{{Log: "d.eval", Task: "t", Model: "m", Status: "success", Samples: 15, Total: ptr(790),
		Scores: []model.ReportedScore{
			{Name: "includes", Scorer: "includes", Metrics: []model.ReportedMetric{{Name: "accuracy", Value: ptr(0.6759)}, {Name: "stderr", Value: ptr(0.0419)}},
				Reduced: &model.ReducedScores{N: 79, Mean: 0.6759, SD: 0.0419 * math.Sqrt(79), Min: 0, Max: 1}},
			{Name: "judge", Scorer: "judge", Metrics: []model.ReportedMetric{{Name: "mean", Value: nil}}},
		}}}
	r.values = []model.ScorerValues{{Log: "d.eval", Scorer: "includes", N: 15, Records: 15, Mean: 0.6, SD: 0.5, Min: 0, Max: 1, Binary: true}}
	rows, err := s.Scorers(context.Background(), "x")
	if err != nil {
		t.Fatal(err)
	}
	got := map[string]bool{}
	for _, row := range rows {
		switch row.Scorer + "/" + row.Metric {
		case "includes/accuracy":
			got["includes"] = true
			if row.FromReductions || row.N != 15 || row.Records != 15 || row.Total != 790 || !row.Partial() ||
				row.Value.Value != 0.6 || row.Reported != 0.6759 || row.ReportedStderr != 0.0419 {
				t.Errorf("includes/accuracy: %+v (epochs %d)", row, row.Epochs())
			}
		case "judge/mean":
			got["judge"] = true
			if !math.IsNaN(row.Reported) {
				t.Errorf("judge/mean reported %v, want NaN (the log gives no number)", row.Reported)
			}
		}
	}
	if !got["includes"] || !got["judge"] {
		t.Errorf("rows %+v: want includes/accuracy and judge/mean", rows)
	}
}
