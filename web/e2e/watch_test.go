package e2e

import (
	"archive/zip"
	"bytes"
	"context"
	"encoding/json"
	"io"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/auditscope/auditscope/data/bucket"
	"github.com/auditscope/auditscope/data/model"
	"github.com/auditscope/auditscope/data/s3test"
	"github.com/auditscope/auditscope/data/watch"
	"github.com/auditscope/auditscope/web"
)

// eventually polls cond until it holds, for up to a minute: a guard
// against a hang, which a busy machine does not reach.
func eventually(t testing.TB, what string, cond func() bool) {
	t.Helper()
	deadline := time.Now().Add(time.Minute)
	for !cond() {
		if time.Now().After(deadline) {
			t.Fatalf("timed out waiting for %s", what)
		}
		time.Sleep(20 * time.Millisecond)
	}
}

// auditCount is how many audits the experiment's CSV lists over HTTP.
func auditCount(t testing.TB, s *web.Server, exp string) int {
	t.Helper()
	r := get(t, s, "/audits.csv?exp="+exp)
	if r.Code != http.StatusOK {
		return -1
	}
	return len(csvRows(t, r.Body))
}

// streamingVersions builds the stages of an .eval being written from the
// streaming fixture: the journal's start header with one sample, then
// three, then all four with the final header.json.
func streamingVersions(t testing.TB) [][]byte {
	t.Helper()
	zr, err := zip.OpenReader(filepath.Join(inspectFixtures(t), "log_streaming.eval"))
	if err != nil {
		t.Fatal(err)
	}
	defer zr.Close()
	members := map[string][]byte{}
	for _, f := range zr.File {
		rc, err := f.Open()
		if err != nil {
			t.Fatal(err)
		}
		b, _ := io.ReadAll(rc)
		rc.Close()
		members[f.Name] = b
	}
	build := func(names ...string) []byte {
		var buf bytes.Buffer
		zw := zip.NewWriter(&buf)
		for _, n := range names {
			w, _ := zw.Create(n)
			w.Write(members[n])
		}
		zw.Close()
		return buf.Bytes()
	}
	s := []string{"_journal/start.json", "samples/1_epoch_1.json"}
	return [][]byte{
		build(s...),
		build(append(s, "samples/1_epoch_2.json", "samples/2_epoch_1.json")...),
		build(append(s, "samples/1_epoch_2.json", "samples/2_epoch_1.json", "samples/2_epoch_2.json", "summaries.json", "reductions.json", "header.json")...),
	}
}

// TestWatchFolder copies files into a watched folder one at a time and
// checks, after each, what the dashboard serves over HTTP: transcripts
// appended, an .eval written in stages (running, then complete), a bad file
// named on the home page without holding up the others and retried when it
// changes, a dataset imported and re-imported as a new generation, and
// statistics kept for the experiments a change did not touch.
func TestWatchFolder(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "lab")
	os.Mkdir(dir, 0o755)
	copyFile(t, filepath.Join("..", "..", "data", "testdata", "petri", "legacy.json"), filepath.Join(dir, "legacy.json"))
	s, _ := watchServer(t, dir, watch.Options{})
	if n := auditCount(t, s, "lab"); n != 1 {
		t.Fatalf("at start: %d audits, want 1", n)
	}
	v := s.Store().Version()
	copyFile(t, filepath.Join("..", "..", "data", "testdata", "petri", "reset.json"), filepath.Join(dir, "reset.json"))
	eventually(t, "the second transcript", func() bool { return auditCount(t, s, "lab") == 2 })
	if s.Store().Version() != v+1 {
		t.Errorf("one append moved the version from %d to %d", v, s.Store().Version())
	}
	// An .eval written in stages: its finished samples, and a running log.
	evalPath := filepath.Join(dir, "runs", "pop.eval")
	os.Mkdir(filepath.Dir(evalPath), 0o755)
	stages := streamingVersions(t)
	want := []int{3, 5, 6}
	for i, b := range stages {
		if err := os.WriteFile(evalPath, b, 0o644); err != nil {
			t.Fatal(err)
		}
		eventually(t, "stage "+string(rune('1'+i))+" of the .eval", func() bool { return auditCount(t, s, "lab") == want[i] })
		page := mustGet(t, s, "/experiments/lab", http.StatusOK, "text/html").Body
		running := strings.Contains(page, `data-testid="running"`)
		if running != (i < 2) {
			t.Errorf("stage %d: running shown = %v", i+1, running)
		}
		if i == 2 {
			contains(t, "complete log", page, "0.750 ± 0.250")
		}
	}
	// A bad file: named on the home page; the others go on.
	bad := filepath.Join(dir, "broken.json")
	os.WriteFile(bad, []byte(`{"metadata": {"transcript_id": "x"`), 0o644)
	eventually(t, "the problem on the home page", func() bool {
		return strings.Contains(get(t, s, "/").Body, "broken.json")
	})
	copyFile(t, filepath.Join("..", "..", "data", "testdata", "petri", "rollback.json"), filepath.Join(dir, "rollback.json"))
	eventually(t, "the transcript after the bad file", func() bool { return auditCount(t, s, "lab") == 7 })
	// Fixed, it is tried again and the problem goes.
	b, _ := os.ReadFile(filepath.Join("..", "..", "data", "testdata", "petri", "legacy.json"))
	fixed := strings.Replace(string(b), "petri-legacy-01", "petri-legacy-02", 1)
	os.WriteFile(bad, []byte(fixed), 0o644)
	eventually(t, "the fixed file", func() bool { return auditCount(t, s, "lab") == 8 })
	if strings.Contains(get(t, s, "/").Body, `data-testid="watch-problems"`) {
		t.Error("the problem is still shown after the file was fixed")
	}
	// A dataset: imported, then re-imported when it changes; the
	// experiment's statistics stay cached (its version does not move).
	get(t, s, "/experiments/lab")
	labVersion := s.Store().NameVersion("lab")
	ap := filepath.Join(dir, "prefs.json")
	src, _ := os.ReadFile(filepath.Join("..", "..", "data", "demo", "fixtures", "icai-example-v2-models.json"))
	os.WriteFile(ap, src, 0o644)
	var ds string
	eventually(t, "the dataset", func() bool {
		// Read under the store's view, as the pages read it (the view
		// keeps an import's commit from being read halfway).
		defer s.Store().View()()
		sum, err := s.Store().Summary(context.Background())
		if err == nil && len(sum.Datasets) == 1 {
			ds = sum.Datasets[0].ID
			return true
		}
		return false
	})
	var doc map[string]any
	json.Unmarshal(src, &doc)
	doc["description"] = "changed"
	changed, _ := json.Marshal(doc)
	before, err := viewed(s, func() (model.PairsDataset, error) { return s.Store().PairsDataset(context.Background(), ds) })
	if err != nil {
		t.Fatal(err)
	}
	os.WriteFile(ap, changed, 0o644)
	eventually(t, "the dataset's new generation", func() bool {
		after, err := viewed(s, func() (model.PairsDataset, error) { return s.Store().PairsDataset(context.Background(), ds) })
		return err == nil && after.ImportID != before.ImportID
	})
	if s.Store().NameVersion("lab") != labVersion {
		t.Error("a dataset's change moved the experiment's version")
	}
	if n := auditCount(t, s, "lab"); n != 8 {
		t.Errorf("after everything: %d audits, want 8 (nothing lost)", n)
	}
	// The poll endpoint answers the version.
	var g struct{ Version int64 }
	json.Unmarshal([]byte(mustGet(t, s, "/api/generation", http.StatusOK, "application/json").Body), &g)
	if g.Version != s.Version() {
		t.Errorf("/api/generation says %d, server %d", g.Version, s.Version())
	}
}

// TestWatchPoll: with --poll the folder is scanned at the interval.
func TestWatchPoll(t *testing.T) {
	dir := t.TempDir()
	s, _ := watchServer(t, dir, watch.Options{Poll: 100 * time.Millisecond})
	copyFile(t, filepath.Join("..", "..", "data", "testdata", "petri", "legacy.json"), filepath.Join(dir, "a.json"))
	name := model.Slugify(filepath.Base(dir))
	eventually(t, "the polled transcript", func() bool { return auditCount(t, s, name) == 1 })
}

// TestWatchBundle: a bundle in a watched folder is an experiment of its
// own, imported again as a new generation when one of its files changes;
// its transcripts are not taken for the folder's logs.
func TestWatchBundle(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "lab")
	os.MkdirAll(filepath.Join(dir, "small"), 0o755)
	src := filepath.Join("..", "..", "data", "testdata", "bundle-small")
	filepath.WalkDir(src, func(p string, d os.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return err
		}
		rel, _ := filepath.Rel(src, p)
		os.MkdirAll(filepath.Join(dir, "small", filepath.Dir(rel)), 0o755)
		copyFile(t, p, filepath.Join(dir, "small", rel))
		return nil
	})
	s, _ := watchServer(t, dir, watch.Options{})
	n := auditCount(t, s, "small")
	if n <= 0 {
		t.Fatalf("the bundle's experiment: %d audits", n)
	}
	if got := auditCount(t, s, "lab"); got > 0 {
		t.Errorf("the bundle's transcripts were taken for the folder's logs (%d audits in lab)", got)
	}
	exp := filepath.Join(dir, "small", "experiment.json")
	b, _ := os.ReadFile(exp)
	var doc map[string]any
	json.Unmarshal(b, &doc)
	doc["description"] = "changed while watched"
	out, _ := json.Marshal(doc)
	v := s.Store().NameVersion("small")
	os.WriteFile(exp, out, 0o644)
	eventually(t, "the bundle's new generation", func() bool { return s.Store().NameVersion("small") != v })
	contains(t, "new description", mustGet(t, s, "/experiments/small", http.StatusOK, "text/html").Body, "changed while watched")
	if got := auditCount(t, s, "small"); got != n {
		t.Errorf("after the re-import: %d audits, want %d", got, n)
	}
}

// TestWatchKeepsWhatWasImported: an imported transcript rewritten broken
// while a new one arrives is set aside without losing its audits (the new
// one is appended); a transcript reusing another file's audit id is a
// problem, not silently dropped; files an import does not read (a README)
// are left alone.
func TestWatchKeepsWhatWasImported(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "lab")
	os.Mkdir(dir, 0o755)
	petri := filepath.Join("..", "..", "data", "testdata", "petri")
	copyFile(t, filepath.Join(petri, "legacy.json"), filepath.Join(dir, "legacy.json"))
	copyFile(t, filepath.Join(petri, "reset.json"), filepath.Join(dir, "reset.json"))
	s, _ := watchServer(t, dir, watch.Options{})
	if n := auditCount(t, s, "lab"); n != 2 {
		t.Fatalf("at start: %d audits", n)
	}
	os.WriteFile(filepath.Join(dir, "reset.json"), []byte(`{"metadata": {"transcript_id": "petri-reset-01"`), 0o644)
	copyFile(t, filepath.Join(petri, "rollback.json"), filepath.Join(dir, "rollback.json"))
	eventually(t, "the new transcript", func() bool { return auditCount(t, s, "lab") == 3 })
	eventually(t, "the broken file on the home page", func() bool { return strings.Contains(get(t, s, "/").Body, "reset.json") })
	if n := auditCount(t, s, "lab"); n != 3 {
		t.Errorf("%d audits: the broken file's audits were lost", n)
	}
	os.WriteFile(filepath.Join(dir, "README.md"), []byte("# notes\n"), 0o644)
	copyFile(t, filepath.Join(petri, "legacy.json"), filepath.Join(dir, "legacy-copy.json"))
	eventually(t, "the clash on the home page", func() bool { return strings.Contains(get(t, s, "/").Body, "legacy-copy.json") })
	home := get(t, s, "/").Body
	contains(t, "clash", home, "used twice")
	if strings.Contains(home, "README.md") {
		t.Error("a README is listed as a problem")
	}
	if n := auditCount(t, s, "lab"); n != 3 {
		t.Errorf("%d audits after the clash, want 3", n)
	}
}

// TestWatchBucket watches an s3:// prefix on a real S3-compatible server
// as TestWatchFolder watches a folder: transcripts put are appended, an
// .eval rewritten larger in stages is appended as it grows (change told by
// ETag and size), a bad object is named by its URL on the home page
// without holding up the others, and a server out of reach is a problem
// of the prefix until it is back, with nothing lost.
func TestWatchBucket(t *testing.T) {
	srv := s3test.Start(t, "runs")
	ctx := context.Background()
	b, err := bucket.Open(ctx, "s3://runs/lab")
	if err != nil {
		t.Fatal(err)
	}
	put := func(rel string, body []byte) {
		t.Helper()
		if _, err := b.Put(ctx, rel, bytes.NewReader(body), int64(len(body)), bucket.PutOptions{}); err != nil {
			t.Fatal(err)
		}
	}
	fixture := func(name string) []byte {
		body, err := os.ReadFile(filepath.Join("..", "..", "data", "testdata", "petri", name))
		if err != nil {
			t.Fatal(err)
		}
		return body
	}
	put("legacy.json", fixture("legacy.json"))
	s, _ := watchServer(t, "s3://runs/lab", watch.Options{Poll: 100 * time.Millisecond})
	if n := auditCount(t, s, "lab"); n != 1 {
		t.Fatalf("at start: %d audits, want 1", n)
	}
	put("reset.json", fixture("reset.json"))
	eventually(t, "the second transcript", func() bool { return auditCount(t, s, "lab") == 2 })
	for i, body := range streamingVersions(t) {
		put("runs/pop.eval", body)
		want := []int{3, 5, 6}[i]
		eventually(t, "stage "+string(rune('1'+i))+" of the .eval", func() bool { return auditCount(t, s, "lab") == want })
	}
	put("broken.json", []byte(`{"metadata": {"transcript_id": "x"`))
	eventually(t, "the bad object on the home page", func() bool {
		return strings.Contains(get(t, s, "/").Body, "s3://runs/lab/broken.json")
	})
	if home := get(t, s, "/").Body; strings.Contains(home, "auditscope-watch-") {
		i := strings.Index(home, "auditscope-watch-")
		t.Errorf("the home page names the local copy, not the URL: …%s…", home[max(0, i-200):i+100])
	}
	put("rollback.json", fixture("rollback.json"))
	eventually(t, "the transcript after the bad object", func() bool { return auditCount(t, s, "lab") == 7 })
	srv.Stop()
	eventually(t, "the prefix out of reach on the home page", func() bool {
		home := get(t, s, "/").Body
		return strings.Contains(home, "s3://runs/lab") && strings.Contains(home, "cannot be reached")
	})
	srv.Restart()
	eventually(t, "the problem gone", func() bool { return !strings.Contains(get(t, s, "/").Body, "cannot be reached") })
	if n := auditCount(t, s, "lab"); n != 7 {
		t.Errorf("after everything: %d audits, want 7 (nothing lost)", n)
	}
}

// viewed reads from the server's store under its view, as a page reads.
func viewed[T any](s *web.Server, read func() (T, error)) (T, error) {
	defer s.Store().View()()
	return read()
}
