package e2e

import (
	"net/http"
	"strings"
	"testing"
)

// Each page's query struct reads back what it writes: parse(values(q)) == q.

// TestRankingFailedFit: an experiment whose Bradley–Terry fit fails (an
// auditor that never wins) shows "–" with the reason, and its ranking.csv
// leaves the strengths empty, never 0.
func TestRankingFailedFit(t *testing.T) {
	s := mustDemo(t)
	r := mustGet(t, s, "/experiments/small/ranking.csv?kind=intragroup", 200, "text/csv")
	for _, line := range strings.Split(strings.TrimSpace(r.Body), "\n")[1:] {
		f := strings.Split(line, ",")
		if f[1] != "" || f[7] != "" {
			t.Errorf("a failed fit wrote a strength or rank: %s", line)
		}
	}
	page := mustGet(t, s, "/experiments/small/cycles?kind=intragroup", 200, "text/html")
	contains(t, "cycles page", page.Body, "No Bradley–Terry ranking", "ties not counted")
	demo := mustGet(t, s, "/experiments/demo/cycles?kind=intragroup", 200, "text/html")
	contains(t, "demo cycles page", demo.Body, `data-testid="bt-anchor"`, "(anchor)", "fixed at 0")
}

// TestPairsSmallSamplesMarked: a dataset of one comparison shows its
// strengths faded and marked, with the note; the demo's large one does not.
func TestPairsSmallSamplesMarked(t *testing.T) {
	s := mustDemo(t)
	r := mustGet(t, s, "/pairs/icai-example-v2-40-principles", http.StatusOK, "text/html")
	contains(t, "one-comparison dataset", r.Body, `class="num thin `, `data-testid="pairs-thin-note"`, "a small sample")
	r = mustGet(t, s, "/pairs/synthetic-personality-demo", http.StatusOK, "text/html")
	if strings.Contains(r.Body, `data-testid="pairs-thin-note"`) {
		t.Error("the 3,000-comparison demo is marked as a small sample")
	}
}

// TestRWRUnknownRun: the RWR page answers an unknown run with a 400 that
// lists the runs, as the list pages do.
func TestRWRUnknownRun(t *testing.T) {
	r := get(t, mustDemo(t), "/experiments/demo/rwr?run=nope")
	if r.Code != http.StatusBadRequest || !strings.Contains(r.Body, "run: unknown value") || !strings.Contains(r.Body, "binary-pointwise") {
		t.Errorf("run=nope: %d %.300s", r.Code, r.Body)
	}
}

// TestJudgmentsBadValues: the judgments list follows the list pages' rule:
// an unknown auditor or behavior is a 400 with the choices, a page past the
// end goes to the last page.
func TestJudgmentsBadValues(t *testing.T) {
	s := mustDemo(t)
	for q, want := range map[string]string{
		"auditor=nope":  "auditor: unknown value",
		"vs=nope":       "vs: unknown value",
		"behavior=nope": "behavior: unknown value",
		"split=nope":    "split: want",
		"kind=nope":     "kind: want",
	} {
		r := get(t, s, "/experiments/demo/judgments?"+q)
		if r.Code != http.StatusBadRequest || !strings.Contains(r.Body, want) {
			t.Errorf("%s: %d, want 400 saying %q", q, r.Code, want)
		}
	}
	if r := get(t, s, "/experiments/demo/judgments?page=99999"); r.Code != http.StatusSeeOther {
		t.Errorf("page past the end: %d", r.Code)
	}
	mustGet(t, s, "/experiments/demo/judgments?kind=realism&page=2", http.StatusOK, "text/html")
}

// TestJudgmentsShowNames: the judgments list names auditors as the rest of
// the dashboard does, and external items without their prefix.
func TestJudgmentsShowNames(t *testing.T) {
	r := mustGet(t, mustDemo(t), "/experiments/demo/judgments?kind=reference", http.StatusOK, "text/html")
	contains(t, "judgments", r.Body, "Binary pointwise · epoch 1", "(external)")
	if strings.Contains(r.Body, ">ext:") {
		t.Error("an external item is shown with its ext: prefix")
	}
}

// TestComparisonsBadValues: the comparisons list follows the list pages'
// rule for an unknown annotator or reference.
func TestComparisonsBadValues(t *testing.T) {
	s := mustDemo(t)
	for _, q := range []string{"ann=nope", "ref=nope"} {
		r := get(t, s, "/pairs/synthetic-personality-demo/comparisons?"+q)
		param := strings.SplitN(q, "=", 2)[0]
		if r.Code != http.StatusBadRequest || !strings.Contains(r.Body, param+": unknown value") || !strings.Contains(r.Body, "nearest") {
			t.Errorf("%s: %d %.300s", q, r.Code, r.Body)
		}
	}
}
