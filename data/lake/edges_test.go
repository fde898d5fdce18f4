package lake_test

import (
	"bufio"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"math/rand/v2"
	"os"
	"os/exec"
	"path/filepath"
	"reflect"
	"slices"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/auditscope/auditscope/data"
	"github.com/auditscope/auditscope/data/lake"
)

// lakeStore is a store with one dataset and one experiment.
func lakeStore(t *testing.T) *data.Store {
	t.Helper()
	s := mustOpenStore(t)
	for _, p := range []string{fixture(t, "annotated-pairs", "icai-example-v2-models.json"), "../testdata/bundle-small"} {
		if _, err := s.Import(context.Background(), p, data.ImportOptions{}); err != nil {
			t.Fatal(err)
		}
	}
	return s
}

// TestLakeGlobNames: a lake in a folder whose name holds glob characters,
// beside lakes its name would match as a pattern, reads its own files
// only (issue #27: 'l*ke' read three lakes).
func TestLakeGlobNames(t *testing.T) {
	ctx := context.Background()
	base := t.TempDir()
	s := lakeStore(t)
	// The neighbours: lakes whose files a pattern would pick up.
	other := mustOpenStore(t)
	if _, err := other.Import(ctx, "../testdata/bundle-small", data.ImportOptions{Name: "small"}); err != nil {
		t.Fatal(err)
	}
	if _, err := other.ImportAnnotatedPairsBytes(ctx, []byte(`{"comparisons":[{"id":"1","text_a":"A","text_b":"B","annotations":{"h":{"pref":"text_a"}}}]}`),
		"x.json", data.ImportOptions{Name: "icai-example-v2-models"}); err != nil {
		t.Fatal(err)
	}
	names := []string{"lake", "lzke", "l*ke", "l?ke", "l[a]ke", "l ke", "l'ke", `l"ke`, "l\\ke", "~", "l{a,b}ke"}
	for _, n := range names[:2] {
		if _, err := lake.Write(ctx, other, filepath.Join(base, n), lake.WriteOptions{}); err != nil {
			t.Fatal(err)
		}
	}
	for _, n := range names[2:] {
		dir := filepath.Join(base, n)
		if _, err := lake.Write(ctx, s, dir, lake.WriteOptions{}); err != nil {
			t.Fatalf("write %q: %v", n, err)
		}
		l, err := lake.Open(ctx, dir, "")
		if err != nil {
			t.Fatalf("open %q: %v", n, err)
		}
		want, got := contentState(t, s), contentState(t, l)
		for _, tb := range lake.Tables {
			if want[tb.Name] != got[tb.Name] {
				t.Errorf("lake %q: table %s is not the store's (read another lake's files?)", n, tb.Name)
			}
		}
		l.Close()
	}
	// Relative paths too: "~" must not be the home folder.
	t.Chdir(base)
	l, err := lake.Open(ctx, "~", "")
	if err != nil {
		t.Fatal(err)
	}
	l.Close()
}

// TestLakeNoRollback: writing an older import of a dataset after a newer
// one is refused, naming both generations, and changes nothing; --force
// writes it; a generation the lake replaced is refused even when its data
// was imported again later.
func TestLakeNoRollback(t *testing.T) {
	ctx := context.Background()
	dir := t.TempDir()
	ap := fixture(t, "annotated-pairs", "icai-example-v2-models.json")
	older := mustOpenStore(t)
	if _, err := older.Import(ctx, ap, data.ImportOptions{}); err != nil {
		t.Fatal(err)
	}
	b, _ := os.ReadFile(ap)
	changed := filepath.Join(t.TempDir(), filepath.Base(ap))
	os.WriteFile(changed, append(b[:len(b)-2:len(b)-2], []byte("\n}\n")...), 0o644)
	newer := mustOpenStore(t)
	if _, err := newer.Import(ctx, changed, data.ImportOptions{}); err != nil {
		t.Fatal(err)
	}
	if _, err := lake.Write(ctx, newer, dir, lake.WriteOptions{}); err != nil {
		t.Fatal(err)
	}
	before, _ := os.ReadFile(filepath.Join(dir, "manifest.json"))
	m, _ := lake.ReadManifest(dir)
	name := m.Names("dataset")[0]
	_, err := lake.Write(ctx, older, dir, lake.WriteOptions{})
	var rb *lake.RollbackError
	if !errors.As(err, &rb) || rb.Superseded || !strings.Contains(err.Error(), m.Datasets[name]) || !strings.Contains(err.Error(), "--force") {
		t.Fatalf("older import written over a newer one: %v", err)
	}
	if after, _ := os.ReadFile(filepath.Join(dir, "manifest.json")); string(after) != string(before) {
		t.Error("a refused write changed the manifest")
	}
	// Forced: the older generation is current, the newer one superseded.
	if _, err := lake.Write(ctx, older, dir, lake.WriteOptions{Force: true}); err != nil {
		t.Fatal(err)
	}
	m2, _ := lake.ReadManifest(dir)
	if m2.Datasets[name] == m.Datasets[name] {
		t.Fatal("--force did not write the older generation")
	}
	// The newer store's generation was replaced by the forced write: it is
	// refused now as superseded, though it was imported later.
	_, err = lake.Write(ctx, newer, dir, lake.WriteOptions{})
	if !errors.As(err, &rb) || !rb.Superseded {
		t.Fatalf("a superseded generation written again: %v", err)
	}
	// A new import of the same older content (imported now, so later than
	// anything in the lake) is the same generation: unchanged, not refused.
	again := mustOpenStore(t)
	if _, err := again.Import(ctx, ap, data.ImportOptions{}); err != nil {
		t.Fatal(err)
	}
	if res, err := lake.Write(ctx, again, dir, lake.WriteOptions{}); err != nil || len(res.Unchanged) != 1 {
		t.Fatalf("same content again: %+v %v", res, err)
	}
}

// TestLakeChecksums: the manifest records each file's size and SHA-256; a
// server refuses a generation one of whose files does not match, names the
// file, and keeps serving the last good generation.
func TestLakeChecksums(t *testing.T) {
	ctx := context.Background()
	dir := t.TempDir()
	s := lakeStore(t)
	if _, err := lake.Write(ctx, s, dir, lake.WriteOptions{}); err != nil {
		t.Fatal(err)
	}
	m, _ := lake.ReadManifest(dir)
	if len(m.Files) != len(lake.Tables) {
		t.Fatalf("manifest records %d files, want %d", len(m.Files), len(lake.Tables))
	}
	for rel, f := range m.Files {
		b, err := os.ReadFile(filepath.Join(dir, filepath.FromSlash(rel)))
		sum := sha256.Sum256(b)
		if got := (lake.File{Size: int64(len(b)), SHA256: hex.EncodeToString(sum[:])}); err != nil || got != f {
			t.Errorf("%s: recorded %+v, file %+v (%v)", rel, f, got, err)
		}
	}
	l, err := lake.Open(ctx, dir, "")
	if err != nil {
		t.Fatal(err)
	}
	defer l.Close()
	want := contentState(t, l)
	// A new generation of the dataset whose comparisons file is damaged:
	// one byte changed, same size (Parquet's own checks may not see it).
	ap := fixture(t, "annotated-pairs", "icai-example-v2-models.json")
	b, _ := os.ReadFile(ap)
	changed := filepath.Join(t.TempDir(), filepath.Base(ap))
	os.WriteFile(changed, append(b[:len(b)-2:len(b)-2], []byte("\n}\n")...), 0o644)
	name := m.Names("dataset")[0]
	if _, err := s.Import(ctx, changed, data.ImportOptions{Name: name, Replace: true}); err != nil {
		t.Fatal(err)
	}
	if res, err := lake.Write(ctx, s, dir, lake.WriteOptions{}); err != nil || len(res.Written) != 1 {
		t.Fatal(res, err)
	}
	m, _ = lake.ReadManifest(dir)
	bad := filepath.Join(dir, filepath.FromSlash(lake.FileRel("ap_comparisons", "dataset", name, m.Datasets[name])))
	body, _ := os.ReadFile(bad)
	body[len(body)/2] ^= 0xff
	os.WriteFile(bad, body, 0o644)
	// The damaged generation is refused, its dataset's last good one
	// serves on, and the problem names the file.
	if _, err := l.Refresh(ctx); err != nil {
		t.Fatalf("damaged file: %v", err)
	}
	if p := l.LakeProblem(); p == nil || p.File != bad || !strings.Contains(p.Error(), "SHA-256") {
		t.Errorf("the problem does not name the damaged file: %+v", p)
	}
	got := contentState(t, l)
	for _, tb := range lake.Tables {
		if want[tb.Name] != got[tb.Name] {
			t.Errorf("table %s changed: the damaged generation was served", tb.Name)
		}
	}
	// Cut short: the size says so. A server started on it serves the
	// lake's other data (one bad file refused a whole start), without the
	// dataset, and names the file.
	os.WriteFile(bad, body[:len(body)-10], 0o644)
	l2, err := lake.Open(ctx, dir, "")
	if err != nil {
		t.Fatalf("a start with one short file: %v", err)
	}
	defer l2.Close()
	if p := l2.LakeProblem(); p == nil || p.File != bad || !strings.Contains(p.Error(), "cut short") {
		t.Errorf("short file: the problem is %+v", p)
	}
	if _, err := l2.Experiment(ctx, "small"); err != nil {
		t.Errorf("the other data is not served: %v", err)
	}
	if ds, err := l2.PairsDataset(ctx, name); err == nil {
		t.Errorf("the dataset with the short file is served: %+v", ds)
	}
}

// TestLakeFileReplaced: a data file replaced after its generation was
// adopted is checked again (its size, time or file changed): a changed
// one is refused, the problem naming the file, and the bytes adopted serve
// on (held open), as the rest does; a manifest over the size limit is
// refused.
func TestLakeFileReplaced(t *testing.T) {
	ctx := context.Background()
	dir := t.TempDir()
	s := lakeStore(t)
	if _, err := lake.Write(ctx, s, dir, lake.WriteOptions{}); err != nil {
		t.Fatal(err)
	}
	l, err := lake.Open(ctx, dir, "")
	if err != nil {
		t.Fatal(err)
	}
	defer l.Close()
	m, _ := lake.ReadManifest(dir)
	name := m.Names("dataset")[0]
	f := filepath.Join(dir, filepath.FromSlash(lake.FileRel("ap_comparisons", "dataset", name, m.Datasets[name])))
	body, _ := os.ReadFile(f)
	original := slices.Clone(body)
	before, err := l.PairsVoteMatrix(ctx, name)
	if err != nil {
		t.Fatal(err)
	}
	body[len(body)/2] ^= 0xff
	// Replaced by rename, as a copy over it would be: a new file.
	tmp := f + ".new"
	os.WriteFile(tmp, body, 0o644)
	if err := os.Rename(tmp, f); err != nil {
		t.Fatal(err)
	}
	deadline := time.Now().Add(60 * time.Second)
	for {
		if _, err := l.Refresh(ctx); err != nil {
			t.Fatal(err)
		}
		if p := l.LakeProblem(); p != nil {
			if p.File != f || !strings.Contains(p.Error(), "SHA-256") {
				t.Errorf("the problem does not name the replaced file: %+v", p)
			}
			break
		}
		if time.Now().After(deadline) {
			t.Fatal("a replaced file was never checked again")
		}
		time.Sleep(100 * time.Millisecond)
	}
	// The bytes checked when the generation was adopted serve on (the
	// file is held open), so the dataset is its last good state.
	if m, err := l.PairsVoteMatrix(ctx, name); err != nil || !reflect.DeepEqual(m, before) {
		t.Errorf("the dataset whose file was replaced: %v; want its last good state served", err)
	}
	// Removed: still its last good state, the problem naming the file.
	os.Remove(f)
	waitProblem(t, l, f, "missing")
	if m, err := l.PairsVoteMatrix(ctx, name); err != nil || !reflect.DeepEqual(m, before) {
		t.Errorf("the dataset whose file was removed: %v; want its last good state served", err)
	}
	if _, err := l.Experiment(ctx, "small"); err != nil {
		t.Errorf("the other data is not served: %v", err)
	}
	// Put right: the file is tried again, the dataset served and the
	// problem gone.
	os.WriteFile(tmp, original, 0o644)
	if err := os.Rename(tmp, f); err != nil {
		t.Fatal(err)
	}
	for {
		if _, err := l.Refresh(ctx); err != nil {
			t.Fatal(err)
		}
		if l.LakeProblem() == nil {
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("the file put right is not served again: %+v", l.LakeProblem())
		}
		time.Sleep(100 * time.Millisecond)
	}
	if _, err := l.PairsDataset(ctx, name); err != nil {
		t.Errorf("the dataset put right is not served: %v", err)
	}
	// A manifest over the limit is refused; what was served serves on.
	big := make([]byte, 65<<20)
	for i := range big {
		big[i] = ' '
	}
	os.WriteFile(filepath.Join(dir, "manifest.json"), big, 0o644)
	if _, err := l.Refresh(ctx); err == nil || !strings.Contains(err.Error(), "more than a manifest's") {
		t.Errorf("a 65 MiB manifest: %v", err)
	}
	if _, err := l.Experiment(ctx, "small"); err != nil {
		t.Errorf("after a refused manifest: %v", err)
	}
}

// TestLakeMemoryLimit: serve --lake takes --memory-limit, and refuses one
// that is not a size.
func TestLakeMemoryLimit(t *testing.T) {
	ctx := context.Background()
	dir := t.TempDir()
	if _, err := lake.Write(ctx, lakeStore(t), dir, lake.WriteOptions{}); err != nil {
		t.Fatal(err)
	}
	if _, err := lake.Open(ctx, dir, "banana"); err == nil || !strings.Contains(err.Error(), "banana") {
		t.Errorf("memory limit banana: %v", err)
	}
	l, err := lake.Open(ctx, dir, "300MB")
	if err != nil {
		t.Fatal(err)
	}
	defer l.Close()
	var got string
	if err := l.DB().QueryRowContext(ctx, `SELECT current_setting('memory_limit')`).Scan(&got); err != nil {
		t.Fatal(err)
	}
	if !strings.HasPrefix(got, "286.1 MiB") && !strings.HasPrefix(got, "300.0 MB") {
		t.Errorf("memory limit %q, want 300MB", got)
	}
}

// lakeLockHelperEnv, when set (to a lake folder), makes TestLakeKilledWriter
// the child: it takes the lake's writer lock, says so, and waits to be
// killed; with the value "write:DIR" it writes a lake there instead.
const lakeLockHelperEnv = "AUDITSCOPE_LAKE_LOCK_HELPER"

// TestLakeKilledWriter: a writer killed while it holds the lock does not
// keep later writes out: the next write takes the lock over, with a line
// to the log naming the dead writer. A live writer's lock is respected.
// Writes killed at random points leave the lake readable, old or new.
func TestLakeKilledWriter(t *testing.T) {
	if v := os.Getenv(lakeLockHelperEnv); v != "" {
		if dir, ok := strings.CutPrefix(v, "write:"); ok {
			s := lakeStore(t)
			os.Stdout.WriteString("ready\n")
			if _, err := lake.Write(context.Background(), s, dir, lake.WriteOptions{}); err != nil {
				t.Fatal(err)
			}
			return
		}
		if _, err := lake.Acquire(v, nil); err != nil {
			t.Fatal(err)
		}
		os.Stdout.WriteString("locked\n")
		time.Sleep(time.Minute)
		return
	}
	ctx := context.Background()
	dir := t.TempDir()
	child := func(env string) (*exec.Cmd, *bufio.Scanner) {
		cmd := exec.Command(os.Args[0], "-test.run=^TestLakeKilledWriter$")
		cmd.Env = append(os.Environ(), lakeLockHelperEnv+"="+env)
		out, err := cmd.StdoutPipe()
		if err != nil {
			t.Fatal(err)
		}
		if err := cmd.Start(); err != nil {
			t.Fatal(err)
		}
		return cmd, bufio.NewScanner(out)
	}
	cmd, sc := child(dir)
	if !sc.Scan() || sc.Text() != "locked" {
		cmd.Process.Kill()
		t.Fatalf("helper: %q", sc.Text())
	}
	s := lakeStore(t)
	// Live: refused, naming the holder.
	if _, err := lake.Write(ctx, s, dir, lake.WriteOptions{}); err == nil || !strings.Contains(err.Error(), "another lake write is running") {
		t.Errorf("a live writer's lock was not respected: %v", err)
	}
	cmd.Process.Signal(syscall.SIGKILL)
	cmd.Wait()
	if _, err := os.Stat(filepath.Join(dir, ".write.lock")); err != nil {
		t.Fatalf("the killed writer left no lock to take over: %v", err)
	}
	var logged []string
	if _, err := lake.Write(ctx, s, dir, lake.WriteOptions{Log: func(m string) { logged = append(logged, m) }}); err != nil {
		t.Fatalf("write after a killed writer: %v", err)
	}
	if len(logged) != 1 || !strings.Contains(logged[0], "took over") || !strings.Contains(logged[0], "pid "+itoa(cmd.Process.Pid)) {
		t.Errorf("log: %q", logged)
	}
	if _, err := os.Stat(filepath.Join(dir, ".write.lock")); !errors.Is(err, os.ErrNotExist) {
		t.Errorf("the lock is left after a write: %v", err)
	}
	// Lock files of a dead process on this host, as an older auditscope
	// left them (no flock): taken over too.
	os.WriteFile(filepath.Join(dir, ".write.lock"), []byte("pid "+itoa(cmd.Process.Pid)+" on "+hostname()+" since 2026-11-30T00:00:00Z\n"), 0o644)
	if _, err := lake.Write(ctx, s, dir, lake.WriteOptions{}); err != nil {
		t.Errorf("an older build's stale lock: %v", err)
	}
	// Real writes killed at random points: the next write goes through and
	// the lake opens, each time.
	kills := 4
	if testing.Short() {
		kills = 2
	}
	for i := range kills {
		d := filepath.Join(t.TempDir(), "lake")
		cmd, sc := child("write:" + d)
		if !sc.Scan() {
			t.Fatal("helper died")
		}
		time.Sleep(time.Duration(rand.IntN(400)) * time.Millisecond)
		cmd.Process.Signal(syscall.SIGKILL)
		cmd.Wait()
		if _, err := lake.Write(ctx, s, d, lake.WriteOptions{}); err != nil {
			t.Fatalf("kill %d: write after it: %v", i, err)
		}
		l, err := lake.Open(ctx, d, "")
		if err != nil {
			t.Fatalf("kill %d: %v", i, err)
		}
		l.Close()
	}
}

func itoa(n int) string { b, _ := json.Marshal(n); return string(b) }

func hostname() string { h, _ := os.Hostname(); return h }

// waitProblem refreshes l until its problem names file f with want in its
// message.
func waitProblem(t *testing.T, l *lake.Store, f, want string) {
	t.Helper()
	deadline := time.Now().Add(60 * time.Second)
	for {
		if _, err := l.Refresh(context.Background()); err != nil {
			t.Fatal(err)
		}
		if p := l.LakeProblem(); p != nil && p.File == f && strings.Contains(p.Error(), want) {
			return
		}
		if time.Now().After(deadline) {
			t.Fatalf("the problem never named %s (%q): %+v", f, want, l.LakeProblem())
		}
		time.Sleep(100 * time.Millisecond)
	}
}

// TestLakeInterruptedWriteCleaned: a data file an interrupted write left
// half written is removed by the next write (which holds the lake's lock,
// so no other write is under way).
func TestLakeInterruptedWriteCleaned(t *testing.T) {
	ctx := context.Background()
	dir := t.TempDir()
	s := lakeStore(t)
	if _, err := lake.Write(ctx, s, dir, lake.WriteOptions{}); err != nil {
		t.Fatal(err)
	}
	gens, _ := filepath.Glob(filepath.Join(dir, "audits", "*", "*"))
	if len(gens) == 0 {
		t.Fatal("no generation folder")
	}
	left := filepath.Join(gens[0], ".data.parquet.tmp")
	os.WriteFile(left, []byte("PAR1 half"), 0o644)
	if _, err := lake.Write(ctx, s, dir, lake.WriteOptions{}); err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(left); err == nil {
		t.Error("the interrupted write's file is still in the lake")
	}
}
