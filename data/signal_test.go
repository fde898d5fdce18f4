package data

import (
	"archive/zip"
	"bufio"
	"compress/flate"
	"context"
	"fmt"
	"io"
	"io/fs"
	"maps"
	"os"
	"os/exec"
	"os/signal"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/auditscope/auditscope/data/storetest"
)

// The child of TestSignalStopsImport: it imports the input into the
// database as the command does (its context ends on SIGINT or SIGTERM),
// printing "start" first and the outcome last.
const (
	sigDBEnv    = "AUDITSCOPE_SIGNAL_DB"
	sigInputEnv = "AUDITSCOPE_SIGNAL_INPUT"
	// sigGrowEnv is how many bytes the database and its log must have
	// grown by before the child says "mid": the import is writing rows.
	sigGrowEnv = "AUDITSCOPE_SIGNAL_GROW"
)

// dbBytes is the size of a database file and its write-ahead log.
func dbBytes(db string) int64 {
	var n int64
	for _, p := range []string{db, db + ".wal"} {
		if st, err := os.Stat(p); err == nil {
			n += st.Size()
		}
	}
	return n
}

// sayMid prints "mid" once the database has grown by grow bytes: the
// import is under way, its rows being written, and has not landed. It
// looks every 10 ms until done is closed.
func sayMid(db string, grow int64, done <-chan struct{}) {
	start := dbBytes(db)
	t := time.NewTicker(10 * time.Millisecond)
	defer t.Stop()
	for {
		select {
		case <-done:
			return
		case <-t.C:
			if dbBytes(db)-start >= grow {
				fmt.Println("mid")
				return
			}
		}
	}
}

func signalChild(db, input string) {
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	s, err := Open(ctx, Options{Path: db, Threads: 2}) // as the hostile children: the same on any machine
	if err != nil {
		fmt.Println("open:", err)
		os.Exit(1)
	}
	fmt.Println("start")
	grow, _ := strconv.ParseInt(os.Getenv(sigGrowEnv), 10, 64)
	done := make(chan struct{})
	go sayMid(db, max(grow, 1), done)
	_, err = s.Import(ctx, input, ImportOptions{})
	close(done)
	s.Close()
	if err != nil {
		fmt.Println("stopped:", err)
		return
	}
	fmt.Println("imported")
}

// writeBlankZip writes the small bundle as a zip whose audits.jsonl starts
// with n bytes of newlines (a few MB compressed).
func writeBlankZip(t *testing.T, path string, n int64) {
	t.Helper()
	f, err := os.Create(path)
	if err != nil {
		t.Fatal(err)
	}
	zw := zip.NewWriter(f)
	zw.RegisterCompressor(zip.Deflate, func(w io.Writer) (io.WriteCloser, error) { return flate.NewWriter(w, flate.BestSpeed) })
	err = fs.WalkDir(os.DirFS("testdata/bundle-small"), ".", func(name string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return err
		}
		b, err := os.ReadFile(filepath.Join("testdata/bundle-small", name))
		if err != nil {
			return err
		}
		w, err := zw.Create(name)
		if err != nil {
			return err
		}
		if name == "audits.jsonl" {
			chunk := []byte(strings.Repeat("\n", 1<<20))
			for m := n; m > 0; m -= int64(len(chunk)) {
				w.Write(chunk[:min(m, int64(len(chunk)))])
			}
		}
		_, err = w.Write(b)
		return err
	})
	if err != nil {
		t.Fatal(err)
	}
	if err := zw.Close(); err != nil {
		t.Fatal(err)
	}
	f.Close()
}

// writeBigEval writes an Inspect .eval of n samples of about 4 KB each.
func writeBigEval(t *testing.T, path string, n int) {
	t.Helper()
	text := strings.Repeat("The answer, reasoned at length. ", 120)
	writeZipOf(t, path, map[string]string{"header.json": hostileEvalHead}, n, func(i int) (string, string) {
		return fmt.Sprintf("samples/%d_epoch_1.json", i+1), fmt.Sprintf(`{"id": %d, "epoch": 1, "input": "question %d", "target": "a",
 "messages": [{"role": "user", "content": "question %d"}, {"role": "assistant", "content": %q}], "scores": {"match": {"value": "C"}}}`, i+1, i, i, text)
	})
}

// TestSignalStopsImport sends SIGINT or SIGTERM to imports of every
// format in their middle (when the child says it has written rows, and
// again 4 MiB in: events, not sleeps): each stops within 2.5 s, and the
// database holds what it held before. A 4 MB zip inflating to blank
// lines ran for minutes and took 18 s to answer SIGINT.
func TestSignalStopsImport(t *testing.T) {
	if db := os.Getenv(sigDBEnv); db != "" {
		signalChild(db, os.Getenv(sigInputEnv))
		return
	}
	if testing.Short() {
		t.Skip("imports for seconds in child processes; skipped with -short")
	}
	dir := t.TempDir()
	ctx := context.Background()
	base := filepath.Join(dir, "base.duckdb")
	s, err := Open(ctx, Options{Path: base})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := s.Import(ctx, "testdata/petri", ImportOptions{Name: "base"}); err != nil {
		t.Fatal(err)
	}
	before := storetest.TableState(t, s.DB(), true)
	s.Close()
	baseBytes, err := os.ReadFile(base)
	if err != nil {
		t.Fatal(err)
	}
	// Where the signal lands: as soon as the import writes, and once it
	// has written 4 MiB. The child says when (an event, not a sleep).
	points := []int64{1, 4 << 20}
	inputs := []struct {
		name   string
		write  func(p string)
		points []int64
	}{
		{"ap.json", func(p string) { writeBigAnnotatedPairs(t, p, 400_000) }, points},
		{"prefs.csv", func(p string) { writeBigCSV(t, p, 1_000_000) }, points},
		{"bundle", func(p string) { writeScaledBundle(t, p, 12_000) }, points},
		{"petri", func(p string) { writePetriFolder(t, p, 3000) }, points},
		{"run.eval", func(p string) { writeBigEval(t, p, 12_000) }, points},
		// Its 2 GiB of blank lines now import in about a second (they took
		// minutes a line at a time): one point only.
		{"blank.zip", func(p string) { writeBlankZip(t, p, 2<<30) }, points[:1]},
	}
	for _, in := range inputs {
		t.Run(in.name, func(t *testing.T) {
			p := filepath.Join(dir, in.name)
			in.write(p)
			defer os.RemoveAll(p)
			mid := 0 // signals that came while the import ran
			defer func() {
				if mid == 0 {
					t.Errorf("every import ended before its signal: the input is too small to test")
				}
			}()
			for k, at := range in.points {
				sig := []os.Signal{os.Interrupt, syscall.SIGTERM}[k]
				db := filepath.Join(t.TempDir(), "s.duckdb")
				if err := os.WriteFile(db, baseBytes, 0o644); err != nil {
					t.Fatal(err)
				}
				last, took := signalImport(t, db, p, at, sig)
				t.Logf("%v after %d bytes written: stopped in %s: %.200s", sig, at, took.Round(10*time.Millisecond), last)
				if strings.HasPrefix(last, "imported") {
					// A fast machine may finish before a later signal: that
					// point tests nothing, and the check below sees that
					// some point did.
					continue
				}
				mid++
				if !strings.HasPrefix(last, "stopped") || !strings.Contains(last, "context canceled") {
					t.Errorf("the child ended with %q, want it stopped by the signal", last)
				}
				// Quiet, 10–250 ms; the bound is ten times that, so a
				// busy machine does not fail it.
				if took > 2500*time.Millisecond {
					t.Errorf("%v at %d bytes: the import took %s to stop, over 2.5 s", sig, at, took.Round(10*time.Millisecond))
				}
				s, err := Open(ctx, Options{Path: db})
				if err != nil {
					t.Fatal(err)
				}
				after := storetest.TableState(t, s.DB(), true)
				s.Close()
				if !maps.Equal(before, after) {
					t.Errorf("%v at %d bytes: the database changed:\nbefore %v\nafter  %v", sig, at, before, after)
				}
			}
		})
	}
}

// signalImport runs TestSignalStopsImport's child importing p into db,
// sends it sig once it says it has written at bytes, and returns its last
// line (stopped, imported, or it could not open) and how long it ran
// after the signal; apart from the test so that reads as what it checks.
func signalImport(t *testing.T, db, p string, at int64, sig os.Signal) (last string, took time.Duration) {
	t.Helper()
	cmd := exec.Command(os.Args[0], "-test.run=^TestSignalStopsImport$")
	cmd.Env = append(os.Environ(), sigDBEnv+"="+db, sigInputEnv+"="+p, sigGrowEnv+"="+strconv.FormatInt(at, 10))
	out, _ := cmd.StdoutPipe()
	cmd.Stderr = os.Stderr
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	lines := bufio.NewScanner(out)
	if !lines.Scan() || lines.Text() != "start" {
		cmd.Process.Kill()
		t.Fatalf("the child did not start: %q", lines.Text())
	}
	for last == "" && lines.Scan() {
		switch l := lines.Text(); {
		case l == "mid":
			last = "mid"
		case strings.HasPrefix(l, "stopped") || strings.HasPrefix(l, "imported") || strings.HasPrefix(l, "open"):
			last = l // it ended before it grew that much
		}
	}
	sent := time.Now()
	if last == "mid" {
		cmd.Process.Signal(sig)
		last = ""
	}
	for lines.Scan() {
		if l := lines.Text(); strings.HasPrefix(l, "stopped") || strings.HasPrefix(l, "imported") || strings.HasPrefix(l, "open") {
			last = l
		}
	}
	cmd.Wait()
	return last, time.Since(sent)
}
