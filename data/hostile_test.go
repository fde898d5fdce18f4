package data

import (
	"archive/zip"
	"bufio"
	"compress/flate"
	"context"
	"fmt"
	"hash/crc32"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/auditscope/auditscope/data/internal/peakmem"
)

// The child process of TestHostileMemory: it imports one input into a new
// database file and prints the outcome.
const (
	hostileDBEnv    = "AUDITSCOPE_HOSTILE_DB"
	hostileInputEnv = "AUDITSCOPE_HOSTILE_INPUT"
)

// hostileMaxRSS is the documented bound on an import's peak resident memory
// at the default limit on one value (docs/SECURITY.md).
const hostileMaxRSS = 1 << 30

// TestHostileMemory imports small files that hold one huge value (a text, a
// zip member, a JSONL line, a CSV record, an Inspect sample) in a child
// process each: every one is refused with the file, the place, the limit
// and the flag that raises it, at a peak resident memory under 1 GiB; and
// a valid file with one 64 MiB response imports at the default limit. The
// inputs are written at test time (the zips compress to a few MB).
func TestHostileMemory(t *testing.T) {
	if db := os.Getenv(hostileDBEnv); db != "" {
		hostileChild(db, os.Getenv(hostileInputEnv))
		return
	}
	if testing.Short() {
		t.Skip("writes about 1.6 GB of inputs; skipped with -short")
	}
	dir := t.TempDir()
	const mib = 1 << 20
	cases := []struct {
		name, path string
		write      func(path string)
		want       []string // in the child's output; empty: the import lands
	}{
		{"AnnotatedPairs with a 1 GiB text", "huge-text.json", func(p string) {
			writeWithRun(t, p, `{"metadata": {"version": "2.0"}, "comparisons": [{"id": "c0", "prompt": "p", "response_a": {"text": "`,
				'a', 1024*mib, `", "model": "m"}, "response_b": {"text": "b"}, "annotations": {}}]}`)
		}, []string{"huge-text.json:1: comparisons[0]", "96MiB", "--max-value"}},
		{"AnnotatedPairs with a 64 MiB response", "long-response.json", func(p string) {
			writeWithRun(t, p, `{"metadata": {"version": "2.0"}, "annotators": {"h": {"type": "human"}}, "comparisons": [{"id": "c0", "prompt": "p", "response_a": {"text": "`,
				'a', 64*mib, `", "model": "m"}, "response_b": {"text": "b", "model": "n"}, "annotations": {"h": {"pref": "a"}}}]}`)
		}, nil},
		{"preference CSV with a 300 MiB record", "huge-record.csv", func(p string) {
			writeWithRun(t, p, "text_a,text_b,preferred_text\nx,y,text_a\n\"", 'a', 300*mib, "\",b,text_a\n")
		}, []string{"huge-record.csv:3", "a record", "--max-value"}},
		{"bundle folder with a 600 MiB JSONL line", "huge-line", func(p string) {
			if err := os.CopyFS(p, os.DirFS("testdata/bundle-small")); err != nil {
				t.Fatal(err)
			}
			writeWithRun(t, filepath.Join(p, "auditors.jsonl"), `{"id": "x", "name": "`, 'a', 600*mib, `", "kind": "baseline"}`+"\n")
		}, []string{"auditors.jsonl:1", "the line", "--max-value"}},
		{"bundle zip with a 3 GiB transcript", "huge-transcript.zip", func(p string) {
			writeHugeZip(t, p, "testdata/bundle-small", "transcripts/a2.json", 3<<30, 200*mib)
		}, []string{"transcripts/a2.json", "96MiB", "--max-value"}},
		{"Inspect .eval with a 1.9 GiB member", "huge-member.eval", func(p string) {
			writeHugeZip(t, p, "", "header.json", 1900*mib, 0)
		}, []string{"huge-member.eval", "header.json", "--max-value"}},
		{"Inspect .json log with a 300 MiB sample", "huge-sample.json", func(p string) {
			writeWithRun(t, p, `{"version": 2, "status": "success", "eval": {"task": "t", "model": "m"}, "stats": {}, "samples": [{"id": 1, "epoch": 1, "input": "`,
				'a', 300*mib, `"}]}`)
		}, []string{"huge-sample.json", "samples[0]", "--max-value"}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			in := filepath.Join(dir, c.path)
			c.write(in)
			defer os.RemoveAll(in)
			cmd := exec.Command(os.Args[0], "-test.run=^TestHostileMemory$")
			cmd.Env = append(os.Environ(), hostileDBEnv+"="+filepath.Join(t.TempDir(), "h.duckdb"), hostileInputEnv+"="+in)
			out, err := cmd.CombinedOutput()
			if err != nil {
				t.Fatalf("child: %v\n%s", err, out)
			}
			rss, got, err := peakmem.Read(out)
			if err != nil {
				t.Fatalf("%v:\n%s", err, out)
			}
			t.Logf("peak RSS %d MiB: %s", rss>>20, strings.TrimSpace(got))
			if rss > hostileMaxRSS {
				t.Errorf("peak RSS %d MiB, over the %d MiB bound", rss>>20, hostileMaxRSS>>20)
			}
			if c.want == nil {
				if !strings.HasPrefix(got, "imported") {
					t.Errorf("a valid file was refused: %s", got)
				}
				return
			}
			if !strings.HasPrefix(got, "refused") {
				t.Fatalf("not refused: %s", got)
			}
			for _, w := range c.want {
				if !strings.Contains(got, w) {
					t.Errorf("the error does not name %q: %s", w, got)
				}
			}
		})
	}
}

func hostileChild(db, input string) {
	defer peakmem.Report(os.Stdout)
	ctx := context.Background()
	// DuckDB pinned to two threads (CI's machine has two cores): a machine
	// with more would spend more memory on more threads, and measure
	// another figure against the same bound.
	s, err := Open(ctx, Options{Path: db, Threads: 2})
	if err != nil {
		fmt.Println("open:", err)
		os.Exit(1)
	}
	defer s.Close()
	if _, err := s.Import(ctx, input, ImportOptions{}); err != nil {
		fmt.Println("refused:", err)
		return
	}
	fmt.Println("imported")
}

// writeWithRun writes head, n copies of b, and tail.
func writeWithRun(t *testing.T, path, head string, b byte, n int, tail string) {
	t.Helper()
	f, err := os.Create(path)
	if err != nil {
		t.Fatal(err)
	}
	w := bufio.NewWriterSize(f, 1<<20)
	w.WriteString(head)
	chunk := []byte(strings.Repeat(string(b), 1<<20))
	for n > 0 {
		k := min(n, len(chunk))
		w.Write(chunk[:k])
		n -= k
	}
	w.WriteString(tail)
	if err := w.Flush(); err != nil {
		t.Fatal(err)
	}
	if err := f.Close(); err != nil {
		t.Fatal(err)
	}
}

// writeHugeZip writes a zip of the files of folder src (if any) plus member
// name, which claims claim bytes uncompressed and holds real bytes (a run of
// 'a', deflated: a few hundred KB per 100 MiB).
func writeHugeZip(t *testing.T, path, src, name string, claim uint64, real int) {
	t.Helper()
	f, err := os.Create(path)
	if err != nil {
		t.Fatal(err)
	}
	zw := zip.NewWriter(f)
	if src != "" {
		err := filepath.WalkDir(src, func(p string, d os.DirEntry, err error) error {
			if err != nil || d.IsDir() {
				return err
			}
			rel, _ := filepath.Rel(src, p)
			if filepath.ToSlash(rel) == name {
				return nil
			}
			w, err := zw.Create(filepath.ToSlash(rel))
			if err != nil {
				return err
			}
			b, err := os.ReadFile(p)
			if err != nil {
				return err
			}
			_, err = w.Write(b)
			return err
		})
		if err != nil {
			t.Fatal(err)
		}
	}
	// The member's bytes deflated by hand, so its header can claim any size.
	var comp countWriter
	pr, pw := io.Pipe()
	go func() {
		fw, _ := flate.NewWriter(pw, flate.BestSpeed)
		chunk := []byte(strings.Repeat("a", 1<<20))
		for n := real; n > 0; n -= len(chunk) {
			fw.Write(chunk[:min(n, len(chunk))])
		}
		fw.Close()
		pw.Close()
	}()
	body, err := io.ReadAll(io.TeeReader(pr, &comp))
	if err != nil {
		t.Fatal(err)
	}
	w, err := zw.CreateRaw(&zip.FileHeader{Name: name, Method: zip.Deflate, CRC32: crc32.ChecksumIEEE(nil),
		CompressedSize64: uint64(len(body)), UncompressedSize64: claim})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := w.Write(body); err != nil {
		t.Fatal(err)
	}
	if err := zw.Close(); err != nil {
		t.Fatal(err)
	}
	if err := f.Close(); err != nil {
		t.Fatal(err)
	}
}

type countWriter struct{ n int64 }

func (c *countWriter) Write(p []byte) (int, error) { c.n += int64(len(p)); return len(p), nil }
