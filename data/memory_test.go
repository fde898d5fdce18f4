package data

import (
	"context"
	"database/sql"
	"fmt"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"testing"

	"github.com/auditscope/auditscope/data/internal/memlimit"
)

// writeAP writes an AnnotatedPairs 2.0 file of n comparisons with two
// annotators.
func writeAP(t testing.TB, path string, n int) {
	t.Helper()
	var b strings.Builder
	b.WriteString(`{"metadata": {"version": "2.0", "dataset_name": "stream", "default_annotator": "h"},
"annotators": {"h": {"type": "human"}, "p": {"type": "principle", "description": "Select the more concise response"}},
"comparisons": [`)
	for i := range n {
		if i > 0 {
			b.WriteByte(',')
		}
		pref := []string{"a", "b"}[i%2]
		fmt.Fprintf(&b, `{"id": "c%d", "prompt": "question %d", "response_a": {"text": "answer a %d %s"}, "response_b": {"text": "answer b %d"}, "annotations": {"h": {"pref": %q}, "p": {"pref": "a"}}}`,
			i, i, i, strings.Repeat("x", i%50), i, pref)
	}
	b.WriteString("]}")
	if err := os.WriteFile(path, []byte(b.String()), 0o644); err != nil {
		t.Fatal(err)
	}
}

func memoryLimit(t testing.TB, s *Store) string {
	t.Helper()
	var v string
	if err := s.db.QueryRow(`SELECT current_setting('memory_limit')`).Scan(&v); err != nil {
		t.Fatal(err)
	}
	return v
}

// A streaming import into a file database runs under the low memory limit
// with the allocator returning freed pages soon, writes row groups of
// rowGroupSize, and puts both settings back when it ends.
func TestStreamingImportFileStore(t *testing.T) {
	ctx := context.Background()
	dir := t.TempDir()
	db := filepath.Join(dir, "s.duckdb")
	s, err := Open(ctx, Options{Path: db})
	if err != nil {
		t.Fatal(err)
	}
	defer func() { s.Close() }()
	before := memoryLimit(t, s)
	decay, haveJemalloc := memlimit.SetPageDecay(memlimit.PageDecay{Dirty: 1234, Muzzy: 4321})
	if haveJemalloc {
		memlimit.SetPageDecay(decay)
	} else if runtime.GOOS == "linux" {
		t.Error("setPageDecay found no jemalloc in DuckDB's Linux build")
	}

	const n = 3*rowGroupSize + 17
	in := filepath.Join(dir, "stream.json")
	writeAP(t, in, n)
	var during []string
	_, err = s.ImportAnnotatedPairs(ctx, in, ImportOptions{Progress: func(done, total int64) {
		// memory_limit is the database's setting: another connection sees it.
		if len(during) == 0 {
			during = append(during, memoryLimit(t, s))
		}
	}})
	if err != nil {
		t.Fatal(err)
	}
	if len(during) == 0 || during[0] == before || !strings.Contains(during[0], "MiB") {
		t.Errorf("memory_limit during the import = %v, before %q; want the streaming limit of %d MiB", during, before, streamImportMemoryMiB)
	}
	sameLimit(t, memoryLimit(t, s), before)
	needsMemory(t, s)
	if haveJemalloc {
		now, _ := memlimit.SetPageDecay(decay)
		if now != decay {
			t.Errorf("page decay after the import = %+v, want %+v back", now, decay)
		}
	}
	if got := count(t, s, `SELECT count(*) FROM ap_comparisons`); got != n {
		t.Fatalf("%d comparisons, want %d", got, n)
	}
	// The texts went to disk a row group at a time, not in one group at
	// commit.
	if groups := count(t, s, `SELECT count(DISTINCT row_group_id) FROM pragma_storage_info('ap_comparisons')`); groups < 3 {
		t.Errorf("ap_comparisons has %d row groups, want ≥ 3 of %d rows", groups, rowGroupSize)
	}

	// Everything is there after reopening the file.
	if err := s.Close(); err != nil {
		t.Fatal(err)
	}
	s, err = Open(ctx, Options{Path: db})
	if err != nil {
		t.Fatal(err)
	}
	if got := count(t, s, `SELECT count(*) FROM ap_votes WHERE dataset = 'stream'`); got != 2*n {
		t.Errorf("%d votes after reopening, want %d", got, 2*n)
	}
	if got := count(t, s, `SELECT count(*) FROM ap_comparisons WHERE id = 'c1000' AND text_a LIKE 'answer a 1000 %'`); got != 1 {
		t.Errorf("comparison c1000 not found intact after reopening")
	}
}

// Imports one after another put back the same limit each time (the value
// read back is rounded, so it is read once).
func TestLowMemoryImportNoCreep(t *testing.T) {
	ctx := context.Background()
	s, err := Open(ctx, Options{Path: filepath.Join(t.TempDir(), "c.duckdb")})
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	var after []string
	for range 4 {
		if err := s.mem.Import(ctx, streamImportMemoryMiB, func() error { return nil }); err != nil {
			t.Fatal(err)
		}
		after = append(after, memoryLimit(t, s))
	}
	for _, v := range after[1:] {
		if v != after[0] {
			t.Errorf("limits after successive imports: %v, want the same each time", after)
			break
		}
	}
}

// A limit the user set is left alone.
func TestStreamingImportUserLimit(t *testing.T) {
	ctx := context.Background()
	dir := t.TempDir()
	s, err := Open(ctx, Options{Path: filepath.Join(dir, "u.duckdb"), MemoryLimit: "1GB"})
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	want := memoryLimit(t, s)
	in := filepath.Join(dir, "u.json")
	writeAP(t, in, 100)
	var during string
	if _, err := s.ImportAnnotatedPairs(ctx, in, ImportOptions{Progress: func(done, total int64) {
		if during == "" {
			during = memoryLimit(t, s)
		}
	}}); err != nil {
		t.Fatal(err)
	}
	if during != want {
		t.Errorf("memory_limit during the import = %q, want the user's %q", during, want)
	}
}

// currentPageDecay reads DuckDB's allocator setting (by setting one and
// putting it back: jemalloc answers a write with the value before it).
func currentPageDecay() memlimit.PageDecay {
	d, _ := memlimit.SetPageDecay(memlimit.PageDecay{})
	memlimit.SetPageDecay(d)
	return d
}

// Overlapping imports share the allocator setting: it returns to what it
// was only when the last one ends.
func TestReturnPagesSoonNested(t *testing.T) {
	orig, ok := memlimit.SetPageDecay(memlimit.PageDecay{Dirty: 700, Muzzy: 800})
	if !ok {
		t.Skip("DuckDB has no jemalloc here")
	}
	defer memlimit.SetPageDecay(orig)
	want := memlimit.PageDecay{Dirty: 700, Muzzy: 800}
	releaseA := memlimit.ReturnPagesSoon()
	releaseB := memlimit.ReturnPagesSoon()
	if d := currentPageDecay(); d != memlimit.ImportPageDecay {
		t.Fatalf("during two imports: %+v, want %+v", d, memlimit.ImportPageDecay)
	}
	releaseA()
	if d := currentPageDecay(); d != memlimit.ImportPageDecay {
		t.Errorf("one import still running: %+v, want %+v", d, memlimit.ImportPageDecay)
	}
	releaseB()
	if d := currentPageDecay(); d != want {
		t.Errorf("after both: %+v, want %+v", d, want)
	}
}

// A serving process keeps freed pages for ServePageDecay; an import in it
// returns them soon while it runs, then puts the serving setting back.
func TestKeepFreedPages(t *testing.T) {
	orig, ok := memlimit.SetPageDecay(memlimit.PageDecay{Dirty: 700, Muzzy: 800})
	if !ok {
		t.Skip("DuckDB has no jemalloc here")
	}
	defer memlimit.SetPageDecay(orig)
	KeepFreedPages()
	if d := currentPageDecay(); d != memlimit.ServePageDecay {
		t.Fatalf("serving: %+v, want %+v", d, memlimit.ServePageDecay)
	}
	release := memlimit.ReturnPagesSoon()
	if d := currentPageDecay(); d != memlimit.ImportPageDecay {
		t.Errorf("during an import: %+v, want %+v", d, memlimit.ImportPageDecay)
	}
	release()
	if d := currentPageDecay(); d != memlimit.ServePageDecay {
		t.Errorf("after the import: %+v, want %+v", d, memlimit.ServePageDecay)
	}
	// Set while an import runs: the import keeps its own setting, and the
	// serving one follows it, rather than the one from before.
	memlimit.SetPageDecay(memlimit.PageDecay{Dirty: 700, Muzzy: 800})
	release = memlimit.ReturnPagesSoon()
	KeepFreedPages()
	if d := currentPageDecay(); d != memlimit.ImportPageDecay {
		t.Errorf("set during an import: %+v, want the import's %+v", d, memlimit.ImportPageDecay)
	}
	release()
	if d := currentPageDecay(); d != memlimit.ServePageDecay {
		t.Errorf("after an import it was set during: %+v, want %+v", d, memlimit.ServePageDecay)
	}
}

// An error inside a comparison names the line the comparison starts on,
// not the line of the comma before it.
func TestAnnotatedPairsErrorLine(t *testing.T) {
	s := mustOpenStore(t)
	in := filepath.Join(t.TempDir(), "bad.json")
	body := `{"metadata": {"version": "2.0"}, "annotators": {"h": {"type": "human"}}, "comparisons": [
{"id": "c0", "response_a": {"text": "a"}, "response_b": {"text": "b"}},
{"id": "c1", "response_a": {"text": "a"}, "response_b": {"text": "b"}},
{"id": "c2", "response_a": {"text": "a"}, "response_b": {"text": "b"}, "annotations": {"h": {"pref": 7}}}
]}`
	if err := os.WriteFile(in, []byte(body), 0o644); err != nil {
		t.Fatal(err)
	}
	_, err := s.Import(context.Background(), in, ImportOptions{})
	if err == nil || !strings.Contains(err.Error(), "bad.json:4: comparisons[2].annotations.h.pref: want a string") {
		t.Errorf("error = %v, want line 4 and the vote's path", err)
	}
}

// A file cut inside a comparison names that comparison, with no empty path
// segments after it.
func TestAnnotatedPairsTruncatedPath(t *testing.T) {
	s := mustOpenStore(t)
	in := filepath.Join(t.TempDir(), "cut.json")
	body := `{"metadata": {"version": "2.0"}, "annotators": {"h": {"type": "human"}}, "comparisons": [
{"id": "c0", "response_a": {"text": "a"}, "response_b": {"text": "b"}},
{"id": "c1", "response_a": {"text": "a"}, "response_b": {"te`
	if err := os.WriteFile(in, []byte(body), 0o644); err != nil {
		t.Fatal(err)
	}
	_, err := s.Import(context.Background(), in, ImportOptions{})
	if err == nil || !strings.HasSuffix(err.Error(), "cut.json:3: comparisons[1].response_b: the file ends in the middle of the JSON (truncated?)") {
		t.Errorf("error = %v", err)
	}
}

// A bundle that runs out of memory under the import's lowered limit is
// imported again at the default one.
func TestBundleImportRetriesOutOfMemory(t *testing.T) {
	ctx := context.Background()
	s, err := Open(ctx, Options{Path: filepath.Join(t.TempDir(), "b.duckdb")})
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	before := memoryLimit(t, s)
	defer func(old int64) { bundleImportMemoryMiB = old }(bundleImportMemoryMiB)
	// DuckDB takes 2 MiB but cannot even check the name under it.
	bundleImportMemoryMiB = 2
	retries := bundleRetries.Load()
	res, err := s.Import(ctx, "testdata/bundle-small", ImportOptions{})
	if err != nil {
		t.Fatalf("import: %v", err)
	}
	if n := bundleRetries.Load() - retries; n != 1 {
		t.Errorf("%d retries, want 1", n)
	}
	if len(res) != 1 || res[0].Counts["audits"] == 0 || count(t, s, `SELECT count(*) FROM `+allScores) == 0 {
		t.Errorf("results %+v", res)
	}
	sameLimit(t, memoryLimit(t, s), before)
	needsMemory(t, s)
}

// sameLimit checks a memory limit is back to what it was, up to the
// rounding of DuckDB's rendering ("18.8 GiB" set again reads "18.7 GiB").
func sameLimit(t *testing.T, got, want string) {
	t.Helper()
	parse := func(v string) float64 {
		var x float64
		var unit string
		if _, err := fmt.Sscanf(v, "%g %s", &x, &unit); err != nil {
			t.Fatalf("memory limit %q: %v", v, err)
		}
		return x * map[string]float64{"bytes": 1, "KiB": 1 << 10, "MiB": 1 << 20, "GiB": 1 << 30, "TiB": 1 << 40}[unit]
	}
	if g, w := parse(got), parse(want); g < 0.99*w || g > 1.01*w {
		t.Errorf("memory_limit after the import = %q, want %q back", got, want)
	}
}

// needsMemory runs a query that needs more memory (about 100 MB) than the
// limits the tests import under, and cannot spill: it fails if the limit was
// not put back (DuckDB's RESET memory_limit restores the setting's value but
// not the buffer pool's).
func needsMemory(t *testing.T, s *Store) {
	t.Helper()
	var n int64
	if err := s.db.QueryRow(`SELECT length(string_agg(range::VARCHAR, ',')) FROM range(12000000)`).Scan(&n); err != nil {
		t.Errorf("a query needing about 100 MB after the import: %v", err)
	}
}

// Connections opened after DuckDB has spilled to its temporary directory
// still work (the directory is set once, not by every new connection).
func TestNewConnectionsAfterSpill(t *testing.T) {
	ctx := context.Background()
	s, err := Open(ctx, Options{Path: filepath.Join(t.TempDir(), "spill.duckdb"), MemoryLimit: "24MB"})
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	var n int64
	if err := s.db.QueryRow(`SELECT count(*) FROM (SELECT range, random() AS r FROM range(4000000) ORDER BY r)`).Scan(&n); err != nil || n != 4000000 {
		t.Fatalf("a sort that spills: %d, %v", n, err)
	}
	// Hold several connections at once so that the pool opens new ones.
	var conns []*sql.Conn
	for range 4 {
		c, err := s.db.Conn(ctx)
		if err != nil {
			t.Fatalf("connection %d after the spill: %v", len(conns)+1, err)
		}
		conns = append(conns, c)
		if err := c.QueryRowContext(ctx, `SELECT count(*) FROM schema_migrations`).Scan(&n); err != nil {
			t.Errorf("query on connection %d after the spill: %v", len(conns), err)
		}
	}
	for _, c := range conns {
		c.Close()
	}
}

// Overlapping imports share one lowering and the last to end puts the limit
// back.
func TestLowMemoryImportNested(t *testing.T) {
	ctx := context.Background()
	s, err := Open(ctx, Options{Path: filepath.Join(t.TempDir(), "n.duckdb")})
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	before := memoryLimit(t, s)
	var inner, outerAfterInner string
	err = s.mem.Import(ctx, streamImportMemoryMiB, func() error {
		err := s.mem.Import(ctx, bundleImportMemoryMiB, func() error {
			inner = memoryLimit(t, s)
			return nil
		})
		outerAfterInner = memoryLimit(t, s)
		return err
	})
	if err != nil {
		t.Fatal(err)
	}
	// The shared lowering takes the larger limit the inner import asks for.
	if want := fmt.Sprintf("%d.0 MiB", bundleImportMemoryMiB); inner != want || outerAfterInner != want {
		t.Errorf("limit in the inner import %q, in the outer after it %q: want %s in both", inner, outerAfterInner, want)
	}
	sameLimit(t, memoryLimit(t, s), before)
	needsMemory(t, s)
}
