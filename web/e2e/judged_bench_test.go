package e2e

import (
	"context"
	"net/url"
	"sync"
	"testing"

	"github.com/auditscope/auditscope/data"
	"github.com/auditscope/auditscope/data/bundle"
	"github.com/auditscope/auditscope/data/demo"
	"github.com/auditscope/auditscope/web"
)

// judgedBench is a store of 10,000 judged transcripts (4 targets × 2,500
// seeds) scored on Petri's 38 dimensions: the scale of #49's targets.
var judgedBench = sync.OnceValues(func() (*data.Store, error) {
	ctx := context.Background()
	store, err := data.Open(ctx, data.Options{})
	if err != nil {
		return nil, err
	}
	o := demo.DemoPetriOptions
	o.Seeds = 2500
	b, err := demo.PetriBundle(o)
	if err != nil {
		return nil, err
	}
	_, err = store.ImportBundle(ctx, bundle.FromBundle(b, "bench", false), "judged-bench", data.ImportOptions{Synthetic: true})
	return store, err
})

func mustJudgedBench(b *testing.B) *data.Store {
	b.Helper()
	s, err := judgedBench()
	if err != nil {
		b.Fatal(err)
	}
	return s
}

var judgedPairQuery = url.Values{"a": {demo.DemoPetriOptions.Targets[0]}, "b": {demo.DemoPetriOptions.Targets[3]}}.Encode()

// BenchmarkJudgedOverviewCold: the experiment page of 10,000 judged
// transcripts on a new server (nothing computed yet; target ≤ 500 ms).
func BenchmarkJudgedOverviewCold(b *testing.B) {
	store := mustJudgedBench(b)
	for b.Loop() {
		getOK(b, quietServer(store), "/experiments/petri-demo")
	}
}

// BenchmarkJudgedOverviewCached: the same page again (target ≤ 20 ms).
func BenchmarkJudgedOverviewCached(b *testing.B) {
	s := quietServer(mustJudgedBench(b))
	getOK(b, s, "/experiments/petri-demo")
	benchGet(b, s, "/experiments/petri-demo")
}

// BenchmarkJudgedPairedCold: two targets compared across the 38
// dimensions on a new server (target ≤ 300 ms).
func BenchmarkJudgedPairedCold(b *testing.B) {
	store := mustJudgedBench(b)
	for b.Loop() {
		getOK(b, quietServer(store), "/experiments/petri-demo/paired?"+judgedPairQuery)
	}
}

func getOK(b *testing.B, s *web.Server, path string) {
	b.Helper()
	if r := get(b, s, path); r.Code != 200 {
		b.Fatalf("%s: %d %.300s", path, r.Code, r.Body)
	}
}
