package data

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/auditscope/auditscope/data/internal/load"
	"github.com/auditscope/auditscope/data/model"
	"github.com/auditscope/auditscope/data/storetest"
)

func mustOpenStore(t testing.TB) *Store {
	t.Helper()
	s, err := Open(context.Background(), Options{})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { s.Close() })
	return s
}

// fixture is storetest.Fixture.
func fixture(t testing.TB, kind, name string) string {
	t.Helper()
	return storetest.Fixture(t, kind, name)
}

// allScores is every judge score as rows of audit_scores, those in the
// score columns too.
var allScores = "(" + load.AllScores("true") + ")"

func count(t testing.TB, s *Store, query string, args ...any) int64 {
	t.Helper()
	var n int64
	if err := s.db.QueryRow(query, args...).Scan(&n); err != nil {
		t.Fatalf("%s: %v", query, err)
	}
	return n
}

// snapshot is the row count of every table, to check an import left the
// database as it was.
func snapshot(t testing.TB, s *Store) map[string]int64 {
	t.Helper()
	out := map[string]int64{}
	for _, table := range []string{"imports", "ap_datasets", "ap_annotators", "ap_comparisons", "ap_votes", "ap_meta",
		"experiments", "behaviors", "runs", "auditors", "audits", "audit_scores", "audit_transcripts", "judgments", "crux", "metrics"} {
		out[table] = count(t, s, "SELECT count(*) FROM "+table)
	}
	return out
}

func sameSnapshot(t testing.TB, before, after map[string]int64) {
	t.Helper()
	for k, v := range before {
		if after[k] != v {
			t.Errorf("table %s: %d rows before, %d after", k, v, after[k])
		}
	}
}

func TestImportAnnotatedPairsFixtures(t *testing.T) {
	ctx := context.Background()
	tests := []struct {
		file                          string
		kind                          string
		comparisons, annotators, vote int64
	}{
		{"icai-example-v2-40-principles.json", model.KindAnnotatedPairs, 1, 41, 41},
		{"icai-example-v2-models.json", model.KindAnnotatedPairs, 1, 4, 4},
		{"icai-example.csv", model.KindPreferenceCSV, 1, 1, 1},
		{"icai-synthetic_data_aligned_vqvtb.csv", model.KindPreferenceCSV, -1, 1, -1},
		{"icai-synthetic_data_mixed_vqvtb_adcbg.csv", model.KindPreferenceCSV, -1, 1, -1},
		{"icai-synthetic_data_orthogonal_adcbg.csv", model.KindPreferenceCSV, -1, 1, -1},
	}
	s := mustOpenStore(t)
	for _, tt := range tests {
		t.Run(tt.file, func(t *testing.T) {
			path := fixture(t, "annotated-pairs", tt.file)
			res, err := s.Import(ctx, path, ImportOptions{})
			if err != nil {
				t.Fatal(err)
			}
			r := res[0]
			if r.Kind != tt.kind {
				t.Errorf("kind = %s, want %s", r.Kind, tt.kind)
			}
			want := tt.comparisons
			if want < 0 {
				want = csvRows(t, path)
			}
			if got := r.Counts["comparisons"]; got != want {
				t.Errorf("comparisons = %d, want %d", got, want)
			}
			if got := count(t, s, "SELECT count(*) FROM ap_comparisons WHERE dataset = ?", r.Name); got != want {
				t.Errorf("stored comparisons = %d, want %d", got, want)
			}
			if got := count(t, s, "SELECT count(*) FROM ap_annotators WHERE dataset = ?", r.Name); got != tt.annotators {
				t.Errorf("annotators = %d, want %d", got, tt.annotators)
			}
			// Importing the same file again is a no-op.
			again, err := s.Import(ctx, path, ImportOptions{})
			if err != nil {
				t.Fatal(err)
			}
			if !again[0].Unchanged {
				t.Errorf("second import: got %v, want unchanged", again[0])
			}
		})
	}
}

// csvRows counts records the way encoding/csv does (quoted newlines inside).
func csvRows(t *testing.T, path string) int64 {
	t.Helper()
	f, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	n, err := countCSVRecords(f)
	if err != nil {
		t.Fatal(err)
	}
	return n - 1
}

func TestAnnotatedPairsV2Semantics(t *testing.T) {
	ctx := context.Background()
	s := mustOpenStore(t)
	doc := `{"metadata":{"version":"2.0","dataset_name":"My Data!","default_annotator":"h","available_metadata_keys_per_comparison":["topic"]},
"annotators":{"h":{"name":"Human","type":"human"},"p":{"description":"Select the response that is more confident.","type":"principle"}},
"comparisons":[
 {"id":"c1","prompt":"hi","response_a":{"text":"héllo","model":"m1","temperature":0.5},"response_b":{"text":"yo","model":"m2"},
  "annotations":{"h":{"pref":"a"},"p":{"pref":null,"no_pref_reason":"not_applicable"},"ghost":{"pref":"tie"},"skip":{}},"metadata":{"topic":"x","n":3}},
 {"id":"c1","response_a":{"text":"dup"},"response_b":{"text":"dup"},"annotations":{}},
 {"id":2,"response_a":{"text":"a"},"response_b":{"text":"b"},"annotations":{"h":{"pref":"b"},"p":{"pref":"both"}}}
]}`
	r, err := s.ImportAnnotatedPairsBytes(ctx, []byte(doc), "inline.json", ImportOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if r.Name != "my-data" {
		t.Errorf("name = %q, want my-data", r.Name)
	}
	if r.Counts["comparisons"] != 2 || !strings.Contains(r.String(), "dropped 1") {
		t.Errorf("result = %v, want 2 comparisons and 1 dropped duplicate", r)
	}
	var pref, reason any
	if err := s.db.QueryRow(`SELECT v.pref, v.reason FROM ap_votes v JOIN ap_annotators a ON a.dataset = v.dataset AND a.idx = v.annotator WHERE a.id = 'p' AND v.cmp = 0`).Scan(&pref, &reason); err != nil {
		t.Fatal(err)
	}
	if pref != nil || reason != "not_applicable" {
		t.Errorf("null vote = %v, %v; want NULL, not_applicable", pref, reason)
	}
	if got := count(t, s, `SELECT count(*) FROM ap_votes WHERE pref = 'text_a' AND cmp = 0`); got != 1 {
		t.Errorf("a → text_a votes = %d, want 1", got)
	}
	if got := count(t, s, `SELECT count(*) FROM ap_votes WHERE pref = 'both'`); got != 1 {
		t.Errorf("'both' kept as given: %d, want 1", got)
	}
	var typ string
	var declared bool
	if err := s.db.QueryRow(`SELECT type, declared FROM ap_annotators WHERE id = 'ghost'`).Scan(&typ, &declared); err != nil {
		t.Fatal(err)
	}
	if typ != "unknown" || declared {
		t.Errorf("undeclared annotator: type %q declared %v", typ, declared)
	}
	if got := count(t, s, `SELECT count(*) FROM ap_annotators WHERE id = 'skip'`); got != 0 {
		t.Errorf("annotation without pref should be skipped, found %d annotators", got)
	}
	if got := count(t, s, `SELECT len_a FROM ap_comparisons WHERE id = 'c1'`); got != 5 {
		t.Errorf("len_a = %d, want 5 characters (not bytes)", got)
	}
	var attrs string
	if err := s.db.QueryRow(`SELECT attrs_a FROM ap_comparisons WHERE id = 'c1'`).Scan(&attrs); err != nil || !strings.Contains(attrs, "temperature") {
		t.Errorf("attrs_a = %q (%v), want temperature kept", attrs, err)
	}
	if got := count(t, s, `SELECT count(*) FROM ap_meta WHERE key = 'n' AND value = '3'`); got != 1 {
		t.Errorf("numeric metadata kept as text: %d rows", got)
	}
}

func TestAnnotatedPairsV1(t *testing.T) {
	s := mustOpenStore(t)
	doc := `{"metadata":{"version":"1.0"},"annotators":{"h":{"type":"human"}},
"comparisons":[{"id":"x","text_a":"A","text_b":"B","annotations":{"h":{"pref":"text_b"}}}]}`
	r, err := s.ImportAnnotatedPairsBytes(context.Background(), []byte(doc), "v1.json", ImportOptions{Name: "v1"})
	if err != nil {
		t.Fatal(err)
	}
	if r.Counts["comparisons"] != 1 || count(t, s, `SELECT count(*) FROM ap_votes WHERE pref = 'text_b'`) != 1 {
		t.Errorf("v1 import: %v", r)
	}
}

func TestImportBadAnnotatedPairs(t *testing.T) {
	ctx := context.Background()
	s := mustOpenStore(t)
	if _, err := s.Import(ctx, fixture(t, "annotated-pairs", "icai-example-v2-models.json"), ImportOptions{Name: "base"}); err != nil {
		t.Fatal(err)
	}
	before := snapshot(t, s)
	good, err := os.ReadFile(fixture(t, "annotated-pairs", "icai-example-v2-models.json"))
	if err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	tests := []struct {
		name, body string
		want       []string
	}{
		{"truncated.json", string(good[:len(good)/2]), []string{"truncated.json", "truncated"}},
		{"wrongtype.json", strings.Replace(string(good), `"prompt": "Write a short story about a pet."`, `"prompt": 42`, 1), []string{"wrongtype.json:", "comparisons[0].prompt", "want a string"}},
		{"wrongtext.json", strings.Replace(string(good), `"text": "In the heart`, `"text": ["x"], "t2": "In the heart`, 1), []string{"comparisons[0].response_a.text", "want a string"}},
		{"badpref.json", strings.Replace(string(good), `"pref": "a"`, `"pref": 1`, 1), []string{"comparisons[0].annotations.", "pref", "want a string"}},
		{"notobject.json", `[1,2]`, []string{"notobject.json", "want a JSON object"}},
		{"empty.json", ``, []string{"empty.json"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			path := filepath.Join(dir, tt.name)
			if err := os.WriteFile(path, []byte(tt.body), 0o644); err != nil {
				t.Fatal(err)
			}
			_, err := s.Import(ctx, path, ImportOptions{Name: "bad"})
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

func TestImportReplace(t *testing.T) {
	ctx := context.Background()
	s := mustOpenStore(t)
	a := `{"metadata":{"version":"2.0"},"annotators":{"h":{}},"comparisons":[{"id":"1","response_a":{"text":"a"},"response_b":{"text":"b"},"annotations":{"h":{"pref":"a"}}}]}`
	b := strings.Replace(a, `"pref":"a"`, `"pref":"b"`, 1)
	if _, err := s.ImportAnnotatedPairsBytes(ctx, []byte(a), "a.json", ImportOptions{Name: "d"}); err != nil {
		t.Fatal(err)
	}
	_, err := s.ImportAnnotatedPairsBytes(ctx, []byte(b), "b.json", ImportOptions{Name: "d"})
	if !errors.Is(err, ErrExists) {
		t.Fatalf("different content under the same name: err = %v, want ErrExists", err)
	}
	if _, err := s.ImportAnnotatedPairsBytes(ctx, []byte(b), "b.json", ImportOptions{Name: "d", Replace: true}); err != nil {
		t.Fatal(err)
	}
	if got := count(t, s, `SELECT count(*) FROM ap_votes WHERE dataset = 'd' AND pref = 'text_b'`); got != 1 {
		t.Errorf("after replace: %d text_b votes, want 1", got)
	}
	if got := count(t, s, `SELECT count(*) FROM ap_votes WHERE dataset = 'd'`); got != 1 {
		t.Errorf("after replace: %d votes, want 1 (old rows gone)", got)
	}
	if got := count(t, s, `SELECT count(*) FROM imports WHERE name = 'd'`); got != 1 {
		t.Errorf("imports rows for d = %d, want 1", got)
	}
}
