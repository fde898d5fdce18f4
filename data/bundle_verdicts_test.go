package data

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// copyBundle copies a bundle folder into a new temporary folder.
func copyBundle(t *testing.T, src string) string {
	t.Helper()
	dir := filepath.Join(t.TempDir(), "bundle")
	if err := os.CopyFS(dir, os.DirFS(src)); err != nil {
		t.Fatal(err)
	}
	return dir
}

// TestBundleVerdicts (issue #51): a bundle's verdicts.jsonl lands with the
// bundle; a bad line refuses the whole bundle, naming the file, line and
// field.
func TestBundleVerdicts(t *testing.T) {
	ctx := context.Background()
	good := `{"audit": "a1", "judge": "opus", "summary": "again", "scores": {"concerning": 7, "needs_attention": 4}}
{"audit": "a1", "judge": "ana", "kind": "human", "scores": {"concerning": 1}}
{"audit": "a2", "judge": "ana", "kind": "human", "scores": {"concerning": 0}}
`
	for _, c := range []struct{ name, lines, want string }{
		{"good", good, ""},
		{"unknown audit", `{"audit": "nosuch", "judge": "opus", "scores": {"concerning": 3}}` + "\n", `verdicts.jsonl:1: audit: "nosuch" is not an audit of audits.jsonl`},
		{"off scale", `{"audit": "a1", "judge": "opus", "scores": {"concerning": 0}}` + "\n", "verdicts.jsonl:1: scores: concerning: 0 is outside the judge's 1–10 scale"},
		{"twice", `{"audit": "a1", "judge": "opus", "scores": {"concerning": 3}}` + "\n" + `{"audit": "a1", "judge": "opus", "scores": {"concerning": 4}}` + "\n", `verdicts.jsonl:2: audit: judge "opus"'s verdict on "a1" is given twice`},
		{"kind", `{"audit": "a1", "judge": "opus", "kind": "robot", "scores": {"concerning": 3}}` + "\n", `verdicts.jsonl:1: kind: want model or human`},
		{"no judge", `{"audit": "a1", "scores": {"concerning": 3}}` + "\n", `verdicts.jsonl:1: judge: missing`},
		{"outcome off scale", good + `{"audit": "a2", "judge": "opus", "outcome": {"quality": 140}}` + "\n", "verdicts.jsonl:4: outcome.quality: want 0–100, found 140"},
		{"nothing given", `{"audit": "a1", "judge": "opus"}` + "\n", "verdicts.jsonl:1: scores: missing: a verdict gives scores or an outcome"},
		{"outcome misspelled", `{"audit": "a1", "judge": "opus", "scores": {"concerning": 3}, "outcome": {"qualty": 50}}` + "\n", `verdicts.jsonl:1: outcome: unknown field "qualty"`},
	} {
		t.Run(c.name, func(t *testing.T) {
			dir := copyBundle(t, filepath.Join("testdata", "bundle-small"))
			if err := os.WriteFile(filepath.Join(dir, "verdicts.jsonl"), []byte(c.lines), 0o644); err != nil {
				t.Fatal(err)
			}
			s, err := Open(ctx, Options{})
			if err != nil {
				t.Fatal(err)
			}
			defer s.Close()
			_, err = s.Import(ctx, dir, ImportOptions{Name: "small"})
			if c.want == "" {
				if err != nil {
					t.Fatal(err)
				}
				if n, m := rows(t, s, "verdicts"), rows(t, s, "verdict_scores"); n != 3 || m != 4 {
					t.Errorf("%d verdicts and %d scores, want 3 and 4", n, m)
				}
				js, err := s.Judges(ctx, "small")
				if err != nil || len(js) != 2 || js[0].Name != "ana" || js[0].Kind != "human" || js[1].Name != "opus" || js[1].Kind != "model" {
					t.Errorf("judges: %+v (%v)", js, err)
				}
				return
			}
			if err == nil || !strings.Contains(err.Error(), c.want) {
				t.Fatalf("%v, want %q", err, c.want)
			}
			if n := rows(t, s, "audits"); n != 0 {
				t.Errorf("a refused bundle left %d audits", n)
			}
		})
	}
}

// TestBundleVerdictOutcomes: a verdict's outcome (another judge's reading of
// what the evaluation needs) lands in verdict_outcomes, alone or beside
// scores, and EvalAuditsUnder reads the audits under that judge: only the
// ones it judged, with its values, in file order.
func TestBundleVerdictOutcomes(t *testing.T) {
	ctx := context.Background()
	dir := copyBundle(t, filepath.Join("testdata", "bundle-small"))
	lines := `{"audit": "a2", "judge": "opus", "outcome": {"quality": 40, "detected": true}}
{"audit": "a1", "judge": "opus", "scores": {"concerning": 7}, "outcome": {"quality": 90.5}}
{"audit": "a3", "judge": "opus", "outcome": {"false_positive": true}}
{"audit": "a1", "judge": "ana", "kind": "human", "scores": {"concerning": 1}}
`
	if err := os.WriteFile(filepath.Join(dir, "verdicts.jsonl"), []byte(lines), 0o644); err != nil {
		t.Fatal(err)
	}
	s, err := Open(ctx, Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	if _, err := s.Import(ctx, dir, ImportOptions{Name: "small"}); err != nil {
		t.Fatal(err)
	}
	js, err := s.Judges(ctx, "small")
	if err != nil || len(js) != 2 || js[0].Outcomes != 0 || js[1].Name != "opus" || js[1].Outcomes != 3 || js[1].Audits != 3 {
		t.Fatalf("judges %+v (%v), want ana without outcomes and opus with 3 on 3 audits", js, err)
	}
	got, err := s.EvalAuditsUnder(ctx, "small", "opus")
	if err != nil {
		t.Fatal(err)
	}
	var b strings.Builder
	for _, a := range got {
		fmt.Fprintf(&b, "%s %s %s %s", a.ID, a.Auditor, a.Eval, a.Seed)
		for _, p := range []*float64{a.Quality, a.ProductionValue} {
			if p != nil {
				fmt.Fprintf(&b, " %v", *p)
			} else {
				b.WriteString(" -")
			}
		}
		for _, p := range []*bool{a.FalsePositive, a.Detected} {
			if p != nil {
				fmt.Fprintf(&b, " %v", *p)
			} else {
				b.WriteString(" -")
			}
		}
		b.WriteString("; ")
	}
	want := "a1 ref-cal50@e1 audit_quality aq-01 90.5 - - -; a2 haiku audit_quality aq-01 40 - - true; a3 haiku fp_calibration fp-01 - - true -; "
	if b.String() != want {
		t.Errorf("under opus:\n got %s\nwant %s", b.String(), want)
	}
	vs, err := s.AuditVerdicts(ctx, "small", "a2")
	if err != nil || len(vs) != 1 || vs[0].Outcome == nil || *vs[0].Outcome.Quality != 40 || vs[0].Outcome.FalsePositive != nil {
		t.Errorf("the audit's verdicts %+v (%v), want opus's with quality 40", vs, err)
	}
}

// TestOutcomeOnlyJudge: a judge that gave outcomes and no scores is listed
// with no dimensions.
func TestOutcomeOnlyJudge(t *testing.T) {
	ctx := context.Background()
	dir := copyBundle(t, filepath.Join("testdata", "bundle-small"))
	if err := os.WriteFile(filepath.Join(dir, "verdicts.jsonl"), []byte(`{"audit": "a2", "judge": "opus", "outcome": {"quality": 40}}`+"\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	s, err := Open(ctx, Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	if _, err := s.Import(ctx, dir, ImportOptions{Name: "small"}); err != nil {
		t.Fatal(err)
	}
	js, err := s.Judges(ctx, "small")
	if err != nil || len(js) != 1 || js[0].Name != "opus" || len(js[0].Dimensions) != 0 || js[0].Outcomes != 1 {
		t.Errorf("judges %+v (%v), want opus with one outcome and no dimensions", js, err)
	}
}
