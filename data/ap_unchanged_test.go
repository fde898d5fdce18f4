package data

import (
	"context"
	"os"
	"path/filepath"
	"testing"
)

// TestAPUnchanged: an AnnotatedPairs file is hashed beside its import;
// the same content imported before stops the import as soon as the hash
// is known (or at the claim of a name imported before, or at the end),
// and the import is rolled back. Either way the result names the earlier
// import and the database is as it was, as when the hash came first.
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
		{a, ImportOptions{}},              // the same name (the file's, there being no metadata)
		{b, ImportOptions{}},              // another name (the file's)
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

	// A file whose metadata names a dataset that now holds other content,
	// imported before under another --name, is unchanged (as then), not a
	// clash with the dataset its metadata names.
	named := []byte(`{"metadata":{"version":"2.0","dataset_name":"y"},"comparisons":[{"id":"1","response_a":{"text":"A"},"response_b":{"text":"B"},"annotations":{"h":{"pref":"a"}}}]}`)
	other := []byte(`{"metadata":{"version":"2.0","dataset_name":"y"},"comparisons":[{"id":"2","response_a":{"text":"C"},"response_b":{"text":"D"},"annotations":{"h":{"pref":"b"}}}]}`)
	f, o := filepath.Join(dir, "f.json"), filepath.Join(dir, "o.json")
	if err := os.WriteFile(f, named, 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(o, other, 0o644); err != nil {
		t.Fatal(err)
	}
	if _, err := s.ImportAnnotatedPairs(ctx, f, ImportOptions{Name: "x"}); err != nil {
		t.Fatal(err)
	}
	if r, err := s.ImportAnnotatedPairs(ctx, o, ImportOptions{}); err != nil || r.Name != "y" {
		t.Fatalf("other content as y = %+v, %v", r, err)
	}
	before = dbState(t, s, false)
	for _, replace := range []bool{false, true} {
		r, err := s.ImportAnnotatedPairs(ctx, f, ImportOptions{Replace: replace})
		if err != nil || !r.Unchanged || r.Name != "x" {
			t.Errorf("re-import (replace %v) = %+v, %v; want unchanged, as x", replace, r, err)
		}
	}
	if after := dbState(t, s, false); !sameState(before, after) {
		t.Errorf("re-import changed the database: %v", diffState(before, after))
	}
}
