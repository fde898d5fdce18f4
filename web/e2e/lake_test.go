package e2e

import (
	"context"
	"encoding/json"
	"io"
	"log/slog"
	"net/http"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/auditscope/auditscope/data"
	"github.com/auditscope/auditscope/data/lake"
	"github.com/auditscope/auditscope/web"
	"github.com/auditscope/auditscope/web/app"
)

// freshnessRe matches what differs between two servers of the same data:
// the data version and when each last changed.
var freshnessRe = regexp.MustCompile(`data-version="[0-9]*"|Data last changed [^<]*`)

// TestLakeSameBytes serves one set of data from a database and from the
// Parquet lake written from it, and checks that the pages, CSVs and
// figures are the same bytes (the freshness footer aside).
func TestLakeSameBytes(t *testing.T) {
	ctx := context.Background()
	store, err := data.Open(ctx, data.Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer store.Close()
	root := filepath.Join("..", "..")
	for _, p := range []string{
		filepath.Join(root, "data", "testdata", "bundle-small"),
		filepath.Join(root, "data", "testdata", "petri"),
		filepath.Join(root, "testdata", "fixtures", "inspect", "docent-sample.eval"),
		filepath.Join(root, "data", "demo", "fixtures", "icai-example-v2-40-principles.json"),
	} {
		if _, err := store.Import(ctx, p, data.ImportOptions{}); err != nil {
			t.Fatal(err)
		}
	}
	dir := t.TempDir()
	if _, err := lake.Write(ctx, store, dir, lake.WriteOptions{}); err != nil {
		t.Fatal(err)
	}
	ls, err := lake.Open(ctx, dir, "")
	if err != nil {
		t.Fatal(err)
	}
	defer ls.Close()
	quiet := slog.New(slog.NewTextHandler(io.Discard, nil))
	db, lk := web.New(store, quiet, web.Config{}), web.New(ls, quiet, web.Config{})
	audits := csvRows(t, mustGet(t, db, "/audits.csv?exp=small", http.StatusOK, "text/csv").Body)
	sum, err := store.Summary(ctx)
	if err != nil || len(sum.Datasets) != 1 {
		t.Fatalf("datasets: %v %v", sum.Datasets, err)
	}
	ds := "/pairs/" + sum.Datasets[0].ID
	urls := []string{
		"/", "/experiments/small", "/experiments/small/scores.csv", "/experiments/small/figures/scores.svg",
		"/experiments/small/rwr", "/experiments/small/rwr.csv", "/experiments/small/crux", "/experiments/small/transfer",
		"/experiments/small/cycles", "/experiments/small/judgments", "/experiments/small/judgments.csv",
		"/audits?exp=small", "/audits.csv?exp=small", "/audits?exp=petri", "/audits/" + audits[0]["experiment"] + ":" + audits[0]["id"],
		"/audits/petri:petri-rollback-01", "/audits/docent-sample:19_epoch_1",
		"/experiments/docent-sample", "/experiments/docent-sample/scorers.csv",
		ds, ds + "/table.csv", ds + "/comparisons", ds + "/figures/strength.svg", ds + "/models",
	}
	for _, u := range urls {
		a, b := get(t, db, u), get(t, lk, u)
		if a.Code != http.StatusOK {
			t.Errorf("%s: %d from the database", u, a.Code)
			continue
		}
		if b.Code != a.Code || freshnessRe.ReplaceAllString(a.Body, "") != freshnessRe.ReplaceAllString(b.Body, "") {
			t.Errorf("%s: the lake serves other bytes (%d, %d bytes; database %d, %d bytes)", u, b.Code, len(b.Body), a.Code, len(a.Body))
		}
	}
	// In small chunks, an export of one experiment in file order reads
	// ranges of ord in the order the rows are stored (the database's
	// table, the lake's Parquet files), sorted again when they come
	// otherwise: the same bytes either way.
	whole := map[string]string{}
	for _, u := range []string{"/audits.csv?exp=small", "/audits.csv?exp=small&eval=" + audits[0]["eval"], "/audits.csv?exp=petri"} {
		whole[u] = mustGet(t, db, u, http.StatusOK, "text/csv").Body
	}
	defer func(n int) { app.ExportChunk = n }(app.ExportChunk)
	for _, n := range []int{1, 2, 3} {
		app.ExportChunk = n
		for u, want := range whole {
			a, b := get(t, db, u), get(t, lk, u)
			if a.Code != http.StatusOK || a.Body != want {
				t.Errorf("chunks of %d, %s: the database serves %d, %d bytes; in one chunk %d bytes", n, u, a.Code, len(a.Body), len(want))
			}
			if b.Code != a.Code || b.Body != a.Body {
				t.Errorf("chunks of %d, %s: the lake serves other bytes (%d, %d bytes; database %d, %d bytes)", n, u, b.Code, len(b.Body), a.Code, len(a.Body))
			}
		}
	}
}

// TestLakeTwoServers: two servers on one lake each pick a new generation
// up on their next request (their caches keyed by version), and keep
// serving the last good one when the manifest breaks.
func TestLakeTwoServers(t *testing.T) {
	ctx := context.Background()
	writer, err := data.Open(ctx, data.Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer writer.Close()
	ap := filepath.Join("..", "..", "data", "demo", "fixtures", "icai-example-v2-models.json")
	if _, err := writer.Import(ctx, ap, data.ImportOptions{Name: "prefs"}); err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	if _, err := lake.Write(ctx, writer, dir, lake.WriteOptions{}); err != nil {
		t.Fatal(err)
	}
	quiet := slog.New(slog.NewTextHandler(io.Discard, nil))
	var servers []*web.Server
	for range 2 {
		l, err := lake.Open(ctx, dir, "")
		if err != nil {
			t.Fatal(err)
		}
		defer l.Close()
		s := web.New(l, quiet, web.Config{})
		if body := mustGet(t, s, "/pairs/prefs", http.StatusOK, "text/html").Body; strings.Contains(body, "changed in the lake") {
			t.Fatal("new text before the change")
		}
		servers = append(servers, s)
	}
	b, _ := os.ReadFile(ap)
	var doc map[string]any
	json.Unmarshal(b, &doc)
	doc["metadata"].(map[string]any)["description"] = "changed in the lake"
	out, _ := json.Marshal(doc)
	changed := filepath.Join(t.TempDir(), "prefs.json")
	os.WriteFile(changed, out, 0o644)
	if _, err := writer.Import(ctx, changed, data.ImportOptions{Name: "prefs", Replace: true}); err != nil {
		t.Fatal(err)
	}
	if _, err := lake.Write(ctx, writer, dir, lake.WriteOptions{}); err != nil {
		t.Fatal(err)
	}
	for i, s := range servers {
		if body := mustGet(t, s, "/pairs/prefs", http.StatusOK, "text/html").Body; !strings.Contains(body, "changed in the lake") {
			t.Errorf("server %d still serves the old generation", i)
		}
	}
	// A new generation with a damaged file: both go on serving the last
	// good generation, and their home pages name the file.
	doc["metadata"].(map[string]any)["description"] = "damaged"
	out, _ = json.Marshal(doc)
	os.WriteFile(changed, out, 0o644)
	if _, err := writer.Import(ctx, changed, data.ImportOptions{Name: "prefs", Replace: true}); err != nil {
		t.Fatal(err)
	}
	if _, err := lake.Write(ctx, writer, dir, lake.WriteOptions{}); err != nil {
		t.Fatal(err)
	}
	m, _ := lake.ReadManifest(dir)
	bad := filepath.Join(dir, "ap_datasets", "dataset=prefs", "gen="+m.Datasets["prefs"], "data.parquet")
	body, _ := os.ReadFile(bad)
	os.WriteFile(bad, body[:len(body)-1], 0o644)
	for i, s := range servers {
		if body := mustGet(t, s, "/pairs/prefs", http.StatusOK, "text/html").Body; !strings.Contains(body, "changed in the lake") {
			t.Errorf("server %d lost the last good generation", i)
		}
		contains(t, "home page", mustGet(t, s, "/", http.StatusOK, "text/html").Body, `data-testid="lake-problem"`, bad, "cut short")
	}
	// A broken manifest: both go on serving the last good generation.
	os.WriteFile(filepath.Join(dir, "manifest.json"), []byte("{"), 0o644)
	for i, s := range servers {
		if body := mustGet(t, s, "/pairs/prefs", http.StatusOK, "text/html").Body; !strings.Contains(body, "changed in the lake") {
			t.Errorf("server %d lost the last good generation", i)
		}
		contains(t, "home page", mustGet(t, s, "/", http.StatusOK, "text/html").Body, `data-testid="lake-problem"`, "manifest.json")
	}
	// A lake that is not there cannot be opened, and says where it looked.
	if _, err := lake.Open(ctx, filepath.Join(dir, "nope"), ""); err == nil || !strings.Contains(err.Error(), "nope") {
		t.Errorf("missing lake: %v", err)
	}
}

// TestLakeDemoSameBytes: the built-in demo, written as a lake (its
// transcripts, generated in memory, written out) and served from it, gives
// the same bytes as the demo served from its database on the pages of
// every kind. It is the demo of a tenth of the size the fuzz targets serve
// (smallDemo: every route and name of the whole one, 6,000 audits): the
// whole demo took twenty seconds here for the same pages, its statistics
// computed twice; a lake of 100,000 audits is BenchmarkLakeWriteMemory's.
func TestLakeDemoSameBytes(t *testing.T) {
	if testing.Short() {
		t.Skip("writes the demo as a lake")
	}
	// Independent of the other tests (servers of its own on the
	// read-only small demo): run beside them, on the other core.
	t.Parallel()
	ctx := context.Background()
	store, err := smallDemo()
	if err != nil {
		t.Fatal(err)
	}
	db := web.New(store, slog.New(slog.NewTextHandler(io.Discard, nil)), web.Config{Wait: time.Hour})
	dir := t.TempDir()
	if _, err := lake.Write(ctx, store, dir, lake.WriteOptions{}); err != nil {
		t.Fatal(err)
	}
	ls, err := lake.Open(ctx, dir, "")
	if err != nil {
		t.Fatal(err)
	}
	defer ls.Close()
	lk := web.New(ls, slog.New(slog.NewTextHandler(io.Discard, nil)), web.Config{Wait: time.Hour})
	audits := csvRows(t, mustGet(t, db, "/audits.csv?exp=demo&eval=audit_quality&per=1", http.StatusOK, "text/csv").Body)
	urls := []string{
		"/", "/experiments/demo", "/experiments/demo/scores.csv", "/experiments/demo/figures/scores.svg",
		"/experiments/demo/rwr", "/experiments/demo/transfer", "/experiments/demo/cycles", "/experiments/demo/crux",
		"/experiments/demo/compare?a=ref-pairwise-cal50@e3&b=claude-opus-4.6", "/experiments/demo/compare.csv?a=ref-pairwise-cal50@e3&b=claude-opus-4.6",
		"/experiments/demo/judgments?kind=realism", "/runs/demo:ref-pairwise-cal50",
		"/audits?exp=demo", "/audits?exp=demo&score=concerning>=7&sort=score:concerning&dir=desc",
		"/audits/demo:" + audits[0]["id"], "/audits/demo:" + audits[0]["id"] + "/transcript.json",
		"/pairs/synthetic-personality-demo", "/pairs/synthetic-personality-demo/table.csv",
		"/pairs/synthetic-personality-demo/models", "/pairs/synthetic-personality-demo/comparisons?q=formal",
	}
	for _, u := range urls {
		a, b := get(t, db, u), get(t, lk, u)
		if a.Code != http.StatusOK {
			t.Errorf("%s: %d from the database", u, a.Code)
			continue
		}
		if b.Code != a.Code || freshnessRe.ReplaceAllString(a.Body, "") != freshnessRe.ReplaceAllString(b.Body, "") {
			t.Errorf("%s: the lake serves other bytes (%d, %d bytes; database %d, %d bytes)", u, b.Code, len(b.Body), a.Code, len(a.Body))
		}
	}
}

// TestLakeCorruptFile: a file of the lake that is not Parquet (nor what
// the manifest records) is refused at start, naming it: its experiment is
// not served, the home page says why, and the server starts.
func TestLakeCorruptFile(t *testing.T) {
	ctx := context.Background()
	store, err := data.Open(ctx, data.Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer store.Close()
	if _, err := store.Import(ctx, filepath.Join("..", "..", "data", "testdata", "bundle-small"), data.ImportOptions{}); err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	if _, err := lake.Write(ctx, store, dir, lake.WriteOptions{}); err != nil {
		t.Fatal(err)
	}
	files, _ := filepath.Glob(filepath.Join(dir, "audits", "*", "*", "data.parquet"))
	os.WriteFile(files[0], []byte("not parquet"), 0o644)
	l, err := lake.Open(ctx, dir, "")
	if err != nil {
		t.Fatalf("a start with a corrupt file: %v", err)
	}
	defer l.Close()
	if p := l.LakeProblem(); p == nil || !strings.Contains(p.Error(), files[0]) || strings.Contains(p.Error(), "LINE") {
		t.Errorf("corrupt file: the problem is %+v", p)
	}
	if _, err := l.Experiment(ctx, "small"); err == nil {
		t.Error("the experiment with the corrupt file is served")
	}
	var logged strings.Builder
	s := web.New(l, slog.New(slog.NewTextHandler(&logged, nil)), web.Config{})
	if home := get(t, s, "/"); !strings.Contains(home.Body, `data-testid="lake-problem"`) || !strings.Contains(home.Body, filepath.Base(filepath.Dir(files[0]))) {
		t.Errorf("the home page does not name the corrupt file:\n%.600s", home.Body)
	}
	// The refusal is logged once, naming the file, however many requests
	// see it.
	get(t, s, "/")
	if n := strings.Count(logged.String(), files[0]); n != 1 {
		t.Errorf("the log names the refused file %d times, want once:\n%s", n, logged.String())
	}
}
