package data

import (
	"context"
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
