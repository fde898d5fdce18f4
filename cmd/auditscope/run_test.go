package main

import (
	"bytes"
	"context"
	"encoding/csv"
	"errors"
	"io"
	"io/fs"
	"net"
	"net/http"
	"os"
	"path"
	"path/filepath"
	"runtime"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/auditscope/auditscope/data/bucket"
	"github.com/auditscope/auditscope/data/s3test"
)

// apFixtures is the folder of real AnnotatedPairs files the demo embeds
// (data/demo/fixtures; its README names their sources).
func apFixtures(t *testing.T) string {
	t.Helper()
	_, file, _, _ := runtime.Caller(0)
	p := filepath.Join(filepath.Dir(file), "..", "..", "data", "demo", "fixtures")
	if _, err := os.Stat(p); err != nil {
		t.Fatalf("fixtures: %v", err)
	}
	return p
}

func runCmd(t *testing.T, args ...string) (string, string, error) {
	t.Helper()
	var out, errb bytes.Buffer
	err := run(context.Background(), args, &out, &errb)
	return out.String(), errb.String(), err
}

func TestHelp(t *testing.T) {
	out, _, err := runCmd(t, "--help")
	if !errors.Is(err, errHelpShown) || exitCode(err) != 0 {
		t.Fatalf("--help: err %v", err)
	}
	for _, cmd := range []string{"serve", "import", "demo", "export"} {
		if !strings.Contains(out, cmd) {
			t.Errorf("top help does not mention %s", cmd)
		}
		sub, _, err := runCmd(t, cmd, "--help")
		if !errors.Is(err, errHelpShown) {
			t.Errorf("%s --help: %v", cmd, err)
		}
		if !strings.Contains(sub, "Usage: auditscope "+cmd) || !strings.Contains(sub, "-") {
			t.Errorf("%s --help output:\n%s", cmd, sub)
		}
	}
	// Exposing the server beyond this machine takes an explicit --addr.
	if serveHelp, _, _ := runCmd(t, "serve", "--help"); !strings.Contains(serveHelp, `(default "127.0.0.1:8080")`) {
		t.Errorf("serve's default address is not the loopback:\n%s", serveHelp)
	}
	if _, _, err := runCmd(t, "frobnicate"); exitCode(err) != 2 {
		t.Errorf("unknown command: exit %d, want 2", exitCode(err))
	}
	if _, _, err := runCmd(t, "import", "x.json"); exitCode(err) != 2 {
		t.Errorf("import without --db: exit %d, want 2", exitCode(err))
	}
	// One --name for several inputs would make them clash or replace each
	// other: both commands refuse it.
	for _, cmd := range []string{"serve", "import"} {
		_, _, err := runCmd(t, cmd, "--db", filepath.Join(t.TempDir(), "n.duckdb"), "--name", "x", "a.json", "b.json")
		if exitCode(err) != 2 || !strings.Contains(err.Error(), "--name") {
			t.Errorf("%s --name with two paths: %v (exit %d), want a usage error", cmd, err, exitCode(err))
		}
	}
}

func TestImportFixtures(t *testing.T) {
	db := filepath.Join(t.TempDir(), "t.duckdb")
	files, err := filepath.Glob(filepath.Join(apFixtures(t), "*.json"))
	if err != nil {
		t.Fatal(err)
	}
	csvs, err := filepath.Glob(filepath.Join(apFixtures(t), "*.csv"))
	if err != nil || len(files) != 2 || len(csvs) != 4 {
		t.Fatalf("want the 2 JSON and 4 CSV fixtures, found %v %v (%v)", files, csvs, err)
	}
	files = append(files, csvs...)
	out, _, err := runCmd(t, append([]string{"import", "--db", db}, files...)...)
	if err != nil {
		t.Fatal(err)
	}
	lines := strings.Split(strings.TrimSpace(out), "\n")
	if len(lines) != len(files) {
		t.Fatalf("%d summary lines for %d files:\n%s", len(lines), len(files), out)
	}
	for _, want := range []string{"annotated_pairs icai-training-dataset---2025-08-22", "(4 annotators, 1 comparisons, 4 votes)", "preference_csv icai-synthetic_data_mixed_vqvtb_adcbg", "60 comparisons"} {
		if !strings.Contains(out, want) {
			t.Errorf("output lacks %q:\n%s", want, out)
		}
	}
	// Again: every import is a no-op.
	out, _, err = runCmd(t, append([]string{"import", "--db", db}, files...)...)
	if err != nil || strings.Count(out, "unchanged") != len(files) {
		t.Errorf("re-import: %v\n%s", err, out)
	}
	// A truncated file fails, names the file, and leaves the database as it was.
	bad := filepath.Join(t.TempDir(), "bad.json")
	body, _ := os.ReadFile(files[0])
	os.WriteFile(bad, body[:len(body)/3], 0o644)
	_, _, err = runCmd(t, "import", "--db", db, bad)
	if err == nil || !strings.Contains(err.Error(), "bad.json") || exitCode(err) != 1 {
		t.Errorf("truncated import: %v", err)
	}
	out, _, err = runCmd(t, append([]string{"import", "--db", db}, files...)...)
	if err != nil || strings.Count(out, "unchanged") != len(files) {
		t.Errorf("after a failed import the database changed: %v\n%s", err, out)
	}
}

// TestDemoRoundTrip writes the demo as a bundle, imports it into a file, and
// checks the experiment's scores match the built-in demo's exactly.
func TestDemoRoundTrip(t *testing.T) {
	if testing.Short() {
		t.Skip("imports the whole demo")
	}
	dir := filepath.Join(t.TempDir(), "bundle")
	out, _, err := runCmd(t, "demo", "--out", dir)
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(out, "58 auditors") {
		t.Errorf("demo output: %s", out)
	}
	db := filepath.Join(t.TempDir(), "demo.duckdb")
	if out, _, err = runCmd(t, "import", "--db", db, dir, filepath.Join(dir, "annotated_pairs.json")); err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(out, "bundle demo:") || !strings.Contains(out, "3000 comparisons") {
		t.Errorf("import output: %s", out)
	}
	want := filepath.Join(t.TempDir(), "want.csv")
	got := filepath.Join(t.TempDir(), "got.csv")
	if _, _, err := runCmd(t, "export", "/experiments/demo/scores.csv", "--out", want); err != nil {
		t.Fatal(err)
	}
	if _, _, err := runCmd(t, "export", "--db", db, "/experiments/demo/scores.csv", "--out", got); err != nil {
		t.Fatal(err)
	}
	a, _ := os.ReadFile(want)
	b, _ := os.ReadFile(got)
	if !bytes.Equal(a, b) || len(a) < 1000 {
		t.Errorf("scores.csv differs between the built-in demo and its exported bundle (%d vs %d bytes)", len(a), len(b))
	}
	recs, err := csv.NewReader(bytes.NewReader(b)).ReadAll()
	if err != nil || recs[0][0] != "auditor" {
		t.Errorf("exported CSV: %v %v", err, recs[:1])
	}
	// A figure exports too.
	svg := filepath.Join(t.TempDir(), "f.svg")
	if _, _, err := runCmd(t, "export", "--db", db, "/experiments/demo/figures/scores.svg", "--out", svg); err != nil {
		t.Fatal(err)
	}
	if b, _ := os.ReadFile(svg); !bytes.Contains(b, []byte("<svg")) {
		t.Error("exported figure is not SVG")
	}
	if _, _, err := runCmd(t, "export", "--db", db, "/experiments/nope", "--out", svg); err == nil || !strings.Contains(err.Error(), "404") {
		t.Errorf("export of a missing page: %v", err)
	}
}

// TestServe starts serve on a database file, fetches the home page, and
// stops it with the context (as SIGINT would).
func TestServe(t *testing.T) {
	db := filepath.Join(t.TempDir(), "s.duckdb")
	fixture := filepath.Join(apFixtures(t), "icai-example-v2-models.json")
	if _, _, err := runCmd(t, "import", "--db", db, fixture); err != nil {
		t.Fatal(err)
	}
	addr, out, stop := startServe(t, "serve", "--db", db, "--read-only")
	if body := getBody(t, addr, "/"); !strings.Contains(body, `href="/pairs/icai-training-dataset---2025-08-22`) {
		t.Errorf("home page of the served database:\n%.300s", body)
	}
	stop()
	if !strings.Contains(out.String(), "serving on http://localhost:"+strings.TrimPrefix(addr, "127.0.0.1:")) {
		t.Errorf("serve output: %q", out.String())
	}
}

// startServe runs the command args with --addr on a free port and returns
// the address, its output, and stop, which stops it with the context (as
// SIGINT would) and checks it ended well.
func startServe(t *testing.T, args ...string) (string, *syncBuffer, func()) {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	addr := ln.Addr().String()
	ln.Close()
	ctx, cancel := context.WithCancel(context.Background())
	out := new(syncBuffer)
	done := make(chan error, 1)
	go func() {
		done <- run(ctx, append(args, "--addr", addr), out, io.Discard)
	}()
	stopped := false
	stop := func() {
		t.Helper()
		if stopped {
			return
		}
		stopped = true
		cancel()
		select {
		case err := <-done:
			if err != nil {
				t.Errorf("serve returned %v after shutdown", err)
			}
		case <-time.After(time.Minute):
			t.Fatal("serve did not stop")
		}
	}
	t.Cleanup(stop)
	for i := 0; i < 200; i++ {
		if c, err := net.Dial("tcp", addr); err == nil {
			c.Close()
			return addr, out, stop
		}
		select {
		case err := <-done:
			t.Fatalf("serve ended: %v", err)
		case <-time.After(50 * time.Millisecond):
		}
	}
	t.Fatal("serve did not start")
	return "", nil, nil
}

// getBody is the body of a GET of path, which must answer 200.
func getBody(t *testing.T, addr, path string) string {
	t.Helper()
	resp, err := http.Get("http://" + addr + path)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	b, _ := io.ReadAll(resp.Body)
	if resp.StatusCode != http.StatusOK {
		t.Fatalf("GET %s: %d\n%.300s", path, resp.StatusCode, b)
	}
	return string(b)
}

type syncBuffer struct {
	mu sync.Mutex
	b  bytes.Buffer
}

func (s *syncBuffer) Write(p []byte) (int, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.Write(p)
}

func (s *syncBuffer) String() string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.String()
}

// TestRefuseURLs: a path given as a URL (s3://bucket/prefix) is refused,
// naming the flag, before anything is read or written: taken as a path it
// made a local folder named "s3:" and served it as if it were the bucket.
func TestRefuseURLs(t *testing.T) {
	t.Chdir(t.TempDir())
	for _, args := range [][]string{
		{"lake", "write", "--lake", "lake", "--db", "s3://bucket/x.duckdb"},
		{"serve", "--db", "s3://bucket/results.duckdb"},
	} {
		_, _, err := runCmd(t, args...)
		if err == nil || !strings.Contains(err.Error(), "is a URL") || exitCode(err) != 2 {
			t.Errorf("%v: %v (exit %d), want a usage error about the URL", args, err, exitCode(err))
		}
	}
	// A lake, and what import reads, can be in a bucket, but only an S3
	// one.
	for _, args := range [][]string{
		{"lake", "write", "--lake", "gs://lakes/team", "--db", "x.duckdb"},
		{"serve", "--lake", "https://lakes/team"},
		{"serve", "--lake", "s3:///team"},
		{"import", "--db", "x.duckdb", "gs://bucket/logs/run.eval"},
		{"serve", "--watch", "gs://bucket/logs"},
		{"serve", "gs://bucket/logs/run.eval"},
		{"lake", "write", "--lake", "lake", "gs://bucket/logs"},
		{"import", "--db", "x.duckdb", "s3://bucket/../run.eval"},
	} {
		_, _, err := runCmd(t, args...)
		if err == nil || !strings.Contains(err.Error(), "s3://bucket/prefix") || exitCode(err) != 2 {
			t.Errorf("%v: %v (exit %d), want a usage error saying what URL is read", args, err, exitCode(err))
		}
	}
	if entries, _ := os.ReadDir("."); len(entries) != 0 {
		t.Errorf("left %d entries in the working directory (%s…)", len(entries), entries[0].Name())
	}
}

// TestLakeInBucket: lake write and serve --lake with s3://bucket/prefix on
// a real S3-compatible server, configured by the standard AWS variables:
// the served pages are the experiment's; with the server down the home
// page says the newest state is not served while the pages go on, and
// once the server is back the lake is followed again.
func TestLakeInBucket(t *testing.T) {
	srv := s3test.Start(t, "lakes")
	out, _, err := runCmd(t, "lake", "write", "--lake", "s3://lakes/team", filepath.Join("..", "..", "data", "testdata", "bundle-small"))
	if err != nil || !strings.Contains(out, "lake s3://lakes/team: 1 written") {
		t.Fatalf("lake write: %q, %v", out, err)
	}
	if _, err := os.Stat("s3:"); err == nil {
		t.Fatal("lake write made a local folder named s3:")
	}
	addr, _, stop := startServe(t, "serve", "--lake", "s3://lakes/team", "--lake-cache", t.TempDir(), "--lake-poll", "100ms")
	if body := getBody(t, addr, "/experiments/small"); !strings.Contains(body, "small") {
		t.Errorf("experiment page:\n%.300s", body)
	}
	srv.Stop()
	problem := func() bool { return strings.Contains(getBody(t, addr, "/"), `data-testid="lake-problem"`) }
	deadline := time.Now().Add(time.Minute)
	for !problem() {
		if time.Now().After(deadline) {
			t.Fatal("the home page does not say the bucket cannot be read")
		}
		time.Sleep(100 * time.Millisecond)
	}
	if home := getBody(t, addr, "/"); !strings.Contains(home, "cannot be reached") {
		t.Errorf("the problem does not say the server cannot be reached:\n%s", home[strings.Index(home, `data-testid="lake-problem"`):][:400])
	}
	getBody(t, addr, "/experiments/small")
	srv.Restart()
	for problem() {
		if time.Now().After(deadline.Add(20 * time.Second)) {
			t.Fatal("the problem stays after the server is back")
		}
		time.Sleep(100 * time.Millisecond)
	}
	stop()
}

// putTree copies the files under dir into the bucket under prefix.
func putTree(t *testing.T, b *bucket.Bucket, dir, prefix string) {
	t.Helper()
	err := filepath.WalkDir(dir, func(p string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return err
		}
		rel, _ := filepath.Rel(dir, p)
		_, err = b.PutFile(context.Background(), path.Join(prefix, filepath.ToSlash(rel)), p, bucket.PutOptions{})
		return err
	})
	if err != nil {
		t.Fatal(err)
	}
}

// TestImportFromBucket: import reads s3:// URLs as it reads paths: a
// prefix as a folder (a bundle, a folder of transcripts), an object as a
// file, several URLs in one transaction. The imports are recorded under
// their URLs (importing one again is a no-op), messages name the URL, and
// a bad object fails the whole import, naming it.
func TestImportFromBucket(t *testing.T) {
	s3test.Start(t, "logs")
	ctx := context.Background()
	b, err := bucket.Open(ctx, "s3://logs")
	if err != nil {
		t.Fatal(err)
	}
	putTree(t, b, filepath.Join("..", "..", "data", "testdata", "bundle-small"), "runs/small")
	putTree(t, b, filepath.Join("..", "..", "data", "testdata", "petri"), "petri/lab")
	putTree(t, b, apFixtures(t), "prefs")
	db := filepath.Join(t.TempDir(), "b.duckdb")
	out, _, err := runCmd(t, "import", "--db", db, "s3://logs/runs/small/")
	if err != nil || !strings.Contains(out, "bundle small: 38 rows") {
		t.Fatalf("import of a bundle prefix: %q, %v", out, err)
	}
	if out, _, err := runCmd(t, "import", "--db", db, "s3://logs/runs/small"); err != nil || !strings.Contains(out, "unchanged") {
		t.Errorf("the same URL again: %q, %v; want unchanged", out, err)
	}
	out, _, err = runCmd(t, "import", "--db", db, "s3://logs/petri/lab", "s3://logs/prefs/icai-example-v2-models.json")
	if err != nil || !strings.Contains(out, "lab") || !strings.Contains(out, "icai-training-dataset") {
		t.Fatalf("import of a prefix of transcripts and an object: %q, %v", out, err)
	}
	// A bad object among good ones: nothing lands, and the URL is named.
	body := `{"metadata": {"transcript_id": "x"`
	if _, err := b.Put(ctx, "petri/bad/broken.json", strings.NewReader(body), int64(len(body)), bucket.PutOptions{}); err != nil {
		t.Fatal(err)
	}
	putTree(t, b, filepath.Join("..", "..", "data", "testdata", "petri"), "petri/bad")
	before, _, _ := runCmd(t, "export", "--db", db, "/audits.csv", "--out", "-")
	_, _, err = runCmd(t, "import", "--db", db, "s3://logs/petri/bad")
	if err == nil || !strings.Contains(err.Error(), "s3://logs/petri/bad/broken.json") || strings.Contains(err.Error(), os.TempDir()) || exitCode(err) != 1 {
		t.Errorf("a bad object: %v (exit %d), want an input error naming its URL", err, exitCode(err))
	}
	if after, _, _ := runCmd(t, "export", "--db", db, "/audits.csv", "--out", "-"); after != before {
		t.Error("a failed import changed the audits")
	}
	if _, _, err := runCmd(t, "import", "--db", db, "s3://logs/nothing/here"); err == nil || !strings.Contains(err.Error(), "s3://logs/nothing/here") {
		t.Errorf("a URL with nothing there: %v", err)
	}
}
