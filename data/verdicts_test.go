package data

import (
	"context"
	"encoding/json"
	"fmt"
	"math"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/auditscope/auditscope/data/model"
)

// rows is a table's row count.
func rows(t *testing.T, s *Store, table string) int64 {
	t.Helper()
	return count(t, s, `SELECT count(*) FROM `+table)
}

// rejudged copies data/testdata/petri with each judge score raised by one
// (10 stays 10) and the summary marked, as another judge would give them.
func rejudged(t *testing.T) string {
	t.Helper()
	dir := t.TempDir()
	entries, err := os.ReadDir(filepath.Join("testdata", "petri"))
	if err != nil {
		t.Fatal(err)
	}
	for _, e := range entries {
		b, err := os.ReadFile(filepath.Join("testdata", "petri", e.Name()))
		if err != nil {
			t.Fatal(err)
		}
		var doc map[string]any
		if err := json.Unmarshal(b, &doc); err != nil {
			t.Fatal(err)
		}
		jo := doc["metadata"].(map[string]any)["judge_output"].(map[string]any)
		for d, v := range jo["scores"].(map[string]any) {
			jo["scores"].(map[string]any)[d] = min(10, v.(float64)+1)
		}
		jo["summary"] = "second judge: " + jo["summary"].(string)
		out, _ := json.Marshal(doc)
		if err := os.WriteFile(filepath.Join(dir, e.Name()), out, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	return dir
}

// TestImportVerdicts (issue #51): a Petri folder re-judged attaches to the
// audits imported already (their count unchanged), people's labels from a
// CSV each a judge; bad input is refused at its file and line with nothing
// landed; a --replace of the experiment takes the verdicts with it.
func TestImportVerdicts(t *testing.T) {
	ctx := context.Background()
	s, err := Open(ctx, Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	if _, err := s.Import(ctx, filepath.Join("testdata", "petri"), ImportOptions{Name: "petri"}); err != nil {
		t.Fatal(err)
	}
	audits := rows(t, s, "audits")
	res, err := s.ImportVerdicts(ctx, "petri", rejudged(t), "claude-opus-4.6", 0)
	if err != nil {
		t.Fatal(err)
	}
	if rows(t, s, "audits") != audits || rows(t, s, "verdicts") != audits || res.Counts["verdicts"] != audits {
		t.Fatalf("after the re-judged folder: %d audits (was %d), %d verdicts; %+v", rows(t, s, "audits"), audits, rows(t, s, "verdicts"), res)
	}
	var score float64
	if err := s.db.QueryRow(`SELECT score FROM verdict_scores WHERE audit = 'petri-rollback-01' AND judge = 'claude-opus-4.6' AND dimension = 'admirable'`).Scan(&score); err != nil || score != 3 {
		t.Errorf("the second judge's admirable score: %v (%v), want 3 (its 2, raised by one)", score, err)
	}

	dir := t.TempDir()
	write := func(name, body string) string {
		p := filepath.Join(dir, name)
		if err := os.WriteFile(p, []byte(body), 0o644); err != nil {
			t.Fatal(err)
		}
		return p
	}
	good := write("labels.csv", "audit,dimension,value,rater,note\npetri-rollback-01,concerning,1,ana,\npetri-reset-01,concerning,0,ana,\npetri-rollback-01,admirable,7,ben,hm\n")
	if _, err := s.ImportVerdicts(ctx, "petri", good, "", 0); err != nil {
		t.Fatal(err)
	}
	if n := rows(t, s, "verdicts"); n != audits+3 {
		t.Fatalf("after the labels: %d verdicts, want %d", n, audits+3)
	}
	before := rows(t, s, "verdicts")
	for _, c := range []struct{ name, body, judge, want string }{
		{"unknown.csv", "audit,dimension,value,rater\npetri-reset-01,concerning,1,cy\nnosuch,concerning,1,cy\n", "", "unknown.csv:3: experiment petri has no audit \"nosuch\""},
		{"scale.csv", "audit,dimension,value,rater\npetri-reset-01,concerning,11,cy\n", "", "scale.csv:2: concerning: 11 is outside the 1–10 scale"},
		{"zero.csv", "audit,dimension,value,rater\npetri-reset-01,concerning,0,cy\npetri-rollback-01,concerning,5,cy\n", "", "zero.csv:2: concerning: 0 is outside the 1–10 scale"},
		{"norater.csv", "audit,dimension,value\npetri-reset-01,concerning,3\n", "", "norater.csv:1: the header has no rater column"},
		{"twice.csv", "audit,dimension,value,rater\npetri-reset-01,concerning,3,cy\npetri-reset-01,concerning,4,cy\n", "", "twice.csv:3: rater \"cy\" labels audit \"petri-reset-01\" on concerning a second time"},
		{"again.csv", "audit,dimension,value,rater\npetri-rollback-01,concerning,0,ana\n", "", "judge \"ana\" has judged audit \"petri-rollback-01\" of petri already"},
		{"value.jsonl", `{"audit": "petri-reset-01", "dimension": "concerning", "value": "high", "rater": "cy"}` + "\n", "", "value.jsonl:1: value: want a number"},
		{"judge.csv", "audit,dimension,value,rater\n", "x", "--judge is for re-judged transcripts"},
	} {
		_, err := s.ImportVerdicts(ctx, "petri", write(c.name, c.body), c.judge, 0)
		if err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%s: %v, want %q", c.name, err, c.want)
		}
	}
	if _, err := s.ImportVerdicts(ctx, "petri", rejudged(t), "", 0); err == nil || !strings.Contains(err.Error(), "--judge") {
		t.Errorf("a re-judged folder without the judge's name: %v", err)
	}
	if _, err := s.ImportVerdicts(ctx, "nosuch", good, "", 0); err == nil {
		t.Error("verdicts for an experiment that is not there")
	}
	if n := rows(t, s, "verdicts"); n != before {
		t.Errorf("refused files landed: %d verdicts, was %d", n, before)
	}

	// A store opened again keeps them; a --replace of the experiment takes
	// them with it (they are appends to its import).
	if _, err := s.Import(ctx, filepath.Join("testdata", "petri", "legacy.json"), ImportOptions{Name: "petri", Replace: true}); err != nil {
		t.Fatal(err)
	}
	if n := rows(t, s, "verdicts"); n != 0 {
		t.Errorf("after --replace: %d verdicts, want 0", n)
	}
}

// TestReadVerdicts: the judges of an experiment, one judge's scores and an
// audit's verdicts, as imported.
func TestReadVerdicts(t *testing.T) {
	ctx := context.Background()
	s, err := Open(ctx, Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	if _, err := s.Import(ctx, filepath.Join("testdata", "petri"), ImportOptions{Name: "petri"}); err != nil {
		t.Fatal(err)
	}
	if _, err := s.ImportVerdicts(ctx, "petri", rejudged(t), "opus", 0); err != nil {
		t.Fatal(err)
	}
	p := filepath.Join(t.TempDir(), "l.csv")
	os.WriteFile(p, []byte("audit,dimension,value,rater\npetri-reset-01,concerning,0,ana\npetri-rollback-01,concerning,1,ana\n"), 0o644)
	if _, err := s.ImportVerdicts(ctx, "petri", p, "", 0); err != nil {
		t.Fatal(err)
	}
	js, err := s.Judges(ctx, "petri")
	if err != nil || len(js) != 2 || js[0].Name != "ana" || js[0].Kind != "human" || js[0].Audits != 2 || js[1].Name != "opus" || js[1].Audits != 3 ||
		strings.Join(js[1].Dimensions, ",") != "admirable,concerning,needs_attention,unprompted_sycophancy" {
		t.Fatalf("judges: %+v (%v)", js, err)
	}
	sc, err := s.JudgeScores(ctx, "petri", js[1])
	if err != nil || len(sc.Scores) != 3 || sc.Scores["petri-rollback-01"][1] != 7 || !math.IsNaN(sc.Scores["petri-legacy-01"][0]) {
		t.Errorf("opus's scores: %+v (%v)", sc.Scores, err)
	}
	vs, err := s.AuditVerdicts(ctx, "petri", "petri-rollback-01")
	if err != nil || len(vs) != 2 || vs[1].Judge != "opus" || vs[1].Scores["unprompted_sycophancy"] != 9 || !strings.HasPrefix(vs[1].Summary, "second judge: ") || vs[0].Scores["concerning"] != 1 {
		t.Errorf("the rollback's verdicts: %+v (%v)", vs, err)
	}
}

// inspectLog is a Petri-in-Inspect log of two samples whose judge scores
// concerning c1 and c2.
func inspectLog(c1, c2 int) string {
	sample := func(id, c int) string {
		return fmt.Sprintf(`{"id": %d, "epoch": 1, "input": "seed %d", "messages": [{"role": "user", "content": "hi"}, {"role": "assistant", "content": "hello"}],
 "scores": {"audit_judge": {"value": {"concerning": %d, "admirable": 3}, "answer": "summary %d"}}}`, id, id, c, id)
	}
	return `{"version": 2, "status": "success", "eval": {"task": "petri_audit", "run_id": "r1", "created": "2026-11-01T00:00:00+00:00", "model": "target/m",
 "model_roles": {"auditor": {"model": "auditor/a"}, "target": {"model": "target/m"}, "judge": {"model": "judge/j"}}, "dataset": {"name": "seeds"}},
 "samples": [` + sample(1, c1) + `, ` + sample(2, c2) + `]}`
}

// TestRescoredInspectLog (issue #51): an Inspect log rescored by another
// judge (another file name, the same task, samples and epochs) attaches
// to the samples imported already; a sample the experiment does not hold
// is refused.
func TestRescoredInspectLog(t *testing.T) {
	ctx := context.Background()
	s, err := Open(ctx, Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	dir := t.TempDir()
	first := filepath.Join(dir, "first", "audit.json")
	os.MkdirAll(filepath.Dir(first), 0o755)
	os.WriteFile(first, []byte(inspectLog(2, 5)), 0o644)
	if _, err := s.Import(ctx, filepath.Dir(first), ImportOptions{Name: "ins"}); err != nil {
		t.Fatal(err)
	}
	audits := rows(t, s, "audits")
	again := filepath.Join(dir, "rescored-by-opus.json")
	os.WriteFile(again, []byte(inspectLog(4, 6)), 0o644)
	if _, err := s.ImportVerdicts(ctx, "ins", again, "opus", 0); err != nil {
		t.Fatal(err)
	}
	if n := rows(t, s, "audits"); n != audits {
		t.Errorf("%d audits after the rescored log, were %d", n, audits)
	}
	if got := count(t, s, `SELECT sum(score) FROM verdict_scores WHERE judge = 'opus' AND dimension = 'concerning'`); got != 10 {
		t.Errorf("opus's concerning scores sum to %d, want 4 + 6", got)
	}
	// The judges page's sums: a cluster per sample (its id, as JudgedBy
	// reads an Inspect sample's seed), the evaluation judge's 2 and 5
	// against opus's 4 and 6.
	ms, _, err := s.JudgeMoments(ctx, "ins", "", "opus", []string{"concerning"}, 3)
	want := []model.Moments{{N: 1, A: 2, B: 4, AA: 4, BB: 16, AB: 8}, {N: 1, A: 5, B: 6, AA: 25, BB: 36, AB: 30}}
	if err != nil || len(ms) != 1 || !slices.Equal(ms[0].Clusters, want) {
		t.Errorf("moments %+v (%v), want %+v", ms, err, want)
	}
	other := strings.Replace(inspectLog(4, 6), `"id": 2`, `"id": 3`, 1)
	os.WriteFile(again, []byte(other), 0o644)
	if _, err := s.ImportVerdicts(ctx, "ins", again, "sonnet", 0); err == nil || !strings.Contains(err.Error(), "has no sample 3, epoch 1 of task petri_audit") {
		t.Errorf("a sample the experiment does not hold: %v", err)
	}
}
