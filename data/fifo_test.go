package data

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"
)

// TestImportRefusesFIFO: a named pipe given as the input, or in a folder
// where the import reads it, is refused naming it, at once: opening one
// for reading waited for a writer forever, and no signal but SIGKILL ended
// the import.
func TestImportRefusesFIFO(t *testing.T) {
	fifo := func(t *testing.T, p string) {
		t.Helper()
		os.Remove(p)
		if err := syscall.Mkfifo(p, 0o644); err != nil {
			t.Skipf("no named pipes here: %v", err)
		}
	}
	bundle := func(t *testing.T, replace string) string {
		dir := filepath.Join(t.TempDir(), "small")
		if err := os.CopyFS(dir, os.DirFS("testdata/bundle-small")); err != nil {
			t.Fatal(err)
		}
		fifo(t, filepath.Join(dir, filepath.FromSlash(replace)))
		return dir
	}
	cases := []struct {
		name    string
		input   func(t *testing.T) (path, pipe string)
		skipped bool // may be left out rather than refused
	}{
		{"AnnotatedPairs path", func(t *testing.T) (string, string) {
			p := filepath.Join(t.TempDir(), "pairs.json")
			fifo(t, p)
			return p, p
		}, false},
		{"Inspect log path", func(t *testing.T) (string, string) {
			p := filepath.Join(t.TempDir(), "run.eval")
			fifo(t, p)
			return p, p
		}, false},
		{"CSV path", func(t *testing.T) (string, string) {
			p := filepath.Join(t.TempDir(), "prefs.csv")
			fifo(t, p)
			return p, p
		}, false},
		{"bundle's audits.jsonl", func(t *testing.T) (string, string) {
			dir := bundle(t, "audits.jsonl")
			return dir, filepath.Join(dir, "audits.jsonl")
		}, false},
		{"bundle's experiment.json", func(t *testing.T) (string, string) {
			dir := bundle(t, "experiment.json")
			return dir, filepath.Join(dir, "experiment.json")
		}, false},
		{"transcript in a Petri folder", func(t *testing.T) (string, string) {
			dir := filepath.Join(t.TempDir(), "lab")
			if err := os.CopyFS(dir, os.DirFS("testdata/petri")); err != nil {
				t.Fatal(err)
			}
			fifo(t, filepath.Join(dir, "reset.json"))
			return dir, filepath.Join(dir, "reset.json")
		}, true},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			path, pipe := c.input(t)
			s := mustOpenStore(t)
			done := make(chan error, 1)
			go func() {
				_, err := s.Import(context.Background(), path, ImportOptions{})
				done <- err
			}()
			select {
			case err := <-done:
				if err == nil && c.skipped {
					// A folder of logs leaves out what is not a regular file,
					// as it leaves out other files it does not read.
					return
				}
				if err == nil {
					t.Fatalf("imported with the named pipe %s in it", pipe)
				}
				if !strings.Contains(err.Error(), "named pipe") || !strings.Contains(err.Error(), filepath.Base(pipe)) {
					t.Errorf("error %q does not name the pipe %s as one", err, filepath.Base(pipe))
				}
			case <-time.After(30 * time.Second):
				// (The import's goroutine is left blocked in open(2).)
				t.Fatal("the import still waits on the named pipe after 30 s")
			}
		})
	}
}
