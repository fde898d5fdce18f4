package data

import (
	"bufio"
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

// TestJudgeMoments: the sums the judges page's agreement is made of, for
// the evaluation judge against another, from every place the evaluation
// judge's scores can be (score columns; audit_scores for the dimensions
// past the 48 columns; the JSON while audit_scores is being built), and
// for two other judges; worked out here from the values written.
func TestJudgeMoments(t *testing.T) {
	ctx := context.Background()
	dir, names := momentsBundle(t)
	const dims = 50
	eval := momentsEval
	// By hand: per dimension, the cluster aq-01 (a1, a2) first, then fp-01 (a3).
	want := func(k int, with func(k, i int) float64, audits ...int) []model.Moments {
		var out []model.Moments
		for _, group := range [][]int{{0, 1}, {2}} {
			var m model.Moments
			for _, i := range group {
				if !slices.Contains(audits, i) {
					continue
				}
				x, y := eval(k, i), with(k, i)
				m = model.Moments{N: m.N + 1, A: m.A + x, B: m.B + y, AA: m.AA + x*x, BB: m.BB + y*y, AB: m.AB + x*y}
			}
			if m.N > 0 {
				out = append(out, m)
			}
		}
		return out
	}
	opus := func(k, i int) float64 { return min(10, eval(k, i)+1) }
	for _, deferred := range []bool{false, true} {
		s := mustOpenStore(t)
		if _, err := s.Import(ctx, dir, ImportOptions{Name: "small", DeferScores: deferred}); err != nil {
			t.Fatal(err)
		}
		var unslotted int
		if err := s.db.QueryRowContext(ctx, `SELECT count(*) FROM experiment_dimensions WHERE experiment = 'small' AND slot IS NULL`).Scan(&unslotted); err != nil || unslotted == 0 {
			t.Fatalf("%d dimensions without a score column (%v): the test needs some", unslotted, err)
		}
		ms, gaps, err := s.JudgeMoments(ctx, "small", "", "opus", names, 3)
		if err != nil {
			t.Fatal(err)
		}
		if len(ms) != dims {
			t.Fatalf("deferred %v: %d dimensions, want %d", deferred, len(ms), dims)
		}
		for k, m := range ms {
			if m.Dim != names[k] || !slices.Equal(m.Clusters, want(k, opus, 0, 1, 2)) {
				t.Errorf("deferred %v: %s %+v, want %s %+v", deferred, m.Dim, m.Clusters, names[k], want(k, opus, 0, 1, 2))
			}
		}
		// Every gap is 1 (10 stays 10): the first three in dimension then
		// audit order.
		if len(gaps) != 3 || gaps[0].Dim != "d00" || gaps[0].Audit != "a1" || gaps[1].Audit != "a2" || gaps[2].Audit != "a3" || math.Abs(gaps[0].B-gaps[0].A) != 1 {
			t.Errorf("deferred %v: gaps %+v", deferred, gaps)
		}
		// Two other judges: only a1 is judged by both.
		ms, _, err = s.JudgeMoments(ctx, "small", "sonnet", "opus", names[:2], 3)
		if err != nil {
			t.Fatal(err)
		}
		sonnet := func(k, i int) float64 { return max(1, eval(k, i)-1) }
		for k, m := range ms {
			x, y := sonnet(k, 0), opus(k, 0)
			w := model.Moments{N: 1, A: x, B: y, AA: x * x, BB: y * y, AB: x * y}
			if len(m.Clusters) != 1 || m.Clusters[0] != w {
				t.Errorf("sonnet against opus on %s: %+v, want %+v", m.Dim, m.Clusters, w)
			}
		}
		s.Close()
	}
}

// momentsBundle is bundle-small with 50 dimensions on audits a1, a2 (seed
// aq-01) and a3 (fp-01), more than there are score columns: the evaluation
// judge's d_k = (k + i) % 10 + 1 on audit i (momentsEval), judge "opus"
// one up (at most 10), judge "sonnet" one down on a1.
func momentsBundle(t *testing.T) (string, []string) {
	t.Helper()
	dir := copyBundle(t, filepath.Join("testdata", "bundle-small"))
	const dims = 50
	names := make([]string, dims)
	for k := range names {
		names[k] = fmt.Sprintf("d%02d", k)
	}
	eval := momentsEval
	var audits []string
	f, err := os.Open(filepath.Join(dir, "audits.jsonl"))
	if err != nil {
		t.Fatal(err)
	}
	sc := bufio.NewScanner(f)
	sc.Buffer(nil, 1<<24)
	var verdicts strings.Builder
	for sc.Scan() {
		var a map[string]any
		if err := json.Unmarshal(sc.Bytes(), &a); err != nil {
			t.Fatal(err)
		}
		if i := slices.Index([]string{"a1", "a2", "a3"}, a["id"].(string)); i >= 0 {
			scores, opus, sonnet := map[string]float64{}, map[string]float64{}, map[string]float64{}
			for k, d := range names {
				scores[d], opus[d] = eval(k, i), min(10, eval(k, i)+1)
				sonnet[d] = max(1, eval(k, i)-1)
			}
			a["scores"] = scores
			o, _ := json.Marshal(map[string]any{"audit": a["id"], "judge": "opus", "scores": opus})
			verdicts.Write(append(o, '\n'))
			if i == 0 {
				o, _ := json.Marshal(map[string]any{"audit": a["id"], "judge": "sonnet", "scores": sonnet})
				verdicts.Write(append(o, '\n'))
			}
		}
		b, _ := json.Marshal(a)
		audits = append(audits, string(b))
	}
	f.Close()
	os.WriteFile(filepath.Join(dir, "audits.jsonl"), []byte(strings.Join(audits, "\n")+"\n"), 0o644)
	os.WriteFile(filepath.Join(dir, "verdicts.jsonl"), []byte(verdicts.String()), 0o644)
	return dir, names
}

func momentsEval(k, i int) float64 { return float64((k+i)%10 + 1) }
