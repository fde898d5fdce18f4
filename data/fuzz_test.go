package data

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"sync"
	"testing"

	"github.com/auditscope/auditscope/data/model"
)

// fuzzStore gives each fuzz worker process one in-memory store, opened on
// first use (the coordinating process never opens one), and closes it when
// the fuzz target ends.
func fuzzStore(f *testing.F) func() *Store {
	var opened *Store
	get := sync.OnceValue(func() *Store {
		s, err := Open(context.Background(), Options{})
		if err != nil {
			panic(err)
		}
		opened = s
		return s
	})
	f.Cleanup(func() {
		if opened != nil {
			opened.Close()
		}
	})
	return get
}

// checkFailedImport checks what every failed import owes the user: an
// *model.InputError (a problem with the file, said where) and the database as it
// was.
func checkFailedImport(t *testing.T, s *Store, err error, before map[string]string) {
	t.Helper()
	if !model.IsInputError(err) {
		t.Fatalf("import failed with %T, not an *model.InputError: %v", err, err)
	}
	if after := dbState(t, s, false); !sameState(before, after) {
		t.Fatalf("failed import changed the database: %v", diffState(before, after))
	}
}

// FuzzAnnotatedPairs imports arbitrary bytes as an AnnotatedPairs .json
// file (the streaming jsontext decoder has no layer apart from the store).
// An import either lands or fails with an *model.InputError leaving every table's
// row count as it was.
func FuzzAnnotatedPairs(f *testing.F) {
	for _, name := range []string{"icai-example-v2-models.json", "icai-example-v2-40-principles.json"} {
		b, err := os.ReadFile(fixture(f, "annotated-pairs", name))
		if err != nil {
			f.Fatal(err)
		}
		f.Add(b)
	}
	for _, s := range []string{
		// Format 1.0, metadata after the comparisons (rows go under a
		// pending name), a duplicate id, a numeric id and a null vote.
		`{"comparisons":[{"id":1,"text_a":"A","text_b":"B","annotations":{"h":{"pref":"text_a"}}},{"id":"1","text_a":"x","text_b":"y"},` +
			`{"id":2,"text_a":"A","text_b":"B","annotations":{"h":{"pref":null,"no_pref_reason":"tie"}},"metadata":{"k":[1]}}],"metadata":{"version":"1.0","dataset_name":"Late Name"}}`,
		`{"metadata":{"version":"2.0"},"annotators":{"h":{"type":"human"}},"comparisons":[{"id":"c","prompt":"p","response_a":{"text":"a","model":"m","x":1},"response_b":{"text":"b"},"annotations":{"h":{"pref":"a"}}}]}`,
		`{"annotators":{},"comparisons":[]}`,
		"\xef\xbb\xbf{\"comparisons\":[]}", `{"comparisons":{}}`, `[]`, ``,
	} {
		f.Add([]byte(s))
	}
	store := fuzzStore(f)
	f.Fuzz(func(t *testing.T, b []byte) {
		s := store()
		path := filepath.Join(t.TempDir(), "fuzz.json")
		if err := os.WriteFile(path, b, 0o644); err != nil {
			t.Fatal(err)
		}
		// Kind detection reads the same bytes first.
		if _, err := DetectKind(path); err != nil && !model.IsInputError(err) {
			t.Fatalf("DetectKind: %T is not an *model.InputError: %v", err, err)
		}
		before := dbState(t, s, false)
		// Replace, so a file whose dataset name was seen before still runs
		// the whole import.
		r, err := s.ImportAnnotatedPairs(context.Background(), path, ImportOptions{Replace: true})
		if err != nil {
			checkFailedImport(t, s, err, before)
			return
		}
		if r.Unchanged {
			return
		}
		if got := count(t, s, `SELECT count(*) FROM ap_comparisons WHERE dataset = ?`, r.Name); got != r.Counts["comparisons"] {
			t.Fatalf("stored %d comparisons, result says %d", got, r.Counts["comparisons"])
		}
	})
}

// FuzzPreferenceCSV imports arbitrary bytes as a preference .csv file.
func FuzzPreferenceCSV(f *testing.F) {
	for _, name := range []string{"icai-example.csv", "icai-synthetic_data_aligned_vqvtb.csv"} {
		b, err := os.ReadFile(fixture(f, "annotated-pairs", name))
		if err != nil {
			f.Fatal(err)
		}
		f.Add(b)
	}
	for _, s := range []string{
		"\xef\xbb\xbf,text_a,text_b,preferred_text,model_a,input,topic\n0,\"a\nb\",c,text_a,m,p,t\n0,x,y,,m,p,\n",
		"text_a,text_b,preferred_text\na,b\n", "text_a,text_a,preferred_text\n", "prompt,text_a,text_b,preferred_text\n\"p\",\"q\"\"\",r,tie\n", ``,
	} {
		f.Add([]byte(s))
	}
	store := fuzzStore(f)
	f.Fuzz(func(t *testing.T, b []byte) {
		s := store()
		path := filepath.Join(t.TempDir(), "fuzz.csv")
		if err := os.WriteFile(path, b, 0o644); err != nil {
			t.Fatal(err)
		}
		before := dbState(t, s, false)
		r, err := s.ImportPreferenceCSV(context.Background(), path, ImportOptions{Name: "fuzz", Replace: true})
		if err != nil {
			if errors.Is(err, ErrExists) {
				t.Fatalf("--replace given, yet: %v", err)
			}
			checkFailedImport(t, s, err, before)
			return
		}
		if r.Unchanged {
			return
		}
		if got := count(t, s, `SELECT count(*) FROM ap_comparisons WHERE dataset = 'fuzz'`); got != r.Counts["comparisons"] {
			t.Fatalf("stored %d comparisons, result says %d", got, r.Counts["comparisons"])
		}
	})
}
