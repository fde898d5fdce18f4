package main

import (
	"archive/zip"
	"bytes"
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/auditscope/auditscope/data"
	"github.com/auditscope/auditscope/data/storetest"
)

// tableDigest reads every table's row count and an md5 of its rows from
// the database file db.
func tableDigest(t *testing.T, db string) map[string]string {
	t.Helper()
	s, err := data.Open(context.Background(), data.Options{Path: db, ReadOnly: true})
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	return storetest.TableState(t, s.DB(), true)
}

// TestImportBadInputExits runs bad imports through the command: each exits
// non-zero with an error naming the file, and the database file holds
// exactly what it held before.
func TestImportBadInputExits(t *testing.T) {
	db := filepath.Join(t.TempDir(), "b.duckdb")
	good := filepath.Join(apFixtures(t), "icai-example-v2-models.json")
	if _, _, err := runCmd(t, "import", "--db", db, good); err != nil {
		t.Fatal(err)
	}
	before := tableDigest(t, db)
	body, err := os.ReadFile(good)
	if err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	write := func(name string, b []byte) string {
		p := filepath.Join(dir, name)
		if err := os.WriteFile(p, b, 0o644); err != nil {
			t.Fatal(err)
		}
		return p
	}
	var zbuf bytes.Buffer
	zw := zip.NewWriter(&zbuf)
	w, _ := zw.Create("experiment.json")
	w.Write([]byte(`{"name": "x"}`))
	w, _ = zw.Create("../../x")
	w.Write([]byte("boom"))
	zw.Close()

	tests := []struct {
		name string
		args []string
		want []string
	}{
		{"truncated JSON", []string{write("cut.json", body[:len(body)/2])}, []string{"cut.json:", "truncated"}},
		{"zip member ../../x", []string{write("evil.zip", zbuf.Bytes())}, []string{"evil.zip:../../x", "unsafe name"}},
		{"empty CSV", []string{write("empty.csv", nil)}, []string{"empty.csv", "empty"}},
		{"invalid UTF-8", []string{write("latin1.json", bytes.Replace(body, []byte("Write a short"), []byte("Write \xe9 short"), 1))}, []string{"latin1.json:", "invalid UTF-8"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, _, err := runCmd(t, append([]string{"import", "--db", db}, tt.args...)...)
			if code := exitCode(err); code != 1 {
				t.Fatalf("exit code %d (%v), want 1", code, err)
			}
			for _, w := range tt.want {
				if !strings.Contains(err.Error(), w) {
					t.Errorf("error %q does not mention %q", err, w)
				}
			}
			after := tableDigest(t, db)
			for k, v := range before {
				if after[k] != v {
					t.Errorf("table %s: %s before, %s after", k, v, after[k])
				}
			}
		})
	}

	// Several paths land together or not at all: a good one before a bad
	// one does not land, and the command exits 1 saying so.
	ok := write("ok.csv", mustRead(t, filepath.Join(apFixtures(t), "icai-example.csv")))
	out, _, err := runCmd(t, "import", "--db", db, ok, write("png.json", []byte("\x89PNG\r\n\x1a\n")))
	if exitCode(err) != 1 || !strings.Contains(err.Error(), "png.json:1: invalid JSON") || !strings.Contains(err.Error(), "nothing was imported") {
		t.Errorf("good then bad path: exit %d, %v", exitCode(err), err)
	}
	if strings.Contains(out, "preference_csv ok:") {
		t.Errorf("the good path's import is reported: %q", out)
	}
	if got, was := tableDigest(t, db)["ap_datasets"], before["ap_datasets"]; got != was {
		t.Errorf("ap_datasets %q after, %q before; want nothing added", got, was)
	}
	// Both good: both land.
	out, _, err = runCmd(t, "import", "--db", db, ok, filepath.Join(apFixtures(t), "icai-example-v2-models.json"))
	if err != nil || !strings.Contains(out, "preference_csv ok:") {
		t.Errorf("two good paths: %q %v", out, err)
	}
	// The JSON was imported before (unchanged): the CSV is the one added.
	if got, was := tableDigest(t, db)["ap_datasets"], before["ap_datasets"]; strings.Fields(got)[0] != "2" || strings.Fields(was)[0] != "1" || !strings.Contains(out, "unchanged") {
		t.Errorf("ap_datasets %q after two good paths, %q before; want the CSV's added (%q)", got, was, out)
	}
}

func mustRead(t *testing.T, p string) []byte {
	t.Helper()
	b, err := os.ReadFile(p)
	if err != nil {
		t.Fatal(err)
	}
	return b
}
