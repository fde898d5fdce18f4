package lake_test

import (
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/auditscope/auditscope/data"
	"github.com/auditscope/auditscope/data/lake"
)

// TestLakeOlderGeneration: a generation written before a table was added
// (verdicts came with migration 010, verdict_outcomes with 011) has no
// file of it and no checksum for one; it is served, that table empty, and
// everything else as written. A table every lake has (Since 0) whose file
// the manifest does not name is still refused.
func TestLakeOlderGeneration(t *testing.T) {
	ctx := context.Background()
	s := mustOpenStore(t)
	src := filepath.Join(t.TempDir(), "bundle")
	if err := os.CopyFS(src, os.DirFS("../testdata/bundle-small")); err != nil {
		t.Fatal(err)
	}
	v := `{"audit": "a2", "judge": "opus", "scores": {"concerning": 4}, "outcome": {"quality": 40}}` + "\n"
	if err := os.WriteFile(filepath.Join(src, "verdicts.jsonl"), []byte(v), 0o644); err != nil {
		t.Fatal(err)
	}
	if _, err := s.Import(ctx, src, data.ImportOptions{Name: "small"}); err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	if _, err := lake.Write(ctx, s, dir, lake.WriteOptions{}); err != nil {
		t.Fatal(err)
	}
	// The manifest as an older build wrote it: no file of the new tables.
	path := filepath.Join(dir, "manifest.json")
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	var m map[string]any
	if err := json.Unmarshal(b, &m); err != nil {
		t.Fatal(err)
	}
	files := m["files"].(map[string]any)
	older := func(drop func(table string) bool) {
		t.Helper()
		for rel := range files {
			if table, _, _ := strings.Cut(rel, "/"); drop(table) {
				delete(files, rel)
			}
		}
		out, _ := json.Marshal(m)
		if err := os.WriteFile(path, out, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	since := map[string]int{}
	for _, tb := range lake.Tables {
		since[tb.Name] = tb.Since
	}
	older(func(table string) bool { return since[table] > 0 })
	for _, tb := range lake.Tables {
		if tb.Since > 0 {
			os.RemoveAll(filepath.Join(dir, tb.Name))
		}
	}
	l, err := lake.Open(ctx, dir, "")
	if err != nil {
		t.Fatalf("a lake of an older build: %v", err)
	}
	defer l.Close()
	want, got := contentState(t, s), contentState(t, l)
	for _, tb := range lake.Tables {
		if tb.Since > 0 {
			if js, err := l.Judges(ctx, "small"); err != nil || len(js) != 0 {
				t.Errorf("judges of the older generation: %+v (%v), want none", js, err)
			}
			continue
		}
		if want[tb.Name] != got[tb.Name] {
			t.Errorf("table %s differs between the store and the older lake", tb.Name)
		}
	}
	// A table of the first lakes named by no checksum: refused.
	older(func(table string) bool { return table == "runs" })
	if _, err := lake.Open(ctx, dir, ""); err == nil || !strings.Contains(err.Error(), "no checksum") {
		t.Errorf("a lake without its runs' checksum: %v, want refused", err)
	}
}
