package main

import (
	"bufio"
	"io"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"
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

// TestWorking: off a terminal, long work says every progressEvery that it
// goes on, with the time taken; stop ends it (twice is fine) and nothing
// is said after.
func TestWorking(t *testing.T) {
	was := progressEvery
	progressEvery = time.Millisecond
	defer func() { progressEvery = was }()
	r, w := io.Pipe()
	stop := working(w, "importing runs")
	line, err := bufio.NewReader(r).ReadString('\n')
	if err != nil || line != "auditscope: still importing runs (0s)\n" {
		t.Errorf("first line %q (%v)", line, err)
	}
	go io.Copy(io.Discard, r) // the ticker may be writing as stop is called
	stop()
	stop()
	w.Close()
}

// TestLongCommandsSayTheyWork: every long command whose work has no byte
// count says, off a terminal, that it is still at work: a folder import,
// demo --out, an export, a lake write.
func TestLongCommandsSayTheyWork(t *testing.T) {
	was := progressEvery
	progressEvery = time.Millisecond
	defer func() { progressEvery = was }()
	dir := t.TempDir()
	db := filepath.Join(dir, "s.duckdb")
	bundle := filepath.Join("..", "..", "data", "testdata", "bundle-small")
	for _, c := range []struct {
		args []string
		want string
	}{
		{[]string{"import", "--db", db, bundle}, "auditscope: still importing " + bundle + " ("},
		{[]string{"demo", "--out", filepath.Join(dir, "demo"), "--audits", "5000"}, "auditscope: still writing the demo to "},
		{[]string{"export", "--db", db, "/audits.csv?exp=small", "--out", filepath.Join(dir, "a.csv")}, "auditscope: still exporting /audits.csv?exp=small ("},
		{[]string{"lake", "write", "--lake", filepath.Join(dir, "lake"), "--db", db}, "auditscope: still writing the lake "},
	} {
		_, stderr, err := runCmd(t, c.args...)
		if err != nil {
			t.Fatalf("%v: %v", c.args, err)
		}
		if !strings.Contains(stderr, c.want) {
			t.Errorf("%v: stderr %q lacks %q", c.args, stderr, c.want)
		}
	}
}
