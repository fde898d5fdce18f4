package data

import (
	"archive/zip"
	"bytes"
	"context"
	"hash/crc32"
	"io/fs"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"testing"
	"time"

	"github.com/auditscope/auditscope/data/model"
)

// Inputs the bad-input cases start from: one valid file of each kind.
type goodInputs struct {
	ap, csv, petri, inspectJSON, inspectEval []byte
}

func readGoodInputs(t *testing.T) goodInputs {
	t.Helper()
	read := func(p string) []byte {
		b, err := os.ReadFile(p)
		if err != nil {
			t.Fatal(err)
		}
		return b
	}
	return goodInputs{
		ap:          read(fixture(t, "annotated-pairs", "icai-example-v2-models.json")),
		csv:         read(fixture(t, "annotated-pairs", "icai-example.csv")),
		petri:       read("testdata/petri/rollback.json"),
		inspectJSON: read(fixture(t, "inspect", "log_formats.json")),
		inspectEval: read(fixture(t, "inspect", "log_formats.eval")),
	}
}

// replaceOnce replaces the first old in b, failing the test when b lacks it
// (a fixture changed under the test).
func replaceOnce(t *testing.T, b []byte, old, new string) []byte {
	t.Helper()
	if !bytes.Contains(b, []byte(old)) {
		t.Fatalf("input lacks %q", old)
	}
	return bytes.Replace(b, []byte(old), []byte(new), 1)
}

// deep is an array nested n levels.
func deep(n int) string { return strings.Repeat("[", n) + strings.Repeat("]", n) }

func writeInput(t *testing.T, dir, name string, b []byte) string {
	t.Helper()
	p := filepath.Join(dir, name)
	if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(p, b, 0o644); err != nil {
		t.Fatal(err)
	}
	return p
}

// bundleWith copies testdata/bundle-small into dir/name with file (relative
// to the bundle) changed by mutate.
func bundleWith(t *testing.T, dir, name, file string, mutate func([]byte) []byte) string {
	t.Helper()
	root := filepath.Join(dir, name)
	err := filepath.WalkDir("testdata/bundle-small", func(p string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return err
		}
		rel, _ := filepath.Rel("testdata/bundle-small", p)
		b, err := os.ReadFile(p)
		if err != nil {
			return err
		}
		if filepath.ToSlash(rel) == file {
			b = mutate(b)
		}
		writeInput(t, root, rel, b)
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	return root
}

// rawMember is a zip member written as is: its header may lie.
type rawMember struct {
	name string
	body []byte
	size uint64 // claimed uncompressed size; 0 means len(body)
}

// writeZipFile writes a zip of the bundle-small files under "small/" (when
// withBundle) followed by extra members stored raw.
func writeZipFile(t *testing.T, path string, base map[string][]byte, extra ...rawMember) string {
	t.Helper()
	var buf bytes.Buffer
	zw := zip.NewWriter(&buf)
	for name, b := range base {
		w, err := zw.Create(name)
		if err != nil {
			t.Fatal(err)
		}
		w.Write(b)
	}
	for _, m := range extra {
		size := m.size
		if size == 0 {
			size = uint64(len(m.body))
		}
		w, err := zw.CreateRaw(&zip.FileHeader{Name: m.name, Method: zip.Store, CRC32: crc32.ChecksumIEEE(m.body),
			CompressedSize64: uint64(len(m.body)), UncompressedSize64: size})
		if err != nil {
			t.Fatal(err)
		}
		w.Write(m.body)
	}
	if err := zw.Close(); err != nil {
		t.Fatal(err)
	}
	return writeInput(t, filepath.Dir(path), filepath.Base(path), buf.Bytes())
}

// bundleFiles reads bundle-small as zip members under prefix.
func bundleFiles(t *testing.T, prefix string) map[string][]byte {
	t.Helper()
	out := map[string][]byte{}
	err := filepath.WalkDir("testdata/bundle-small", func(p string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return err
		}
		rel, _ := filepath.Rel("testdata/bundle-small", p)
		b, err := os.ReadFile(p)
		out[prefix+filepath.ToSlash(rel)] = b
		return err
	})
	if err != nil {
		t.Fatal(err)
	}
	return out
}

// evalFiles reads the members of an Inspect .eval.
func evalFiles(t *testing.T, b []byte) map[string][]byte {
	t.Helper()
	zr, err := zip.NewReader(bytes.NewReader(b), int64(len(b)))
	if err != nil {
		t.Fatal(err)
	}
	out := map[string][]byte{}
	for _, f := range zr.File {
		rc, err := f.Open()
		if err != nil {
			t.Fatal(err)
		}
		var m bytes.Buffer
		if _, err := m.ReadFrom(rc); err != nil {
			t.Fatal(err)
		}
		rc.Close()
		out[f.Name] = m.Bytes()
	}
	return out
}

// populatedStore holds one import of every kind, so "the database as
// before" is a database with content.
func populatedStore(t *testing.T, in goodInputs) *Store {
	t.Helper()
	s := mustOpenStore(t)
	dir := t.TempDir()
	ctx := context.Background()
	for _, p := range []string{
		fixture(t, "annotated-pairs", "icai-example-v2-models.json"),
		fixture(t, "annotated-pairs", "icai-example.csv"),
		"testdata/bundle-small",
		writeInput(t, dir, "petri/rollback.json", in.petri),
		fixture(t, "inspect", "log_formats.eval"),
	} {
		if _, err := s.Import(ctx, p, ImportOptions{}); err != nil {
			t.Fatalf("import %s: %v", p, err)
		}
	}
	return s
}

// maxErrLen bounds every import error: errors never echo large amounts of
// input back.
const maxErrLen = 1500

// TestBadInput imports hostile and broken files through Store.Import, the
// path the import command takes. Each must fail with an *model.InputError that
// names the file and the place in it (the wanted substrings; "$PATH" stands
// for the imported path), and leave every table's rows exactly as they were
// (row counts and an md5 of each table's content).
func TestBadInput(t *testing.T) {
	in := readGoodInputs(t)
	s := populatedStore(t, in)
	before := dbState(t, s, true)
	dir := t.TempDir()
	outside := writeInput(t, dir, "outside.json", in.petri)

	for _, tt := range badInputCases(in, outside) {
		t.Run(tt.name, func(t *testing.T) {
			d := t.TempDir()
			path := tt.input(t, d)
			// A name no import has taken: a bundle named like one imported
			// before is refused before it is read.
			_, err := s.Import(context.Background(), path, ImportOptions{Name: "bad"})
			if err == nil {
				t.Fatal("import succeeded, want an error")
			}
			msg := err.Error()
			if !model.IsInputError(err) {
				t.Errorf("error %T is not an *model.InputError: %.300s", err, msg)
			}
			for _, w := range tt.want {
				w = strings.ReplaceAll(w, "$PATH", path)
				if !strings.Contains(msg, w) {
					t.Errorf("error does not mention %q:\n%.600s", w, msg)
				}
			}
			if len(msg) > maxErrLen {
				t.Errorf("error is %d bytes long, want at most %d:\n%.300s…", len(msg), maxErrLen, msg)
			}
			t.Logf("%s", msg)
			if after := dbState(t, s, true); !sameState(before, after) {
				t.Errorf("the database changed: %s", diffState(before, after))
			}
		})
	}
}

// TestBadInputAccepted covers the odd inputs that import: a UTF-8 byte
// order mark before any kind of file, duplicate AnnotatedPairs ids (the
// first is kept, as Feedback Forensics does) and deep but legal nesting.
func TestBadInputAccepted(t *testing.T) {
	in := readGoodInputs(t)
	bom := []byte("\xef\xbb\xbf")
	withBOM := func(b []byte) []byte { return append(append([]byte(nil), bom...), b...) }
	tests := []struct {
		name  string
		input func(t *testing.T, d string) string
		check func(t *testing.T, s *Store, r model.ImportResult)
	}{
		{"BOM before AnnotatedPairs JSON", func(t *testing.T, d string) string {
			return writeInput(t, d, "ap.json", withBOM(in.ap))
		}, func(t *testing.T, s *Store, r model.ImportResult) {
			if r.Kind != model.KindAnnotatedPairs || r.Counts["comparisons"] != 1 {
				t.Errorf("result %v, want 1 comparison", r)
			}
		}},
		{"BOM before a CSV", func(t *testing.T, d string) string {
			return writeInput(t, d, "p.csv", withBOM(in.csv))
		}, func(t *testing.T, s *Store, r model.ImportResult) {
			// The first column keeps its name (index), not "\ufeffindex".
			if got := count(t, s, `SELECT count(*) FROM ap_meta WHERE dataset = ? AND key = 'index'`, r.Name); got != 1 {
				t.Errorf("index metadata rows = %d, want 1", got)
			}
		}},
		{"BOM before bundle JSONL and JSON files", func(t *testing.T, d string) string {
			root := bundleWith(t, d, "b", "audits.jsonl", withBOM)
			for _, f := range []string{"experiment.json", "runs.jsonl", "transcripts/a2.json"} {
				p := filepath.Join(root, f)
				b, _ := os.ReadFile(p)
				writeInput(t, root, f, withBOM(b))
				_ = p
			}
			return root
		}, func(t *testing.T, s *Store, r model.ImportResult) {
			if r.Counts["audits"] != 4 || r.Counts["runs"] != 1 {
				t.Errorf("result %v, want 4 audits and 1 run", r)
			}
			body, err := s.Transcript(context.Background(), r.Name, "a2")
			if err != nil || bytes.HasPrefix(body, bom) {
				t.Errorf("transcript of a2: %v, starts %q; want it stored without the BOM", err, body[:min(len(body), 8)])
			}
		}},
		{"BOM before a Petri transcript", func(t *testing.T, d string) string {
			return writeInput(t, d, "p.json", withBOM(in.petri))
		}, func(t *testing.T, s *Store, r model.ImportResult) {
			if r.Kind != model.KindPetri || r.Counts["audits"] != 1 {
				t.Errorf("result %v, want 1 Petri audit", r)
			}
		}},
		{"BOM before an Inspect json log", func(t *testing.T, d string) string {
			return writeInput(t, d, "log.json", withBOM(in.inspectJSON))
		}, func(t *testing.T, s *Store, r model.ImportResult) {
			if r.Kind != model.KindInspect || r.Counts["audits"] != 1 {
				t.Errorf("result %v, want 1 Inspect audit", r)
			}
		}},
		{"AnnotatedPairs duplicate ids", func(t *testing.T, d string) string {
			doc := `{"metadata": {"version": "2.0"}, "annotators": {"h": {}}, "comparisons": [
 {"id": "c1", "response_a": {"text": "first"}, "response_b": {"text": "b"}, "annotations": {"h": {"pref": "a"}}},
 {"id": "c1", "response_a": {"text": "second"}, "response_b": {"text": "b"}, "annotations": {"h": {"pref": "b"}}},
 {"id": "c2", "response_a": {"text": "a"}, "response_b": {"text": "b"}, "annotations": {}}]}`
			return writeInput(t, d, "dups.json", []byte(doc))
		}, func(t *testing.T, s *Store, r model.ImportResult) {
			if r.Counts["comparisons"] != 2 || !strings.Contains(r.String(), "dropped 1 comparisons with duplicate ids (kept the first)") {
				t.Errorf("result %v, want 2 comparisons and a note on the dropped one", r)
			}
			var text string
			if err := s.db.QueryRow(`SELECT text_a FROM ap_comparisons WHERE dataset = ? AND id = 'c1'`, r.Name).Scan(&text); err != nil || text != "first" {
				t.Errorf("c1 text_a = %q (%v), want the first", text, err)
			}
		}},
		{"Petri 9,990-deep metadata", func(t *testing.T, d string) string {
			return writeInput(t, d, "p.json", replaceOnce(t, in.petri, `"metadata": {`, `"metadata": {"x": `+deep(9990)+`, `))
		}, func(t *testing.T, s *Store, r model.ImportResult) {
			if r.Counts["audits"] != 1 {
				t.Errorf("result %v, want 1 audit", r)
			}
		}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			s := mustOpenStore(t)
			res, err := s.Import(context.Background(), tt.input(t, t.TempDir()), ImportOptions{})
			if err != nil {
				t.Fatal(err)
			}
			tt.check(t, s, res[0])
		})
	}
}

// TestImportHugeString imports an AnnotatedPairs file whose one prompt is
// 100 MB. It must land (or fail clearly) without holding many copies of
// the string: the Go heap (sampled; DuckDB's own memory aside) may not grow
// by more than 5× the string. Measured: 3.3×, which is the decoder's buffer
// grown by doubling to hold the value (1.3×), the comparison's JSON handed to
// a worker (1×) and the decoded string (1×); the worker reads the JSON in
// place.
func TestImportHugeString(t *testing.T) {
	if testing.Short() {
		t.Skip("writes and imports a 100 MB file; skipped with -short")
	}
	const size = 100 << 20
	path := filepath.Join(t.TempDir(), "huge.json")
	f, err := os.Create(path)
	if err != nil {
		t.Fatal(err)
	}
	f.WriteString(`{"metadata": {"version": "2.0"}, "annotators": {"h": {}}, "comparisons": [{"id": "big", "prompt": "`)
	chunk := bytes.Repeat([]byte("0123456789abcdef"), 1<<16) // 1 MiB
	for i := 0; i < size/len(chunk); i++ {
		f.Write(chunk)
	}
	f.WriteString(`", "response_a": {"text": "a"}, "response_b": {"text": "b"}, "annotations": {"h": {"pref": "a"}}}]}`)
	if err := f.Close(); err != nil {
		t.Fatal(err)
	}
	chunk = nil

	s := mustOpenStore(t)
	runtime.GC()
	var base runtime.MemStats
	runtime.ReadMemStats(&base)
	peak := base.HeapAlloc
	done := make(chan struct{})
	sampled := make(chan struct{})
	go func() {
		defer close(sampled)
		tick := time.NewTicker(5 * time.Millisecond)
		defer tick.Stop()
		for {
			var m runtime.MemStats
			runtime.ReadMemStats(&m)
			peak = max(peak, m.HeapAlloc)
			select {
			case <-done:
				return
			case <-tick.C:
			}
		}
	}()
	start := time.Now()
	res, err := s.Import(context.Background(), path, ImportOptions{})
	close(done)
	<-sampled
	var end runtime.MemStats
	runtime.ReadMemStats(&end)
	grew := int64(peak) - int64(base.HeapAlloc)
	t.Logf("import took %v; heap peak +%d MB (%.1f× the string), %d MB allocated in all",
		time.Since(start).Round(time.Millisecond), grew>>20, float64(grew)/size, (end.TotalAlloc-base.TotalAlloc)>>20)
	if err != nil {
		if !model.IsInputError(err) || !strings.Contains(err.Error(), path) {
			t.Fatalf("a 100 MB prompt failed unclearly: %v", err)
		}
	} else if res[0].Counts["comparisons"] != 1 {
		t.Fatalf("result %v, want 1 comparison", res[0])
	} else if n := count(t, s, `SELECT length(prompt) FROM ap_comparisons WHERE id = 'big'`); n != size {
		t.Errorf("stored prompt has %d characters, want %d", n, size)
	}
	if grew > 5*size {
		t.Errorf("heap grew by %d MB importing a %d MB string, want at most 5×", grew>>20, size>>20)
	}
}
