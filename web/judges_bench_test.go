package web

import (
	"net/http"
	"testing"
)

// BenchmarkJudgesCold100k: the judges page of the 100,000-audit experiment
// (the second judge on its baselines' audits, two raters' labels) on a
// server that has computed nothing.
func BenchmarkJudgesCold100k(b *testing.B) {
	store := mustBench100k(b)
	for b.Loop() {
		if r := get(b, quietServer(store), "/experiments/demo/judges"); r.Code != http.StatusOK {
			b.Fatalf("%d %.300s", r.Code, r.Body)
		}
	}
}
