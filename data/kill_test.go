package data

import (
	"bufio"
	"bytes"
	"context"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"
)

// killHelperEnv, when set (to the database path), makes TestKillMidImport
// the child process: it imports killInputEnv into that database, printing
// "progress DONE TOTAL" lines, until its parent kills it.
const (
	killHelperEnv = "AUDITSCOPE_KILL_HELPER_DB"
	killInputEnv  = "AUDITSCOPE_KILL_HELPER_INPUT"
)

// TestKillMidImport kills (SIGKILL) a process in the middle of importing a
// large AnnotatedPairs file into a database file, then checks the database
// opens and holds exactly what it held before: every table's rows, by count
// and content hash, and no trace of the killed import.
func TestKillMidImport(t *testing.T) {
	if db := os.Getenv(killHelperEnv); db != "" {
		killHelper(t, db, os.Getenv(killInputEnv))
		return
	}
	// Under -short (the race detector's run) a tenth of the file and one
	// kill: the race detector then watches the kill paths too.
	comparisons, points := 300_000, []string{"a third read", "all read"}
	if testing.Short() {
		comparisons, points = 30_000, points[:1]
	}
	ctx := context.Background()
	dir := t.TempDir()
	db := filepath.Join(dir, "k.duckdb")

	// An earlier import that completed.
	s, err := Open(ctx, Options{Path: db})
	if err != nil {
		t.Fatal(err)
	}
	for _, p := range []string{fixture(t, "annotated-pairs", "icai-example-v2-models.json"), "testdata/bundle-small"} {
		if _, err := s.Import(ctx, p, ImportOptions{}); err != nil {
			t.Fatal(err)
		}
	}
	before := dbState(t, s, true)
	if err := s.Close(); err != nil {
		t.Fatal(err)
	}

	big := filepath.Join(dir, "big.json")
	size := writeBigAnnotatedPairs(t, big, comparisons)

	// Kill once the child has read a third of the file (its transaction
	// holds about 100,000 appended comparisons), then once it has read all
	// of it (it is expanding votes in SQL or committing).
	for _, at := range []struct {
		name string
		read int64
	}{{"a third read", size / 3}, {"all read", size}} {
		if !slices.Contains(points, at.name) {
			continue
		}
		t.Run(at.name, func(t *testing.T) {
			killImport(t, db, big, at.read, size)
			s, err := Open(ctx, Options{Path: db})
			if err != nil {
				t.Fatalf("the database does not open after the kill: %v", err)
			}
			defer s.Close()
			if after := dbState(t, s, true); !sameState(before, after) {
				t.Errorf("the database changed: %s", diffState(before, after))
			}
			if n := count(t, s, `SELECT count(*) FROM imports WHERE source = ?`, big); n != 0 {
				t.Errorf("%d imports rows for the killed import", n)
			}
			if n := count(t, s, `SELECT count(*) FROM ap_datasets WHERE id LIKE 'big%'`); n != 0 {
				t.Errorf("%d ap_datasets rows for the killed import", n)
			}
		})
	}

	// The database takes new imports.
	s, err = Open(ctx, Options{Path: db})
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	if _, err := s.Import(ctx, fixture(t, "annotated-pairs", "icai-example.csv"), ImportOptions{}); err != nil {
		t.Errorf("import after the kills: %v", err)
	}
}

// killImport runs the child importing big into db and kills it (SIGKILL)
// once it reports having read at least read bytes.
func killImport(t *testing.T, db, big string, read, size int64) {
	t.Helper()
	start := time.Now()
	cmd := exec.Command(os.Args[0], "-test.run=^TestKillMidImport$", "-test.v")
	cmd.Env = append(os.Environ(), killHelperEnv+"="+db, killInputEnv+"="+big)
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	out, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	var lines []string
	killedAt := int64(-1)
	sc := bufio.NewScanner(out)
	for sc.Scan() {
		line := sc.Text()
		lines = append(lines, line)
		if f := strings.Fields(line); len(f) == 3 && f[0] == "progress" && killedAt < 0 {
			if done, _ := strconv.ParseInt(f[1], 10, 64); done >= read {
				if err := cmd.Process.Kill(); err != nil {
					t.Fatal(err)
				}
				killedAt = done
			}
		}
	}
	err = cmd.Wait()
	t.Logf("child killed after reading %d of %d bytes, %v after start (%v)", killedAt, size, time.Since(start).Round(time.Millisecond), err)
	if killedAt < 0 {
		t.Fatalf("the import ended before it could be killed (%v); output:\n%s\n%s", err, strings.Join(lines, "\n"), stderr.String())
	}
	for _, l := range lines {
		if strings.HasPrefix(l, "imported") {
			t.Fatalf("the child finished the import before the kill landed: %s", l)
		}
	}
}

// killHelper is the child: it imports input into db and reports progress.
func killHelper(t *testing.T, db, input string) {
	s, err := Open(context.Background(), Options{Path: db})
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	res, err := s.Import(context.Background(), input, ImportOptions{
		Progress: func(done, total int64) { fmt.Printf("progress %d %d\n", done, total) },
	})
	if err != nil {
		t.Fatal(err)
	}
	fmt.Printf("imported %v\n", res[0])
}

// writeBigAnnotatedPairs writes an AnnotatedPairs file of n comparisons
// (about 325 bytes each) and returns its size.
func writeBigAnnotatedPairs(t *testing.T, path string, n int) int64 {
	t.Helper()
	f, err := os.Create(path)
	if err != nil {
		t.Fatal(err)
	}
	w := bufio.NewWriterSize(f, 1<<20)
	w.WriteString(`{"metadata": {"version": "2.0", "dataset_name": "big"}, "annotators": {"h": {"type": "human"}, "p": {"type": "principle"}}, "comparisons": [`)
	for i := 0; i < n; i++ {
		if i > 0 {
			w.WriteByte(',')
		}
		fmt.Fprintf(w, "\n"+`{"id": "c%d", "prompt": "Question number %d: what is the capital of the country we discussed?", `+
			`"response_a": {"text": "The capital is Paris, a city of about two million people.", "model": "m1"}, `+
			`"response_b": {"text": "I believe it is Lyon.", "model": "m2"}, "annotations": {"h": {"pref": "a"}, "p": {"pref": "%s"}}}`,
			i, i, []string{"a", "b", "tie"}[i%3])
	}
	w.WriteString("\n]}\n")
	if err := w.Flush(); err != nil {
		t.Fatal(err)
	}
	st, err := f.Stat()
	if err != nil {
		t.Fatal(err)
	}
	if err := f.Close(); err != nil {
		t.Fatal(err)
	}
	return st.Size()
}

// TestCancelMidImport cancels an import's context (as Ctrl-C does) once a
// third of the file is read: the import stops with the context's error
// and the database holds what it held before.
func TestCancelMidImport(t *testing.T) {
	s := mustOpenStore(t)
	if _, err := s.Import(context.Background(), "testdata/bundle-small", ImportOptions{}); err != nil {
		t.Fatal(err)
	}
	before := dbState(t, s, true)
	big := filepath.Join(t.TempDir(), "big.json")
	size := writeBigAnnotatedPairs(t, big, 30_000)
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	_, err := s.Import(ctx, big, ImportOptions{Progress: func(done, total int64) {
		if done >= size/3 {
			cancel()
		}
	}})
	if !errors.Is(err, context.Canceled) {
		t.Fatalf("cancelled import: err = %v, want context.Canceled", err)
	}
	if after := dbState(t, s, true); !sameState(before, after) {
		t.Errorf("the database changed: %s", diffState(before, after))
	}
}
