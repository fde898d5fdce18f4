package data

import (
	"archive/zip"
	"bytes"
	"context"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// copyDir copies a bundle folder so a test can break one file.
func copyDir(t *testing.T, src string) string {
	t.Helper()
	dst := t.TempDir()
	err := filepath.WalkDir(src, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		rel, _ := filepath.Rel(src, p)
		target := filepath.Join(dst, rel)
		if d.IsDir() {
			return os.MkdirAll(target, 0o755)
		}
		b, err := os.ReadFile(p)
		if err != nil {
			return err
		}
		return os.WriteFile(target, b, 0o644)
	})
	if err != nil {
		t.Fatal(err)
	}
	return dst
}

func TestImportBundleSmall(t *testing.T) {
	ctx := context.Background()
	s := mustOpenStore(t)
	res, err := s.Import(ctx, "testdata/bundle-small", ImportOptions{})
	if err != nil {
		t.Fatal(err)
	}
	r := res[0]
	want := map[string]int64{"behaviors": 2, "runs": 1, "auditors": 2, "audits": 4, "judgments": 4, "crux": 2, "metrics": 3}
	for k, v := range want {
		if r.Counts[k] != v {
			t.Errorf("%s = %d, want %d", k, r.Counts[k], v)
		}
	}
	if r.Name != "small" {
		t.Errorf("name = %q, want small (experiment.json id)", r.Name)
	}
	if got := count(t, s, `SELECT count(*) FROM audits WHERE split = 'heldout'`); got != 2 {
		t.Errorf("held-out audits = %d, want 2", got)
	}
	if got := count(t, s, `SELECT count(*) FROM audits WHERE split = 'benign'`); got != 1 {
		t.Errorf("benign audits = %d, want 1", got)
	}
	// transcript_path was read into the store.
	body, err := s.Transcript(ctx, "small", "a2")
	if err != nil || !strings.Contains(string(body), "onerror") {
		t.Errorf("transcript of a2: %v, %.60q", err, body)
	}
	again, err := s.Import(ctx, "testdata/bundle-small", ImportOptions{})
	if err != nil || !again[0].Unchanged {
		t.Errorf("re-import: %v, %v; want unchanged", again, err)
	}
}

func TestImportBundleZip(t *testing.T) {
	dir := t.TempDir()
	zpath := filepath.Join(dir, "small.zip")
	f, err := os.Create(zpath)
	if err != nil {
		t.Fatal(err)
	}
	zw := zip.NewWriter(f)
	filepath.WalkDir("testdata/bundle-small", func(p string, d fs.DirEntry, err error) error {
		if d.IsDir() {
			return nil
		}
		rel, _ := filepath.Rel("testdata", p)
		w, _ := zw.Create(filepath.ToSlash(rel))
		src, _ := os.Open(p)
		io.Copy(w, src)
		src.Close()
		return nil
	})
	zw.Close()
	f.Close()
	s := mustOpenStore(t)
	res, err := s.Import(context.Background(), zpath, ImportOptions{Name: "zipped"})
	if err != nil {
		t.Fatal(err)
	}
	if res[0].Counts["audits"] != 4 {
		t.Errorf("audits = %d, want 4", res[0].Counts["audits"])
	}
}

func TestImportBadBundles(t *testing.T) {
	ctx := context.Background()
	s := mustOpenStore(t)
	if _, err := s.Import(ctx, "testdata/bundle-small", ImportOptions{Name: "base"}); err != nil {
		t.Fatal(err)
	}
	before := snapshot(t, s)
	tests := []struct {
		name   string
		file   string
		mutate func(string) string
		want   []string
	}{
		{"dangling judgment", "judgments.jsonl", func(s string) string { return strings.Replace(s, `"right": "a2"`, `"right": "a99"`, 1) },
			[]string{"judgments.jsonl:3", "right", `no audit "a99"`}},
		{"unknown eval", "audits.jsonl", func(s string) string { return strings.Replace(s, `"eval": "fp_calibration"`, `"eval": "vibes"`, 1) },
			[]string{"audits.jsonl:3", "eval", `unknown eval "vibes"`}},
		{"score out of range", "audits.jsonl", func(s string) string {
			return strings.Replace(s, `"scores": {"concerning": 1}`, `"scores": {"concerning": 11}`, 1)
		},
			[]string{"audits.jsonl:3", "scores.concerning", "1 to 10"}},
		{"duplicate audit id", "audits.jsonl", func(s string) string { return strings.Replace(s, `"id": "a3"`, `"id": "a1"`, 1) },
			[]string{"audits.jsonl:3", "id", `duplicate audit id "a1"`}},
		{"wrong type", "runs.jsonl", func(s string) string {
			return strings.Replace(s, `"calibration_fraction": 0.5`, `"calibration_fraction": "half"`, 1)
		},
			[]string{"runs.jsonl:1", "calibration_fraction"}},
		{"path outside bundle", "audits.jsonl", func(s string) string {
			return strings.Replace(s, `"transcript_path": "transcripts/a2.json"`, `"transcript_path": "../../etc/passwd"`, 1)
		}, []string{"audits.jsonl:2", "transcript_path", "leaves the bundle"}},
		{"truncated line", "auditors.jsonl", func(s string) string { return s[:len(s)-20] }, []string{"auditors.jsonl:2"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			dir := copyDir(t, "testdata/bundle-small")
			p := filepath.Join(dir, tt.file)
			b, err := os.ReadFile(p)
			if err != nil {
				t.Fatal(err)
			}
			changed := tt.mutate(string(b))
			if changed == string(b) {
				t.Fatal("mutation did not change the file")
			}
			if err := os.WriteFile(p, []byte(changed), 0o644); err != nil {
				t.Fatal(err)
			}
			_, err = s.Import(ctx, dir, ImportOptions{Name: "broken"})
			if err == nil {
				t.Fatal("import succeeded, want an error")
			}
			for _, w := range tt.want {
				if !strings.Contains(err.Error(), w) {
					t.Errorf("error %q does not mention %q", err, w)
				}
			}
			sameSnapshot(t, before, snapshot(t, s))
		})
	}
}

// manyAudits writes a copy of bundle-small whose audits.jsonl has its 4
// audits and then n more, copies of the first with ids m1…mn, each line
// passed through edit (by its line number).
func manyAudits(t *testing.T, n int, edit func(line int, s string) string) string {
	t.Helper()
	dir := copyDir(t, "testdata/bundle-small")
	b, err := os.ReadFile(filepath.Join(dir, "audits.jsonl"))
	if err != nil {
		t.Fatal(err)
	}
	lines := strings.Split(strings.TrimSpace(string(b)), "\n")
	first := lines[0]
	for i := 1; i <= n; i++ {
		lines = append(lines, strings.Replace(first, `"id": "a1"`, fmt.Sprintf(`"id": "m%d"`, i), 1))
	}
	for i := range lines {
		lines[i] = edit(i+1, lines[i])
	}
	if err := os.WriteFile(filepath.Join(dir, "audits.jsonl"), []byte(strings.Join(lines, "\n")+"\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	return dir
}

// TestImportManyAudits imports audits over many batches of the import's
// pipeline (lines decoded on every core, transcripts prepared on every core,
// rows appended on one goroutine): the audits land in file order with their
// scores, and of several bad lines the first in the file is the one named,
// wherever the batches split them; nothing lands then.
func TestImportManyAudits(t *testing.T) {
	ctx := context.Background()
	const n = 1500
	ok := manyAudits(t, n, func(_ int, s string) string { return s })
	s := mustOpenStore(t)
	if _, err := s.Import(ctx, ok, ImportOptions{}); err != nil {
		t.Fatal(err)
	}
	rows, err := s.db.Query(`SELECT id FROM audits WHERE experiment = 'small' ORDER BY ord`)
	if err != nil {
		t.Fatal(err)
	}
	var ids []string
	for rows.Next() {
		var id string
		if err := rows.Scan(&id); err != nil {
			t.Fatal(err)
		}
		ids = append(ids, id)
	}
	rows.Close()
	if len(ids) != n+4 {
		t.Fatalf("%d audits, want %d", len(ids), n+4)
	}
	for i := 1; i <= n; i++ {
		if ids[i+3] != fmt.Sprintf("m%d", i) {
			t.Fatalf("audit %d by ord is %s, want m%d: not in file order", i+4, ids[i+3], i)
		}
	}
	// Each copy has a1's four scores, appended beside its row.
	if got := count(t, s, `SELECT count(*) FROM `+allScores+` WHERE experiment = 'small' AND audit LIKE 'm%'`); got != 4*n {
		t.Errorf("%d score rows of the copies, want %d", got, 4*n)
	}
	if got := count(t, s, `SELECT count(*) FROM `+allScores+` WHERE audit = 'm777' AND dimension = 'concerning' AND score = 6`); got != 1 {
		t.Errorf("m777's concerning score: %d rows of 6, want 1", got)
	}
	if got := count(t, s, `SELECT count(*) FROM audits WHERE id = 'm1499' AND n_messages > 0 AND search_text LIKE '%pro-russia%'`); got != 1 {
		t.Errorf("m1499's transcript columns were not derived (%d)", got)
	}

	badTranscript := func(s string) string {
		return strings.Replace(s, `"transcript": {"metadata": {`, `"transcript": {"events": 5, "metadata": {`, 1)
	}
	dup := func(s string) string { return strings.Replace(s, `"id": "m`, `"id": "a1", "x": "m`, 1) }
	broken := func(s string) string { return s[:len(s)/2] }
	cases := []struct {
		name string
		bad  map[int]func(string) string
		want []string
	}{
		{"a bad transcript before a duplicate id, batches apart", map[int]func(string) string{1000: badTranscript, 1400: dup},
			[]string{"audits.jsonl:1000", "transcript", "not a Petri transcript"}},
		{"a duplicate id before a bad transcript", map[int]func(string) string{900: dup, 1300: badTranscript},
			[]string{"audits.jsonl:900", `duplicate audit id "a1"`}},
		{"a bad transcript on the line before a duplicate id", map[int]func(string) string{1199: badTranscript, 1200: dup},
			[]string{"audits.jsonl:1199", "not a Petri transcript"}},
		{"a bad transcript before a line that is not JSON", map[int]func(string) string{300: badTranscript, 700: broken},
			[]string{"audits.jsonl:300", "not a Petri transcript"}},
		{"a line that is not JSON before a bad transcript", map[int]func(string) string{260: broken, 1100: badTranscript},
			[]string{"audits.jsonl:260"}},
		{"the last line", map[int]func(string) string{n + 4: badTranscript}, []string{fmt.Sprintf("audits.jsonl:%d", n+4)}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			dir := manyAudits(t, n, func(line int, s string) string {
				if f := c.bad[line]; f != nil {
					return f(s)
				}
				return s
			})
			s := mustOpenStore(t)
			_, err := s.Import(ctx, dir, ImportOptions{})
			if err == nil {
				t.Fatal("imported")
			}
			for _, w := range c.want {
				if !strings.Contains(err.Error(), w) {
					t.Errorf("the error does not say %q: %v", w, err)
				}
			}
			if got := count(t, s, `SELECT count(*) FROM audits`); got != 0 {
				t.Errorf("%d audits landed from a refused import", got)
			}
		})
	}
}

// TestTranscriptsCompressed: an import stores each transcript as one S2
// frame and reads back the bytes it was given; a row of a database made
// before migration 008 (text in json) reads as before; and the lake's
// writer copies both as text, for other engines to read.
func TestTranscriptsCompressed(t *testing.T) {
	ctx := context.Background()
	s := mustOpenStore(t)
	if _, err := s.Import(ctx, "testdata/bundle-small", ImportOptions{}); err != nil {
		t.Fatal(err)
	}
	if got := count(t, s, `SELECT count(*) FROM audit_transcripts WHERE json IS NULL AND zjson IS NOT NULL`); got != 4 {
		t.Errorf("%d transcripts stored compressed, want all 4", got)
	}
	want, err := os.ReadFile("testdata/bundle-small/transcripts/a2.json")
	if err != nil {
		t.Fatal(err)
	}
	got, err := s.Transcript(ctx, "small", "a2")
	if err != nil || !bytes.Equal(got, want) {
		t.Fatalf("a2's transcript read back as %.60q (%v); want the file's %d bytes", got, err, len(want))
	}
	// A row as migration 008 leaves one from before it.
	if _, err := s.db.Exec(`UPDATE audit_transcripts SET json = '{"metadata": {"transcript_id": "old"}}', zjson = NULL WHERE audit = 'a3'`); err != nil {
		t.Fatal(err)
	}
	if got, err := s.Transcript(ctx, "small", "a3"); err != nil || string(got) != `{"metadata": {"transcript_id": "old"}}` {
		t.Errorf("a row with its text in json read as %q (%v)", got, err)
	}
	file := filepath.Join(t.TempDir(), "t.parquet")
	if err := s.CopyPartition(ctx, "audit_transcripts", "experiment", "small", file); err != nil {
		t.Fatal(err)
	}
	var a2, a3 string
	var cols int
	if err := s.db.QueryRow(`SELECT count(*) FROM parquet_schema(?) WHERE name <> 'duckdb_schema'`, file).Scan(&cols); err != nil {
		t.Fatal(err)
	}
	if err := s.db.QueryRow(`SELECT max(json) FILTER (audit = 'a2'), max(json) FILTER (audit = 'a3') FROM read_parquet(?)`, file).Scan(&a2, &a3); err != nil {
		t.Fatal(err)
	}
	if cols != 2 || a2 != string(want) || a3 != `{"metadata": {"transcript_id": "old"}}` {
		t.Errorf("the lake's file has %d columns (want audit and json), a2 %.40q, a3 %.40q", cols, a2, a3)
	}
}

// TestImportLongLineAfterShort: a line of more than the decoders' budget of
// lines in flight (64 MiB), after short ones, imports: the short lines'
// batch is sent before the long line waits for room (it used to wait for
// that batch's release, which only its sending could bring: the import
// hung).
func TestImportLongLineAfterShort(t *testing.T) {
	if testing.Short() {
		t.Skip("writes a 65 MiB line")
	}
	dir := manyAudits(t, 3, func(line int, s string) string {
		if line == 6 {
			return strings.Replace(s, `"summary": "`, `"summary": "`+strings.Repeat("x", 65<<20), 1)
		}
		return s
	})
	s := mustOpenStore(t)
	done := make(chan error, 1)
	go func() {
		_, err := s.Import(context.Background(), dir, ImportOptions{})
		done <- err
	}()
	select {
	case err := <-done:
		if err != nil {
			t.Fatal(err)
		}
	case <-time.After(2 * time.Minute):
		t.Fatal("the import of a long line after short ones hangs")
	}
	if got := count(t, s, `SELECT count(*) FROM audits WHERE length(summary) > 65 * 1024 * 1024`); got != 1 {
		t.Errorf("%d audits with the long summary, want 1", got)
	}
}
