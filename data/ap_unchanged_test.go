package data

import (
	"context"
	"os"
	"path/filepath"
	"testing"
)

// TestAPUnchanged: an AnnotatedPairs file is hashed beside its import, so
// an unchanged file is found either at the start (its name was imported
// before) or at the end (the same content under another name, rolled
// back). Either way the result names the earlier import and the database
// is as it was.
func TestAPUnchanged(t *testing.T) {
	ctx := context.Background()
	s := mustOpenStore(t)
	dir := t.TempDir()
	doc := []byte(`{"annotators":{"h":{}},"comparisons":[{"id":"1","text_a":"A","text_b":"B","annotations":{"h":{"pref":"text_a"}},"metadata":{"k":"v"}}]}`)
	a, b := filepath.Join(dir, "first.json"), filepath.Join(dir, "second.json")
	for _, p := range []string{a, b} {
		if err := os.WriteFile(p, doc, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	if r, err := s.ImportAnnotatedPairs(ctx, a, ImportOptions{}); err != nil || r.Unchanged || r.Name != "first" {
		t.Fatalf("first import = %+v, %v", r, err)
	}
	before := dbState(t, s, false)
	for _, c := range []struct {
		path string
		opts ImportOptions
	}{
		{a, ImportOptions{}},              // the same name: found before reading
		{b, ImportOptions{}},              // another name (the file's): found at the end
		{b, ImportOptions{Name: "first"}}, // named as before
		{a, ImportOptions{Replace: true}}, // replacing with the same content changes nothing
	} {
		r, err := s.ImportAnnotatedPairs(ctx, c.path, c.opts)
		if err != nil {
			t.Fatalf("%s %+v: %v", c.path, c.opts, err)
		}
		if !r.Unchanged || r.Name != "first" || r.Source != a || r.Hash == "" {
			t.Errorf("%s %+v = %+v, want unchanged, as first.json", c.path, c.opts, r)
		}
		if after := dbState(t, s, false); !sameState(before, after) {
			t.Errorf("%s %+v changed the database: %v", c.path, c.opts, diffState(before, after))
		}
	}
	// Another name asked for: a second dataset.
	if r, err := s.ImportAnnotatedPairs(ctx, b, ImportOptions{Name: "second"}); err != nil || r.Unchanged || r.Name != "second" {
		t.Fatalf("import as second = %+v, %v", r, err)
	}
	// A changed file under a name imported before is refused, or replaces.
	if err := os.WriteFile(a, append(doc[:len(doc)-2:len(doc)-2], `,{"id":"2","text_a":"A","text_b":"B"}]}`...), 0o644); err != nil {
		t.Fatal(err)
	}
	if _, err := s.ImportAnnotatedPairs(ctx, a, ImportOptions{}); err == nil {
		t.Error("a changed file under an imported name was taken without --replace")
	}
	if r, err := s.ImportAnnotatedPairs(ctx, a, ImportOptions{Replace: true}); err != nil || r.Unchanged || r.Counts["comparisons"] != 2 {
		t.Errorf("replace = %+v, %v; want 2 comparisons", r, err)
	}
}
