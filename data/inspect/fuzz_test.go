package inspect

import (
	"archive/zip"
	"errors"
	"os"
	"path/filepath"
	"testing"

	"github.com/klauspost/compress/zstd"
)

// maxFuzzSeed keeps the larger fixtures out of the seed corpus: mutating a
// 400 KB zip mostly breaks its checksums.
const maxFuzzSeed = 64 << 10

// FuzzOpen writes arbitrary bytes as a .json log and as a .eval log, opens
// both and reads every sample, as an import does. Nothing may panic, and
// every failure is an *Error naming the file.
func FuzzOpen(f *testing.F) {
	files, err := filepath.Glob(filepath.Join(filepath.Dir(fixture(f, "log_formats.json")), "*"))
	if err != nil {
		f.Fatal(err)
	}
	for _, p := range files {
		b, err := os.ReadFile(p)
		if err != nil {
			f.Fatal(err)
		}
		if len(b) <= maxFuzzSeed {
			f.Add(b)
		}
	}
	// A chunked, zstd-compressed .eval (the layout no fixture has).
	chunked := writeZip(f, map[string][]byte{
		"header.json":                          []byte(testHeader),
		"samples/7_epoch_2/sample.json":        []byte(`{"id": 7, "epoch": 2, "input": "attachment://1", "message_refs": [[1, 2], [0, 1]], "scores": {"s": {"value": 3}}}`),
		"samples/7_epoch_2/metadata.json":      []byte(`{"behavior": "flattery"}`),
		"samples/7_epoch_2/messages/0.json":    []byte(`[{"id": "m0", "role": "user", "content": "attachment://0"}, {"id": "m1", "role": "assistant", "content": "hi"}]`),
		"samples/7_epoch_2/attachments/0.json": []byte(`["hello", "the input"]`),
		"samples/7_epoch_2/events/0.json":      []byte(`[{"event": "model", "input_refs": [[0, 1]], "output": {"choices": [{"message": {"role": "assistant", "content": "x"}}]}}]`),
	}, zstd.ZipMethodWinZip)
	stored := writeZip(f, map[string][]byte{
		"header.json":            []byte(testHeader),
		"samples/a_epoch_1.json": []byte(`{"id": "a", "epoch": 1, "messages": [], "events": [{"event": "model", "input_refs": [[0, 1]]}], "events_data": {"messages": [{"role": "user", "content": "attachment://k"}]}, "attachments": {"k": "v"}}`),
	}, zip.Store)
	for _, p := range []string{chunked, stored} {
		b, err := os.ReadFile(p)
		if err != nil {
			f.Fatal(err)
		}
		f.Add(b)
	}
	for _, s := range []string{`{}`, `{"eval": {}, "samples": null}`, `{"samples": [{"id": 1}], "eval": {}}`, "\xef\xbb\xbf{\"eval\": {}}", ``} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, b []byte) {
		dir := t.TempDir()
		for _, name := range []string{"log.json", "log.eval"} {
			path := filepath.Join(dir, name)
			if err := os.WriteFile(path, b, 0o644); err != nil {
				t.Fatal(err)
			}
			checkErr := func(what string, err error) {
				t.Helper()
				var le *Error
				if !errors.As(err, &le) {
					t.Fatalf("%s %s: error %T is not an *Error: %v", what, name, err, err)
				}
				if le.File != path {
					t.Fatalf("%s %s: error names %q, want the file: %v", what, name, le.File, err)
				}
			}
			l, err := Open(path, 0)
			if err != nil {
				checkErr("Open", err)
				continue
			}
			if err := l.Summaries(func(*Sample) error { return nil }); err != nil {
				checkErr("Summaries", err)
			}
			if err := l.Samples(func(s *Sample) error { _ = s.Key(); return nil }); err != nil {
				checkErr("Samples", err)
			}
			l.Close()
		}
	})
}
