package e2e

// Benchmarks for the speed targets of docs/PERFORMANCE.md. The inputs are
// built by `task bench`: AUDITSCOPE_BENCH_AP names an AnnotatedPairs file
// (auditscope demo --pairs 50000 --traits 40 --seed 5) and AUDITSCOPE_BENCH_AUDITS the size of the
// synthetic experiment (default 100,000 audits). Without the file the
// AnnotatedPairs benchmarks skip.

import (
	"context"
	"net/http"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/auditscope/auditscope/data"
	"github.com/auditscope/auditscope/data/bucket"
	"github.com/auditscope/auditscope/data/bundle"
	"github.com/auditscope/auditscope/data/demo"
	"github.com/auditscope/auditscope/data/demodb"
	"github.com/auditscope/auditscope/data/lake"
	"github.com/auditscope/auditscope/data/s3test"
	"github.com/auditscope/auditscope/web"
)

// benchAP is a store holding the benchmark AnnotatedPairs file.
var benchAP = sync.OnceValues(func() (*data.Store, error) {
	path := os.Getenv("AUDITSCOPE_BENCH_AP")
	if path == "" {
		return nil, nil
	}
	ctx := context.Background()
	store, err := data.Open(ctx, data.Options{})
	if err != nil {
		return nil, err
	}
	_, err = store.ImportAnnotatedPairs(ctx, path, data.ImportOptions{Name: "bench"})
	return store, err
})

func mustBenchAP(b *testing.B) *data.Store {
	b.Helper()
	store, err := benchAP()
	if err != nil {
		b.Fatal(err)
	}
	if store == nil {
		b.Skip("set AUDITSCOPE_BENCH_AP to an AnnotatedPairs file (auditscope demo --pairs 50000 --traits 40 --seed 5 --out FILE makes one)")
	}
	return store
}

// benchGet fetches path b.N times and fails on anything but 200.
func benchGet(b *testing.B, s *web.Server, path string) {
	b.Helper()
	for b.Loop() {
		if r := get(b, s, path); r.Code != http.StatusOK {
			b.Fatalf("GET %s: %d\n%.300s", path, r.Code, r.Body)
		}
	}
}

// BenchmarkPairsTable: the metrics table, every annotator against one
// reference (cache warm, as on every change of view after the first).
func BenchmarkPairsTable(b *testing.B) {
	s := quietServer(mustBenchAP(b))
	get(b, s, "/pairs/bench")
	benchGet(b, s, "/pairs/bench?sort=spread&dir=desc")
}

// BenchmarkPairsSplit: the same table split by a metadata column with four
// values.
func BenchmarkPairsSplit(b *testing.B) {
	s := quietServer(mustBenchAP(b))
	get(b, s, "/pairs/bench")
	benchGet(b, s, "/pairs/bench?split=topic&sort=spread&dir=desc")
}

// BenchmarkPairsSearch: the comparison browser's text search over every
// prompt and response (case-insensitive).
func BenchmarkPairsSearch(b *testing.B) {
	s := quietServer(mustBenchAP(b))
	get(b, s, "/pairs/bench")
	benchGet(b, s, "/pairs/bench/comparisons?q=Reason+Clearly")
}

// BenchmarkPairsBootstrap: the strength intervals of every annotator (1,000
// paired resamples) on a cold cache; a second request is served from it.
func BenchmarkPairsBootstrap(b *testing.B) {
	store := mustBenchAP(b)
	warm := quietServer(store)
	get(b, warm, "/pairs/bench") // the vote matrix is loaded; the bootstrap is not
	for b.Loop() {
		b.StopTimer()
		s := quietServer(store)
		get(b, s, "/pairs/bench")
		b.StartTimer()
		if r := get(b, s, "/pairs/bench?ci=1"); r.Code != http.StatusOK {
			b.Fatal(r.Code)
		}
	}
}

// BenchmarkDemoStart: the demo's first start (a fresh in-memory database,
// the whole demo loaded, the first page served) and a later one (the copy
// the first start keeps, opened read-only, and the first page served).
func BenchmarkDemoStart(b *testing.B) {
	ctx := context.Background()
	b.Run("first", func(b *testing.B) {
		for b.Loop() {
			store, err := data.Open(ctx, data.Options{})
			if err != nil {
				b.Fatal(err)
			}
			if _, err := demodb.Load(ctx, store); err != nil {
				b.Fatal(err)
			}
			if r := get(b, quietServer(store), "/"); r.Code != http.StatusOK {
				b.Fatal(r.Code)
			}
			b.StopTimer()
			store.Close()
			b.StartTimer()
		}
	})
	b.Run("second", func(b *testing.B) {
		store, err := data.Open(ctx, data.Options{})
		if err != nil {
			b.Fatal(err)
		}
		if _, err := demodb.Load(ctx, store); err != nil {
			b.Fatal(err)
		}
		if err := store.BuildPendingScores(ctx); err != nil {
			b.Fatal(err)
		}
		kept := filepath.Join(b.TempDir(), "demo.duckdb")
		if err := store.SaveCopy(ctx, kept); err != nil {
			b.Fatal(err)
		}
		store.Close()
		for b.Loop() {
			ro, err := data.Open(ctx, data.Options{Path: kept, ReadOnly: true})
			if err != nil {
				b.Fatal(err)
			}
			demodb.Reopened(ro)
			if r := get(b, quietServer(ro), "/"); r.Code != http.StatusOK {
				b.Fatal(r.Code)
			}
			b.StopTimer()
			ro.Close()
			b.StartTimer()
		}
	})
}

// bench100k is a store with the synthetic experiment scaled to about
// AUDITSCOPE_BENCH_AUDITS audits (100,000 by default).
var bench100k = sync.OnceValues(func() (*data.Store, error) {
	n := 100000
	if v, err := strconv.Atoi(os.Getenv("AUDITSCOPE_BENCH_AUDITS")); err == nil && v > 0 {
		n = v
	}
	ctx := context.Background()
	store, err := data.Open(ctx, data.Options{})
	if err != nil {
		return nil, err
	}
	b := demo.Experiment(demo.Options{Audits: n})
	_, err = store.ImportBundle(ctx, bundle.FromBundle(b, "bench", false), "bench-"+strconv.Itoa(n),
		data.ImportOptions{Synthetic: true, Transcripts: func(id string) ([]byte, error) { return []byte(`{"metadata":{}}`), nil }})
	return store, err
})

// BenchmarkAuditBrowser100k: filter, sort and one page of the audit browser.
func BenchmarkAuditBrowser100k(b *testing.B) {
	s := quietServer(must(b, bench100k))
	benchGet(b, s, "/audits?exp=demo&eval=production&split=benign&sort=turns&dir=desc&page=3")
}

// BenchmarkAuditScoreFilter100k: a judge-score threshold sorted by that score.
func BenchmarkAuditScoreFilter100k(b *testing.B) {
	s := quietServer(must(b, bench100k))
	benchGet(b, s, "/audits?exp=demo&score=concerning%3E%3D7&sort=score:concerning&dir=desc")
}

// BenchmarkSearch100k: full-text search over every transcript and summary.
func BenchmarkSearch100k(b *testing.B) {
	s := quietServer(must(b, bench100k))
	benchGet(b, s, "/audits?exp=demo&q=academic+citations")
}

// BenchmarkOverview100k: the experiment overview on a cold cache (every
// auditor's dimensions with bootstrap intervals computed from the audits).
func BenchmarkOverview100k(b *testing.B) {
	store := must(b, bench100k)
	for b.Loop() {
		if r := get(b, quietServer(store), "/experiments/demo"); r.Code != http.StatusOK {
			b.Fatal(r.Code)
		}
	}
}

// BenchmarkFigures100k: every experiment figure as SVG (statistics cached,
// figures drawn each time).
func BenchmarkFigures100k(b *testing.B) {
	s := quietServer(must(b, bench100k))
	figs := []string{"scores.svg", "rwr.svg", "transfer.svg", "cycles.svg", "dose.svg", "refresh.svg?dim=composite", "crux-realism.svg"}
	for _, f := range figs {
		get(b, s, "/experiments/demo/figures/"+f) // warm the statistics
	}
	for _, f := range figs {
		name := strings.TrimSuffix(strings.Split(f, "?")[0], filepath.Ext(strings.Split(f, "?")[0]))
		b.Run(name, func(b *testing.B) { benchGet(b, s, "/experiments/demo/figures/"+f) })
	}
}

// BenchmarkAuditPage100k: one audit page opened from a filtered list
// (previous/next computed within the filter).
func BenchmarkAuditPage100k(b *testing.B) {
	s := quietServer(must(b, bench100k))
	benchGet(b, s, "/audits/demo:a-000500?exp=demo&eval=production&sort=turns&dir=desc")
}

// BenchmarkAuditsCSV100k: the audit browser's export of every audit of
// the experiment, as a download reads it (MB/s is the CSV's bytes over
// server time). BenchmarkAuditsCSVDemo is the built-in demo's (issue #32's
// "full demo audits.csv" with its 38 judge-score columns).
func BenchmarkAuditsCSV100k(b *testing.B) {
	benchExport(b, quietServer(must(b, bench100k)), "/audits.csv?exp=demo")
}

func BenchmarkAuditsCSVDemo(b *testing.B) {
	benchExport(b, quietServer(mustDemoStore(b)), "/audits.csv?exp=demo")
}

func benchExport(b *testing.B, s *web.Server, path string) {
	for b.Loop() {
		r := get(b, s, path)
		if r.Code != http.StatusOK {
			b.Fatalf("GET %s: %d\n%.300s", path, r.Code, r.Body)
		}
		b.SetBytes(int64(len(r.Body)))
	}
}

// BenchmarkUnits100k: the units behind the composite row (the largest:
// every unit of four dimensions) of a pair of auditors, on a server whose
// statistics are computed (as Warm leaves them at start-up); the first
// request gathers every auditor's units, once per version of the data.
// BenchmarkUnitsGather100k is that first request.
func BenchmarkUnits100k(b *testing.B) {
	s := quietServer(must(b, bench100k))
	get(b, s, "/experiments/demo") // the statistics and the ranking
	benchGet(b, s, "/experiments/demo/compare/units?a=binary-pointwise%40e3&b=claude-opus-4.6&dim=composite")
}

func BenchmarkUnitsGather100k(b *testing.B) {
	store := must(b, bench100k)
	for b.Loop() {
		b.StopTimer()
		s := quietServer(store)
		get(b, s, "/experiments/demo") // the statistics, not timed
		b.StartTimer()
		if r := get(b, s, "/experiments/demo/compare/units?a=binary-pointwise%40e3&b=claude-opus-4.6&dim=composite"); r.Code != http.StatusOK {
			b.Fatal(r.Code)
		}
	}
}

// BenchmarkSideBySide100k: two audits of one unit side by side.
func BenchmarkSideBySide100k(b *testing.B) {
	s := quietServer(must(b, bench100k))
	benchGet(b, s, "/audits/side-by-side?a=demo:a-000500&b=demo:a-000501")
}

// compareBench is the compare page of the headline checkpoint against two
// baselines: every dimension, the behavior breakdown and the composite's
// paired bootstrap.
const compareBench = "/experiments/demo/compare?a=ref-pairwise-cal50@e3&b=claude-opus-4.6&b=claude-haiku-4.5"

// BenchmarkCompareCold100k: the compare page on a cold server (the
// experiment's statistics and the comparisons computed each time).
func BenchmarkCompareCold100k(b *testing.B) {
	store := must(b, bench100k)
	for b.Loop() {
		if r := get(b, quietServer(store), compareBench); r.Code != http.StatusOK {
			b.Fatal(r.Code)
		}
	}
}

// BenchmarkCompareCached100k: the compare page with its statistics cached
// (the page rendered each time: the response cache is off).
func BenchmarkCompareCached100k(b *testing.B) {
	s := quietServer(must(b, bench100k))
	get(b, s, compareBench) // warm the statistics and comparisons
	benchGet(b, s, compareBench)
}

// bench100kLake is the 100,000-audit store written as a Parquet lake and
// served from it (serve --lake).
var bench100kLake = sync.OnceValues(func() (*lake.Store, error) {
	store, err := bench100k()
	if err != nil {
		return nil, err
	}
	return lakeOf(store)
})

// lakeOf writes store as a Parquet lake into a new folder and serves it.
func lakeOf(store *data.Store) (*lake.Store, error) {
	dir, err := os.MkdirTemp("", "auditscope-lake-bench-")
	if err != nil {
		return nil, err
	}
	if _, err := lake.Write(context.Background(), store, dir, lake.WriteOptions{}); err != nil {
		return nil, err
	}
	return lake.Open(context.Background(), dir, "")
}

// must is what a store built once (a sync.OnceValues) holds, or the
// benchmark's end.
func must[T any](b *testing.B, once func() (T, error)) T {
	b.Helper()
	v, err := once()
	if err != nil {
		b.Fatal(err)
	}
	return v
}

// BenchmarkAuditBrowser100kLake is BenchmarkAuditBrowser100k served from
// the lake.
func BenchmarkAuditBrowser100kLake(b *testing.B) {
	s := quietServer(must(b, bench100kLake))
	benchGet(b, s, "/audits?exp=demo&eval=production&split=benign&sort=turns&dir=desc&page=3")
}

// BenchmarkAuditScoreFilter100kLake is BenchmarkAuditScoreFilter100k
// served from the lake.
func BenchmarkAuditScoreFilter100kLake(b *testing.B) {
	s := quietServer(must(b, bench100kLake))
	benchGet(b, s, "/audits?exp=demo&score=concerning%3E%3D7&sort=score:concerning&dir=desc")
}

// BenchmarkOverview100kLake is BenchmarkOverview100k (cold statistics)
// served from the lake.
func BenchmarkOverview100kLake(b *testing.B) {
	store := must(b, bench100kLake)
	for b.Loop() {
		if r := get(b, quietServer(store), "/experiments/demo"); r.Code != http.StatusOK {
			b.Fatal(r.Code)
		}
	}
}

// benchAPLake is the AnnotatedPairs benchmark store served from a lake.
var benchAPLake = sync.OnceValues(func() (*lake.Store, error) {
	store, err := benchAP()
	if err != nil || store == nil {
		return nil, err
	}
	return lakeOf(store)
})

// BenchmarkPairsTableLake is BenchmarkPairsTable served from the lake.
func BenchmarkPairsTableLake(b *testing.B) {
	mustBenchAP(b) // skips without the input
	s := quietServer(must(b, benchAPLake))
	get(b, s, "/pairs/bench")
	benchGet(b, s, "/pairs/bench?sort=spread&dir=desc")
}

// bucketLake writes the 100,000-audit store as a lake into a bucket of a
// real S3-compatible server (skipped without one) and returns the bucket.
func bucketLake(b *testing.B) *bucket.Bucket {
	b.Helper()
	store := must(b, bench100k)
	s3test.Start(b, "lakes")
	bk, err := bucket.Open(context.Background(), "s3://lakes/bench")
	if err != nil {
		b.Fatal(err)
	}
	if _, err := lake.WriteBucket(context.Background(), store, bk, lake.WriteOptions{}); err != nil {
		b.Fatal(err)
	}
	return bk
}

// BenchmarkLakeWriteBucket100k: lake write of the 100,000-audit store into
// a bucket (a new prefix each time: every file sent).
func BenchmarkLakeWriteBucket100k(b *testing.B) {
	store := must(b, bench100k)
	s3test.Start(b, "lakes")
	i := 0
	for b.Loop() {
		i++
		bk, err := bucket.Open(context.Background(), "s3://lakes/w"+strconv.Itoa(i))
		if err != nil {
			b.Fatal(err)
		}
		if _, err := lake.WriteBucket(context.Background(), store, bk, lake.WriteOptions{}); err != nil {
			b.Fatal(err)
		}
	}
}

// BenchmarkBucketLakeColdStart100k: a server on the bucket's lake from an
// empty cache (every file fetched and checked) through its first page, the
// audit browser.
func BenchmarkBucketLakeColdStart100k(b *testing.B) {
	bk := bucketLake(b)
	for b.Loop() {
		l, err := lake.OpenBucket(context.Background(), bk, "", lake.BucketOptions{Cache: b.TempDir(), CacheSize: 4 << 30, Every: time.Hour})
		if err != nil {
			b.Fatal(err)
		}
		if r := get(b, quietServer(l), "/audits?exp=demo&eval=production&split=benign&sort=turns&dir=desc&page=3"); r.Code != http.StatusOK {
			b.Fatal(r.Code)
		}
		l.Close()
	}
}

// BenchmarkAuditBrowser100kBucketLake is BenchmarkAuditBrowser100kLake
// served from the bucket's lake, its cache warm.
func BenchmarkAuditBrowser100kBucketLake(b *testing.B) {
	bk := bucketLake(b)
	l, err := lake.OpenBucket(context.Background(), bk, "", lake.BucketOptions{Cache: b.TempDir(), CacheSize: 4 << 30, Every: time.Hour})
	if err != nil {
		b.Fatal(err)
	}
	defer l.Close()
	benchGet(b, quietServer(l), "/audits?exp=demo&eval=production&split=benign&sort=turns&dir=desc&page=3")
}
