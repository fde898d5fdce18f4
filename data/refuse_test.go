package data

import (
	"archive/zip"
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestRefuseAmbiguousAndOutOfRange: inputs whose meaning is ambiguous or
// whose values are out of range are refused with their place, and the
// store is left as it was.
func TestRefuseAmbiguousAndOutOfRange(t *testing.T) {
	ctx := context.Background()
	s := mustOpenStore(t)
	before := dbState(t, s, true)
	for _, c := range []struct {
		name  string
		input func(t *testing.T) string
		want  []string
	}{
		{"bundle folder without experiment.json", func(t *testing.T) string {
			dir := editedSmallBundle(t, "", nil)
			os.Remove(filepath.Join(dir, "experiment.json"))
			return dir
		}, []string{"no experiment.json", "audits.jsonl"}},
		{"zip with a member twice", func(t *testing.T) string {
			return smallBundleZip(t, []string{""}, map[string]string{"runs.jsonl": `{"id": "other"}`})
		}, []string{"two members named \"runs.jsonl\""}},
		{"zip with two bundles", func(t *testing.T) string {
			return smallBundleZip(t, []string{"one/", "two/"}, nil)
		}, []string{"2 bundles", "one/experiment.json", "two/experiment.json"}},
		{"zip with files outside the bundle's folder", func(t *testing.T) string {
			return smallBundleZip(t, []string{"one/"}, map[string]string{"other/audits.jsonl": "{}"})
		}, []string{"other/audits.jsonl", "outside the bundle"}},
		{"negative epoch", func(t *testing.T) string {
			return editedSmallBundle(t, "auditors.jsonl", func(s string) string { return strings.Replace(s, `"epoch": 1`, `"epoch": -1`, 1) })
		}, []string{"auditors.jsonl:2", "epoch", "found -1"}},
		{"negative metric step", func(t *testing.T) string {
			return editedSmallBundle(t, "metrics.jsonl", func(s string) string {
				return s + `{"run": "ref-cal50", "step": -5, "name": "loss", "value": 1}` + "\n"
			})
		}, []string{"metrics.jsonl:4", "step", "found -5"}},
		{"duplicate metric row", func(t *testing.T) string {
			return editedSmallBundle(t, "metrics.jsonl", func(s string) string {
				first := strings.SplitN(s, "\n", 2)[0]
				return s + first + "\n"
			})
		}, []string{"metrics.jsonl:4", "the first is on line 1"}},
		{"step past 32 bits", func(t *testing.T) string {
			return editedSmallBundle(t, "auditors.jsonl", func(s string) string { return strings.Replace(s, `"step": 120`, `"step": 5000000000`, 1) })
		}, []string{"auditors.jsonl:2", "step"}},
		{"a type error names the JSON field", func(t *testing.T) string {
			return editedSmallBundle(t, "audits.jsonl", func(s string) string { return strings.Replace(s, `"id": "a1"`, `"id": 5`, 1) })
		}, []string{"audits.jsonl:1", "field id: want a string, found a JSON number"}},
	} {
		t.Run(c.name, func(t *testing.T) {
			_, err := s.Import(ctx, c.input(t), ImportOptions{})
			if err == nil {
				t.Fatal("accepted")
			}
			for _, w := range c.want {
				if !strings.Contains(err.Error(), w) {
					t.Errorf("error %q does not say %q", err, w)
				}
			}
			if strings.Contains(err.Error(), "Audit.") || strings.Contains(err.Error(), "bundle.") {
				t.Errorf("error %q names a Go type", err)
			}
			if after := dbState(t, s, true); !sameState(before, after) {
				t.Errorf("the store changed: %s", diffState(before, after))
			}
		})
	}
}

// editedSmallBundle copies the small bundle, letting edit change one file
// (name; none when it is empty). It is TestRefuseAmbiguousAndOutOfRange's,
// apart so the test is its cases.
func editedSmallBundle(t *testing.T, name string, edit func(string) string) string {
	t.Helper()
	dir := filepath.Join(t.TempDir(), "b")
	if err := os.CopyFS(dir, os.DirFS("testdata/bundle-small")); err != nil {
		t.Fatal(err)
	}
	if name != "" {
		p := filepath.Join(dir, name)
		b, err := os.ReadFile(p)
		if err != nil && !os.IsNotExist(err) {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(edit(string(b))), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	return dir
}

// smallBundleZip zips the small bundle's files under each prefix, plus extra
// members.
func smallBundleZip(t *testing.T, prefixes []string, extra map[string]string) string {
	t.Helper()
	p := filepath.Join(t.TempDir(), "b.zip")
	f, err := os.Create(p)
	if err != nil {
		t.Fatal(err)
	}
	zw := zip.NewWriter(f)
	for _, prefix := range prefixes {
		err := filepath.WalkDir("testdata/bundle-small", func(path string, d os.DirEntry, err error) error {
			if err != nil || d.IsDir() {
				return err
			}
			rel, _ := filepath.Rel("testdata/bundle-small", path)
			w, err := zw.Create(prefix + filepath.ToSlash(rel))
			if err != nil {
				return err
			}
			b, err := os.ReadFile(path)
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
	for name, body := range extra {
		w, err := zw.Create(name)
		if err != nil {
			t.Fatal(err)
		}
		w.Write([]byte(body))
	}
	if err := zw.Close(); err != nil {
		t.Fatal(err)
	}
	f.Close()
	return p
}

// TestAPMetadataLast: a 2.0 file whose metadata comes after its
// comparisons (JSON objects have no order) reads its "a"/"b" votes as
// text_a/text_b, exactly as when the metadata comes first.
func TestAPMetadataLast(t *testing.T) {
	ctx := context.Background()
	s := mustOpenStore(t)
	comps := `"comparisons": [{"id": "c1", "response_a": {"text": "x", "model": "m"}, "response_b": {"text": "yy", "model": "n"}, "annotations": {"h": {"pref": "a"}}},
		{"id": "c2", "response_a": {"text": "x", "model": "m"}, "response_b": {"text": "yy", "model": "n"}, "annotations": {"h": {"pref": "b"}}}]`
	meta := `"metadata": {"version": "2.0", "default_annotator": "h"}, "annotators": {"h": {"type": "human"}}`
	for name, doc := range map[string]string{"first": "{" + meta + ", " + comps + "}", "last": "{" + comps + ", " + meta + "}"} {
		if _, err := s.ImportAnnotatedPairsBytes(ctx, []byte(doc), name+".json", ImportOptions{Name: name}); err != nil {
			t.Fatal(err)
		}
	}
	if n := count(t, s, `SELECT count(*) FROM ap_comparisons WHERE dataset = 'last' AND prefs IN ('a', 'b')`); n != 2 {
		t.Errorf("metadata last: %d of 2 votes read as a or b", n)
	}
	if a, b := count(t, s, `SELECT count(*) FROM ap_comparisons f JOIN ap_comparisons l ON f.id = l.id AND f.prefs = l.prefs AND f.dataset = 'first' AND l.dataset = 'last'`), int64(2); a != b {
		t.Errorf("the votes differ with the metadata first and last")
	}
}
