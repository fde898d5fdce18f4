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

// compareSwapBench compares two baselines, which both the evaluation judge
// and the second judge scored, under the second judge: the page computes
// the comparison under it and again under the evaluation judge (and the
// training judge, which has no data on either).
const compareSwapBench = "/experiments/demo/compare?a=claude-opus-4.6&b=claude-haiku-4.5&judge=claude-opus-4.6+%28second+judge%29"

// BenchmarkCompareJudgeSwapCold100k: the compare page with its judge swap
// on a server that has computed nothing (issue #51's target: 1 s).
func BenchmarkCompareJudgeSwapCold100k(b *testing.B) {
	store := mustBench100k(b)
	for b.Loop() {
		if r := get(b, quietServer(store), compareSwapBench); r.Code != http.StatusOK {
			b.Fatalf("%d %.300s", r.Code, r.Body)
		}
	}
}
