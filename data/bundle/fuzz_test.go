package bundle

import (
	"archive/zip"
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"runtime"
	"testing"

	"github.com/auditscope/auditscope/data/petri"
)

// fuzzFiles are the files FuzzRead replaces, by the index it is given; one
// more index stands for the whole bundle as a zip.
var fuzzFiles = []string{FileExperiment, FileRuns, FileAuditors, FileAudits, FileJudgments, FileCrux, FileMetrics, "transcripts/a2.json"}

// smallBundle reads data/testdata/bundle-small: file name -> content.
func smallBundle(tb testing.TB) map[string][]byte {
	tb.Helper()
	_, file, _, _ := runtime.Caller(0)
	root := filepath.Join(filepath.Dir(file), "..", "testdata", "bundle-small")
	out := map[string][]byte{}
	err := filepath.WalkDir(root, func(p string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return err
		}
		rel, _ := filepath.Rel(root, p)
		b, err := os.ReadFile(p)
		out[filepath.ToSlash(rel)] = b
		return err
	})
	if err != nil {
		tb.Fatal(err)
	}
	return out
}

func zipBundle(tb testing.TB, files map[string][]byte) []byte {
	tb.Helper()
	var buf bytes.Buffer
	zw := zip.NewWriter(&buf)
	for name, b := range files {
		w, err := zw.Create("small/" + name)
		if err != nil {
			tb.Fatal(err)
		}
		w.Write(b)
	}
	if err := zw.Close(); err != nil {
		tb.Fatal(err)
	}
	return buf.Bytes()
}

// FuzzRead writes the small example bundle with one file replaced by
// arbitrary bytes (or the whole bundle as arbitrary zip bytes) and reads
// every record as an import does, decoding inline and referenced
// transcripts. Nothing may panic; a failure is a *Error naming the file.
func FuzzRead(f *testing.F) {
	files := smallBundle(f)
	for i, name := range fuzzFiles {
		f.Add(uint8(i), files[name])
	}
	f.Add(uint8(len(fuzzFiles)), zipBundle(f, files))
	f.Add(uint8(3), []byte("\xef\xbb\xbf{\"id\": \"x\"}\n\n{\"transcript\": []}\n"))
	f.Add(uint8(3), []byte(`{"id": "a", "transcript_path": "../a2.json"}`))
	f.Fuzz(func(t *testing.T, which uint8, b []byte) {
		dir := t.TempDir()
		which %= uint8(len(fuzzFiles) + 1)
		path := filepath.Join(dir, "small")
		if int(which) == len(fuzzFiles) {
			path = filepath.Join(dir, "small.zip")
			if err := os.WriteFile(path, b, 0o644); err != nil {
				t.Fatal(err)
			}
		} else {
			for name, body := range files {
				if name == fuzzFiles[which] {
					body = b
				}
				p := filepath.Join(path, filepath.FromSlash(name))
				if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
					t.Fatal(err)
				}
				if err := os.WriteFile(p, body, 0o644); err != nil {
					t.Fatal(err)
				}
			}
		}
		src, closer, err := Open(context.Background(), path, 0)
		if err != nil {
			var be *Error
			if !errors.As(err, &be) {
				t.Fatalf("Open: error %T is not a *Error: %v", err, err)
			}
			return
		}
		defer closer.Close()
		if err := readAll(src); err != nil {
			var be *Error
			if !errors.As(err, &be) || be.File == "" {
				t.Fatalf("error %T does not name a file: %v", err, err)
			}
		}
	})
}

// readAll visits every record of src the way data.ImportBundle does.
func readAll(src Source) error {
	if _, err := src.Experiment(); err != nil {
		return err
	}
	if err := src.Runs(func(Pos, *Run) error { return nil }); err != nil {
		return err
	}
	if err := src.Auditors(func(Pos, *Auditor) error { return nil }); err != nil {
		return err
	}
	err := src.Audits(func(p Pos, a *Audit, raw json.RawMessage) error {
		body := []byte(raw)
		if body == nil && a.TranscriptPath != "" {
			b, err := src.ReadFile(a.TranscriptPath)
			if err != nil {
				return &Error{Pos: p, Field: "transcript_path", Msg: err.Error()}
			}
			body = b
		}
		if body == nil {
			return nil
		}
		var tr petri.Transcript
		if err := json.Unmarshal(body, &tr); err != nil {
			return &Error{Pos: p, Field: "transcript", Msg: err.Error()}
		}
		_, _ = tr.SearchText(), tr.MessageCount()
		return nil
	})
	if err != nil {
		return err
	}
	if err := src.Judgments(func(Pos, *Judgment) error { return nil }); err != nil {
		return err
	}
	if err := src.Crux(func(Pos, *Crux) error { return nil }); err != nil {
		return err
	}
	return src.Metrics(func(Pos, *Metric) error { return nil })
}
