package data

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// annotationOnly is an AnnotatedPairs 2.0 file of n comparisons without
// texts, each with a conversation_id c<i>.
func annotationOnly(n int) []byte {
	var b strings.Builder
	b.WriteString(`{"metadata": {"version": "2.0", "default_annotator": "h", "available_metadata_keys_per_comparison": ["conversation_id"]}, "annotators": {"h": {"type": "human"}}, "comparisons": [`)
	for i := range n {
		if i > 0 {
			b.WriteString(", ")
		}
		fmt.Fprintf(&b, `{"id": "x%d", "response_a": {"model": "m1"}, "response_b": {"model": "m2"}, "annotations": {"h": {"pref": "%s"}}, "metadata": {"conversation_id": "c%d"}}`,
			i, []string{"a", "b"}[i%2], i)
	}
	b.WriteString("]}")
	return []byte(b.String())
}

// TestMergeTexts merges texts from a base dataset in each format DuckDB
// reads: matched and unmatched rows and duplicate keys are reported, the
// votes do not change, the lengths appear.
func TestMergeTexts(t *testing.T) {
	ctx := context.Background()
	dir := t.TempDir()
	csvPath := filepath.Join(dir, "base.csv")
	// c0..c2 match, c3 twice (a duplicate: not merged), c9 matches nothing;
	// c4 has no base row.
	csv := "conversation_id,question,answer_a,answer_b\nc0,Q0,short,a longer answer\nc1,Q1,aa,bbbb\nc2,\"Q, 2\",x,yy\nc3,Q3,d1,d2\nc3,Q3b,d3,d4\nc9,Q9,z,z\n"
	if err := os.WriteFile(csvPath, []byte(csv), 0o644); err != nil {
		t.Fatal(err)
	}
	jsonl := filepath.Join(dir, "base.jsonl")
	var jl strings.Builder
	for _, row := range []string{"c0,Q0,short,a longer answer", "c1,Q1,aa,bbbb", "c2,Q 2,x,yy"} {
		f := strings.Split(row, ",")
		fmt.Fprintf(&jl, `{"conversation_id": %q, "question": %q, "answer_a": %q, "answer_b": %q}`+"\n", f[0], f[1], f[2], f[3])
	}
	if err := os.WriteFile(jsonl, []byte(jl.String()), 0o644); err != nil {
		t.Fatal(err)
	}
	s := mustOpenStore(t)
	parquet := filepath.Join(dir, "base.parquet")
	if _, err := s.db.ExecContext(ctx, `COPY (SELECT * FROM read_csv(?, header = true, all_varchar = true)) TO '`+strings.ReplaceAll(parquet, "'", "''")+`' (FORMAT parquet)`, csvPath); err != nil {
		t.Fatal(err)
	}
	doc := annotationOnly(5)
	if _, err := s.ImportAnnotatedPairsBytes(ctx, doc, "bare.json", ImportOptions{Name: "bare"}); err != nil {
		t.Fatal(err)
	}
	for name, c := range map[string]struct {
		file                     string
		matched, unmatched, dups string
	}{
		"csv":     {csvPath, "3 comparisons matched", "1 base rows matched no comparison", "1 keys appear more than once"},
		"jsonl":   {jsonl, "3 comparisons matched", "0 base rows", ""},
		"parquet": {parquet, "3 comparisons matched", "1 base rows matched no comparison", "(e.g. c3)"},
	} {
		res, err := s.ImportAnnotatedPairsBytes(ctx, doc, name+".json", ImportOptions{Name: "merged-" + name,
			Texts: &TextsMerge{File: c.file, Key: "conversation_id", Prompt: "question", A: "answer_a", B: "answer_b"}})
		if err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		for _, want := range []string{c.matched, c.unmatched, c.dups} {
			if !strings.Contains(res.String(), want) {
				t.Errorf("%s: the result %q does not say %q", name, res, want)
			}
		}
		ds := "merged-" + name
		if n := count(t, s, `SELECT count(*) FROM ap_comparisons WHERE dataset = ? AND len_a > 0`, ds); n != 3 {
			t.Errorf("%s: %d comparisons with texts, want 3", name, n)
		}
		if n := count(t, s, `SELECT count(*) FROM ap_comparisons WHERE dataset = ? AND id = 'x0' AND text_b = 'a longer answer' AND len_b = 15 AND prompt = 'Q0'`, ds); n != 1 {
			t.Errorf("%s: comparison x0 did not get its texts", name)
		}
		// The votes are those of the file without texts.
		if n := count(t, s, `SELECT count(*) FROM ap_comparisons m JOIN ap_comparisons b ON b.dataset = 'bare' AND b.id = m.id AND b.prefs = m.prefs WHERE m.dataset = ?`, ds); n != 5 {
			t.Errorf("%s: %d of 5 comparisons kept their votes", name, n)
		}
		d, err := s.PairsDataset(ctx, ds)
		if err != nil || !d.Texts {
			t.Errorf("%s: the merged dataset is not marked as having texts (%v)", name, err)
		}
	}
	// A column that is not in the base file is refused, naming the file.
	_, err := s.ImportAnnotatedPairsBytes(ctx, doc, "bad.json", ImportOptions{Name: "bad",
		Texts: &TextsMerge{File: csvPath, Key: "conversation_id", A: "nope", B: "answer_b"}})
	if err == nil || !strings.Contains(err.Error(), "base.csv") {
		t.Errorf("a missing column: %v", err)
	}
}
