package e2e

import (
	"context"
	"net/http"
	"sync"
	"testing"

	"github.com/auditscope/auditscope/data"
	"github.com/auditscope/auditscope/data/bundle"
	"github.com/auditscope/auditscope/data/demo"
)

// BenchmarkJudgesCold100k: the judges page of the 100,000-audit experiment
// (the second judge on its baselines' audits, two raters' labels) on a
// server that has computed nothing.
func BenchmarkJudgesCold100k(b *testing.B) {
	store := must(b, bench100k)
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
	store := must(b, bench100k)
	for b.Loop() {
		if r := get(b, quietServer(store), compareSwapBench); r.Code != http.StatusOK {
			b.Fatalf("%d %.300s", r.Code, r.Body)
		}
	}
}

// benchJudgedTwice is the 100,000-audit experiment with a second model
// judge on every audit that has judge scores, on every dimension (each
// score a point up now and then), instead of the demo's second judge on
// the baselines alone: the judges page's heaviest case.
var benchJudgedTwice = sync.OnceValues(func() (*data.Store, error) {
	ctx := context.Background()
	store, err := data.Open(ctx, data.Options{})
	if err != nil {
		return nil, err
	}
	bd := demo.Experiment(demo.Options{Audits: 100000})
	bd.Verdicts = bd.Verdicts[:0]
	for i, a := range bd.Audits {
		if len(a.Scores) == 0 {
			continue
		}
		sc := make(map[string]float64, len(a.Scores))
		for d, x := range a.Scores {
			sc[d] = min(10, x+float64(i%3/2))
		}
		bd.Verdicts = append(bd.Verdicts, bundle.Verdict{Audit: a.ID, Judge: "second", Scores: sc})
	}
	_, err = store.ImportBundle(ctx, bundle.FromBundle(bd, "bench", false), "bench-twice",
		data.ImportOptions{Synthetic: true, Transcripts: func(string) ([]byte, error) { return []byte(`{"metadata":{}}`), nil }})
	return store, err
})

// BenchmarkJudgesColdEveryAudit100k: the judges page when a second judge
// scored every one of the 100,000 audits on every dimension.
func BenchmarkJudgesColdEveryAudit100k(b *testing.B) {
	store, err := benchJudgedTwice()
	if err != nil {
		b.Fatal(err)
	}
	for b.Loop() {
		if r := get(b, quietServer(store), "/experiments/demo/judges"); r.Code != http.StatusOK {
			b.Fatalf("%d %.300s", r.Code, r.Body)
		}
	}
}
