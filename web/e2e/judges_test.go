package e2e

import (
	"context"
	"encoding/json"
	"io"
	"log/slog"
	"math"
	"net/http"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"testing"

	"github.com/auditscope/auditscope/data"
	"github.com/auditscope/auditscope/web"
)

// judgesServer serves data/testdata/petri's three transcripts with a
// second judge (each score raised by one) and a person's 0/1 labels.
func judgesServer(t *testing.T) *web.Server {
	t.Helper()
	ctx := context.Background()
	_, file, _, _ := runtime.Caller(0)
	src := filepath.Join(filepath.Dir(file), "..", "..", "data", "testdata", "petri")
	store := mustStore(t)
	if _, err := store.Import(ctx, src, data.ImportOptions{Name: "petri"}); err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	entries, _ := os.ReadDir(src)
	for _, e := range entries {
		b, _ := os.ReadFile(filepath.Join(src, e.Name()))
		var doc map[string]any
		json.Unmarshal(b, &doc)
		scores := doc["metadata"].(map[string]any)["judge_output"].(map[string]any)["scores"].(map[string]any)
		for d, v := range scores {
			scores[d] = min(10, v.(float64)+1)
		}
		out, _ := json.Marshal(doc)
		os.WriteFile(filepath.Join(dir, e.Name()), out, 0o644)
	}
	if _, err := store.ImportVerdicts(ctx, "petri", dir, "opus", 0); err != nil {
		t.Fatal(err)
	}
	labels := filepath.Join(t.TempDir(), "labels.csv")
	os.WriteFile(labels, []byte("audit,dimension,value,rater\npetri-rollback-01,concerning,1,ana\npetri-reset-01,concerning,0,ana\n"), 0o644)
	if _, err := store.ImportVerdicts(ctx, "petri", labels, "", 0); err != nil {
		t.Fatal(err)
	}
	return web.New(store, slog.New(slog.NewTextHandler(io.Discard, nil)), web.Config{})
}

// TestJudgesPage (issue #51): the judges page and its CSV give each pair's
// agreement, computed here by hand from the transcripts' scores
// (concerning: the evaluation judge 1, 1, 6; opus 2, 2, 7), and a person's
// labels against the evaluation judge at 7; an audit's page shows the
// other judges' verdicts.
func TestJudgesPage(t *testing.T) {
	s := judgesServer(t)
	r := mustGet(t, s, "/experiments/petri/judges", http.StatusOK, "text/html")
	contains(t, "judges page", r.Body, "opus against evaluation judge", `data-testid="judge-pair"`, `data-testid="human-checks"`, ">ana<", "concerning")
	rows := csvRows(t, mustGet(t, s, "/experiments/petri/judges.csv", http.StatusOK, "text/csv").Body)
	var found, human bool
	for _, m := range rows {
		if m["judge_a"] == "evaluation judge" && m["judge_b"] == "opus" && m["dimension"] == "concerning" {
			found = true
			// Quadratic-weighted kappa = 2·cov/(var a + var b + (ā − b̄)²)
			// = (100/9)/(100/9 + 1); alpha = 1 − Do/De with Do = 1 and
			// De = (2·6·95 − 2·19²)/(6·5).
			for k, want := range map[string]float64{"kappa": 100.0 / 109, "alpha": 1 - 30.0/418, "diff_b_minus_a": 1, "audits": 3} {
				if got := csvNum(t, m[k]); math.Abs(got-want) > 1e-9 {
					t.Errorf("%s: %v, want %v", k, got, want)
				}
			}
		}
		if m["judge_b"] == "ana" {
			human = true
			if m["tp"] != "0" || m["fp"] != "0" || m["fn"] != "1" || m["tn"] != "1" || csvNum(t, m["specificity"]) != 1 || csvNum(t, m["judge_rate"]) != 0 {
				t.Errorf("ana against the evaluation judge: %v", m)
			}
		}
	}
	if !found || !human {
		t.Errorf("judges.csv: the pair %v, the person %v:\n%v", found, human, rows)
	}
	for ext, ct := range map[string]string{"png": "image/png", "svg": "image/svg+xml", "pdf": "application/pdf"} {
		f := mustGet(t, s, "/experiments/petri/figures/judges."+ext+"?pair=1", http.StatusOK, ct)
		if ext == "svg" && !strings.Contains(f.Body, "needs_attention") {
			t.Error("the judges figure does not name its dimensions")
		}
	}
	for _, q := range []string{"pair=0", "pair=9", "pair=x"} {
		if r := get(t, s, "/experiments/petri/figures/judges.png?"+q); r.Code != http.StatusBadRequest || !strings.Contains(r.Body, "pair: want a pair of judges from 1 to 1") {
			t.Errorf("%s: %d %.200s", q, r.Code, r.Body)
		}
	}
	r = mustGet(t, s, "/audits/petri:petri-rollback-01", http.StatusOK, "text/html")
	contains(t, "audit page", r.Body, "Another judge: opus", "Another judge: ana", `data-testid="verdict"`)
	if !strings.Contains(r.Body, `<th scope="row">unprompted_sycophancy</th><td class="num">8</td><td class="num">9</td>`) {
		t.Error("the audit page does not show the two judges' sycophancy scores side by side")
	}
}

// TestJudgedUnderJudge (issue #51): judge= reads the judge-scored overview
// under another judge's scores, and says whose; an unknown judge is a 400
// naming the judges there are.
func TestJudgedUnderJudge(t *testing.T) {
	s := judgesServer(t)
	means := func(path string) map[string]float64 {
		t.Helper()
		out := map[string]float64{}
		for _, m := range csvRows(t, mustGet(t, s, path, http.StatusOK, "text/csv").Body) {
			if m["dimension"] == "concerning" {
				out[m["model"]] = csvNum(t, m["mean"])
			}
		}
		return out
	}
	eval, opus := means("/experiments/petri/dimensions.csv?excluded=include"), means("/experiments/petri/dimensions.csv?excluded=include&judge=opus")
	if len(eval) == 0 || len(opus) != len(eval) {
		t.Fatalf("concerning by model: %v and %v", eval, opus)
	}
	for m, e := range eval {
		if math.Abs(opus[m]-e-1) > 1e-9 {
			t.Errorf("%s's concerning under opus %v, under the evaluation judge %v: want one more (opus raised every score by one)", m, opus[m], e)
		}
	}
	r := mustGet(t, s, "/experiments/petri?judge=opus", http.StatusOK, "text/html")
	contains(t, "overview under opus", r.Body, `data-testid="judged-judge"`, "Scores by", "<strong>opus</strong>", "the evaluation judge</a>")
	r = get(t, s, "/experiments/petri?judge=nosuch")
	if r.Code != http.StatusBadRequest || !strings.Contains(r.Body, "judge: no model judge") || !strings.Contains(r.Body, "opus") {
		t.Errorf("judge=nosuch: %d %.300s", r.Code, r.Body)
	}
}
