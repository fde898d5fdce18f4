package data

import (
	"context"
	"path/filepath"
	"strings"
	"testing"
)

// TestByteIdenticalCopies: a log copied into a folder under another name
// is read once, with a note naming the copy; the same two files given
// together import once, the second "unchanged", as they do one after the
// other.
func TestByteIdenticalCopies(t *testing.T) {
	ctx := context.Background()
	dir := t.TempDir()
	src := fixture(t, "inspect", "log_formats.eval")
	copyFile(t, src, filepath.Join(dir, "run.eval"))
	copyFile(t, src, filepath.Join(dir, "run copy.eval"))
	s := mustOpenStore(t)
	rs, err := s.Import(ctx, dir, ImportOptions{Name: "folder"})
	if err != nil {
		t.Fatal(err)
	}
	if n := countRows(t, s, `SELECT count(*) FROM audits WHERE experiment = 'folder'`); n != 1 {
		t.Errorf("the folder with a copy holds %d audits, want the log's 1", n)
	}
	if notes := strings.Join(rs[0].Notes, "; "); !strings.Contains(notes, "run.eval (the same as run copy.eval)") && !strings.Contains(notes, "run copy.eval (the same as run.eval)") {
		t.Errorf("no note names the copy: %q", notes)
	}
	paths := []string{filepath.Join(dir, "run.eval"), filepath.Join(dir, "run copy.eval")}
	s2 := mustOpenStore(t)
	out, err := s2.ImportAll(ctx, paths, func(string) ImportOptions { return ImportOptions{} })
	if err != nil {
		t.Fatalf("two identical files together: %v", err)
	}
	if len(out) != 2 || out[0].Unchanged || !out[1].Unchanged || out[1].Name != out[0].Name {
		t.Errorf("results %+v, want the second unchanged under the first's name", out)
	}
	if n := countRows(t, s2, `SELECT count(*) FROM audits`); n != 1 {
		t.Errorf("%d audits from two identical files, want 1", n)
	}
}

func countRows(t *testing.T, s *Store, query string) int {
	t.Helper()
	var n int
	if err := s.db.QueryRow(query).Scan(&n); err != nil {
		t.Fatal(err)
	}
	return n
}
