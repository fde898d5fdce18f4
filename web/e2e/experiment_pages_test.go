package e2e

import (
	"maps"
	"net/http"
	"regexp"
	"strings"
	"testing"
)

func TestRunPage(t *testing.T) {
	s := mustDemo(t)
	r := mustGet(t, s, "/runs/demo:ref-pairwise-cal50", http.StatusOK, "text/html")
	contains(t, "run page", r.Body, `data-testid="run-config"`, "reference_pairwise", `data-testid="checkpoints"`, "curves.svg", `data-testid="strategies"`, "controlled experimentation", "run=ref-pairwise-cal50")
	for _, ext := range []string{"svg", "png", "pdf"} {
		mustGet(t, s, "/runs/demo:ref-pairwise-cal50/figures/curves."+ext, http.StatusOK, "")
	}
	mustGet(t, s, "/runs/demo:ref-pairwise-cal50/figures/metric-reward.svg", http.StatusOK, "image/svg+xml")
	mustGet(t, s, "/runs/demo:ref-pairwise-cal50/figures/metric-nothing.svg", http.StatusNotFound, "")
	mustGet(t, s, "/runs/demo:nope", http.StatusNotFound, "text/html")
	mustGet(t, s, "/runs/nocolon", http.StatusNotFound, "text/html")
}

func TestCruxPage(t *testing.T) {
	s := mustDemo(t)
	r := mustGet(t, s, "/experiments/demo/crux", http.StatusOK, "text/html")
	contains(t, "crux", r.Body, `data-testid="crux-r2"`, "Held-out R², run out: 3 rates", "BCa 95%", "chance 0.06", "target_focused", "crux-realism.svg")
	mustGet(t, s, "/experiments/demo/figures/crux-realism.svg", http.StatusOK, "image/svg+xml")
	mustGet(t, s, "/experiments/demo/figures/crux-bogus.svg", http.StatusNotFound, "")
	// The small bundle has one checkpoint with crux data and an audit
	// quality value, none for the other dimensions: too few rows for a fit,
	// so every R² is shown as undefined rather than a made-up number.
	r = mustGet(t, s, "/experiments/small/crux", http.StatusOK, "text/html")
	undefined := regexp.MustCompile(`<tr><td>([^<]+)</td><td class="num">(\d+) \(\d+\)</td>(?:<td class="num">–</td>){2}(?:<td class="num">–<br><span class="muted">chance –</span></td>){2}<td>`)
	got := map[string]string{}
	for _, m := range undefined.FindAllStringSubmatch(r.Body, -1) {
		got[m[1]] = m[2]
	}
	want := map[string]string{"Audit quality": "1", "FP calibration": "0", "Production discovery": "0", "Realism": "0", "Composite": "0"}
	if !maps.Equal(got, want) {
		t.Errorf("small crux: rows with six undefined R² and their checkpoints %v, want %v", got, want)
	}
}

func TestRWRPage(t *testing.T) {
	s := mustDemo(t)
	r := mustGet(t, s, "/experiments/demo/rwr", http.StatusOK, "text/html")
	contains(t, "rwr", r.Body, `data-testid="rwr-table"`, "Held-out behaviors", "kind=reference", "split=heldout", `data-testid="rwr-behaviors"`,
		"Gap (points) [95% CI]", "redraws behaviors", `data-testid="rwr-thin"`, "1 win", `data-testid="rwr-targets"`, "llama-3.3-70b")
	// Every checkpoint's gap has its interval, and rwr.csv carries it.
	for _, row := range csvRows(t, mustGet(t, s, "/experiments/demo/rwr.csv", http.StatusOK, "text/csv").Body) {
		if row["split"] == "gap" && (row["lo"] == "" || row["hi"] == "" || !strings.Contains(row["interval"], "over behaviors")) {
			t.Errorf("gap row without its interval: %v", row)
		}
	}
	mustGet(t, s, "/experiments/demo/figures/rwr.svg", http.StatusOK, "image/svg+xml")
	// small: a1 (held out) won its reference judgment, a4 (train) tied.
	r = mustGet(t, s, "/experiments/small/rwr", http.StatusOK, "text/html")
	contains(t, "small rwr", r.Body, "50.0 [", "100.0 [")
}

func TestJudgments(t *testing.T) {
	s := mustDemo(t)
	r := mustGet(t, s, "/experiments/small/judgments?kind=reference&auditor=ref-cal50@e1&split=heldout", http.StatusOK, "text/html")
	contains(t, "judgment list", r.Body, "1 judgment</strong>", `href="/judgments/small:j1"`)
	r = mustGet(t, s, "/judgments/small:j3", http.StatusOK, "text/html")
	contains(t, "judgment page", r.Body, `data-testid="verdict"`, "preferred A, the left side (a1)", "a1 found the behavior.", `data-testid="side-Left"`, `data-testid="side-Right"`, "A (left side): a1", `href="/audits/small:a1"`)
	if strings.Contains(r.Body, "<script>alert(1)</script>") {
		t.Error("judgment page shows transcript HTML unescaped")
	}
	mustGet(t, s, "/judgments/small:nope", http.StatusNotFound, "text/html")
	mustGet(t, s, "/experiments/small/judgments?kind=vibes", http.StatusBadRequest, "text/html")
}

func TestTransferPage(t *testing.T) {
	s := mustDemo(t)
	r := mustGet(t, s, "/experiments/demo/transfer", http.StatusOK, "text/html")
	// Base Haiku: 11 of 96 detected with STC (the paper's 11.5%).
	contains(t, "transfer", r.Body, `data-testid="transfer-table"`, "11.5 [", "11 of 96 detected", "eval=auditbench_stc")
	mustGet(t, s, "/experiments/demo/figures/transfer.svg", http.StatusOK, "image/svg+xml")
}

func TestCyclesPage(t *testing.T) {
	s := mustDemo(t)
	r := mustGet(t, s, "/experiments/demo/cycles", http.StatusOK, "text/html")
	contains(t, "cycles", r.Body, `data-testid="cycle-counts"`, `data-testid="ranking"`, "3-cycles", "vs=")
	if strings.Contains(r.Body, "<strong>0 3-cycles</strong>") {
		t.Error("the demo's intransitive triples are missing")
	}
	mustGet(t, s, "/experiments/demo/figures/cycles.svg?max=5", http.StatusOK, "image/svg+xml")
	mustGet(t, s, "/experiments/demo/cycles?max=50", http.StatusBadRequest, "text/html")
	mustGet(t, s, "/experiments/demo/cycles?max=2", http.StatusBadRequest, "text/html")
}
