package data

import (
	"archive/zip"
	"context"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"testing"
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
