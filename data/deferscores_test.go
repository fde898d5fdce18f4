package data

import (
	"context"
	"slices"
	"testing"
)

// TestDeferScores imports with DeferScores and checks score filters and
// sorts give the same audits from the scores JSON as from audit_scores
// once BuildPendingScores has run.
func TestDeferScores(t *testing.T) {
	ctx := context.Background()
	s := mustOpenStore(t)
	if _, err := s.Import(ctx, "testdata/bundle-small", ImportOptions{DeferScores: true}); err != nil {
		t.Fatal(err)
	}
	if n := count(t, s, `SELECT count(*) FROM audit_scores`); n != 0 {
		t.Fatalf("audit_scores has %d rows before the build", n)
	}
	filters := []AuditFilter{
		{Experiment: "small", Scores: []ScoreCond{{Dimension: "concerning", Op: ">=", Value: 3}}},
		{Experiment: "small", Sort: "score:concerning", Desc: true},
		{Scores: []ScoreCond{{Dimension: "needs_attention", Op: "=", Value: 5}}, Sort: "score:concerning"},
		// Thresholds on the sort dimension test the joined score.
		{Experiment: "small", Scores: []ScoreCond{{Dimension: "concerning", Op: ">=", Value: 3}}, Sort: "score:concerning", Desc: true},
		{Scores: []ScoreCond{{Dimension: "concerning", Op: ">=", Value: 2}, {Dimension: "concerning", Op: "<=", Value: 6}}, Sort: "score:concerning"},
		{Scores: []ScoreCond{{Dimension: "concerning", Op: ">", Value: 1}, {Dimension: "needs_attention", Op: ">=", Value: 1}}, Sort: "score:concerning", Desc: true},
	}
	keys := func(f AuditFilter) []string {
		rows, err := s.ListAuditsPage(ctx, f, 0, 50)
		if err != nil {
			t.Fatal(err)
		}
		var out []string
		for _, r := range rows {
			out = append(out, r.Key)
		}
		if n, err := s.CountAudits(ctx, f); err != nil || n != len(out) {
			t.Errorf("%+v: CountAudits %d (%v), the page has %d", f, n, err, len(out))
		}
		return out
	}
	var before [][]string
	for _, f := range filters {
		before = append(before, keys(f))
	}
	dims, err := s.ScoreDimensions(ctx, "small")
	if err != nil || !slices.Contains(dims, "concerning") {
		t.Errorf("dimensions before the build: %v, %v", dims, err)
	}
	if err := s.BuildPendingScores(ctx); err != nil {
		t.Fatal(err)
	}
	// Every score is in audit_scores or a score column, once.
	if n, want := count(t, s, `SELECT count(*) FROM `+allScores), count(t, s, `SELECT sum(json_array_length(json_keys(scores))) FROM audits`); n != want || n == 0 {
		t.Fatalf("%d scores after the build, want %d", n, want)
	}
	for i, f := range filters {
		if got := keys(f); !slices.Equal(got, before[i]) {
			t.Errorf("filter %d: %v from audit_scores, %v from the JSON", i, got, before[i])
		}
	}
	for i := 3; i < len(filters); i++ {
		if len(before[i]) == 0 {
			t.Errorf("filter %d selects nothing: the comparison shows nothing", i)
		}
	}
	if got := before[0]; len(got) != 2 {
		t.Errorf("concerning>=3: %v, want a1 and a4", got)
	}
}
