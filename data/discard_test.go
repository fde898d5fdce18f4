package data

import (
	"context"
	"os"
	"path/filepath"
	"testing"
)

// TestDiscardUnused: a database file Open created with DiscardUnused is
// gone after Close when its first import failed (what import and serve
// PATHs open), and kept once an import landed; a file that was there
// before is never removed.
func TestDiscardUnused(t *testing.T) {
	ctx := context.Background()
	dir := t.TempDir()
	bad := filepath.Join(dir, "bad.json")
	os.WriteFile(bad, []byte(`{"comparisons": [`), 0o644)
	good := fixture(t, "inspect", "log_formats.json")
	for _, c := range []struct {
		name, input string
		before      bool // the file was there before
		kept        bool
	}{{"new, failed", bad, false, false}, {"new, landed", good, false, true}, {"old, failed", bad, true, true}} {
		p := filepath.Join(dir, c.name+".duckdb")
		if c.before {
			s, err := Open(ctx, Options{Path: p})
			if err != nil {
				t.Fatal(err)
			}
			s.Close()
		}
		s, err := Open(ctx, Options{Path: p, DiscardUnused: true})
		if err != nil {
			t.Fatal(err)
		}
		_, ierr := s.Import(ctx, c.input, ImportOptions{})
		if err := s.Close(); err != nil {
			t.Fatal(err)
		}
		if (ierr == nil) != (c.input == good) {
			t.Fatalf("%s: import: %v", c.name, ierr)
		}
		_, err = os.Stat(p)
		if kept := err == nil; kept != c.kept {
			t.Errorf("%s: the database file kept %v, want %v", c.name, kept, c.kept)
		}
		if _, err := os.Stat(p + ".wal"); err == nil && !c.kept {
			t.Errorf("%s: its write-ahead log left behind", c.name)
		}
	}
}
