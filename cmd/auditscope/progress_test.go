package main

import (
	"bufio"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestImportProgressOffTerminal: an import of a large file whose stderr is
// not a terminal says how far it is in lines (it said nothing until the
// end), and its result line is still the one line on stdout.
func TestImportProgressOffTerminal(t *testing.T) {
	was := progressEvery
	progressEvery = 0 // every report the importer makes, a line
	defer func() { progressEvery = was }()
	dir := t.TempDir()
	csv := filepath.Join(dir, "prefs.csv")
	f, err := os.Create(csv)
	if err != nil {
		t.Fatal(err)
	}
	w := bufio.NewWriter(f)
	w.WriteString("text_a,text_b,preferred_text\n")
	for range 1_700_000 { // 17 MB
		w.WriteString("a,b,text_a\n")
	}
	w.Flush()
	f.Close()
	stdout, stderr, err := runCmd(t, "import", "--db", filepath.Join(dir, "p.duckdb"), csv)
	if err != nil {
		t.Fatal(err)
	}
	lines := strings.Split(strings.TrimSpace(stderr), "\n")
	if len(lines) < 3 || !strings.HasPrefix(lines[0], "auditscope: importing "+csv+": ") || !strings.Contains(lines[0], "%)") {
		t.Errorf("stderr %q: want progress lines", stderr)
	}
	if !strings.HasPrefix(stdout, "preference_csv prefs: ") || strings.Count(stdout, "\n") != 1 {
		t.Errorf("stdout %q: want the one result line", stdout)
	}
}
