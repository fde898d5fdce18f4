package web

import (
	"math"
	"net/http"
	"strconv"
	"strings"
	"testing"
)

// compareRows reads compare.csv by dimension.
func compareRows(t *testing.T, s *Server, q string) map[string]map[string]string {
	t.Helper()
	out := map[string]map[string]string{}
	for _, m := range csvRows(t, mustGet(t, s, "/experiments/demo/compare.csv?"+q, http.StatusOK, "text/csv").Body) {
		out[m["b"]+"/"+m["dimension"]] = m
	}
	return out
}

// TestCompareDemoByHand checks one pair on the demo by hand, from the
// audits the audit list exports: the headline checkpoint against Claude
// Opus 4.6. Audit quality is the mean difference over audits matched by
// behavior and seed; FP calibration's discordant pairs are counted by seed;
// the composite difference is the overview's composites subtracted.
func TestCompareDemoByHand(t *testing.T) {
	s := mustDemo(t)
	const a, b = "ref-pairwise-cal50@e3", "claude-opus-4.6"
	rows := compareRows(t, s, "a="+a+"&b="+b)
	audits := func(auditor, eval string) []map[string]string {
		return csvRows(t, mustGet(t, s, "/audits.csv?exp=demo&auditor="+auditor+"&eval="+eval, http.StatusOK, "text/csv").Body)
	}
	// Audit quality.
	qb := map[string]float64{}
	for _, m := range audits(b, "audit_quality") {
		qb[m["behavior"]+"|"+m["seed"]] = csvNum(t, m["quality"])
	}
	var sum float64
	var n int
	for _, m := range audits(a, "audit_quality") {
		if v, ok := qb[m["behavior"]+"|"+m["seed"]]; ok {
			sum += csvNum(t, m["quality"]) - v
			n++
		}
	}
	q := rows[b+"/audit_quality"]
	if n < 10 || !near(csvNum(t, q["diff"]), sum/float64(n)) || q["pairs"] != strconv.Itoa(n) {
		t.Errorf("audit quality: %v; by hand %v over %d pairs", q, sum/float64(n), n)
	}
	// FP calibration: the k-th audit of a seed on one side against the k-th
	// on the other.
	fpb := map[string][]bool{}
	for _, m := range audits(b, "fp_calibration") {
		fpb[m["seed"]] = append(fpb[m["seed"]], m["false_positive"] == "true")
	}
	seen := map[string]int{}
	onlyA, onlyB := 0, 0
	for _, m := range audits(a, "fp_calibration") {
		k := seen[m["seed"]]
		seen[m["seed"]]++
		if k >= len(fpb[m["seed"]]) {
			continue
		}
		fa, fb := m["false_positive"] == "true", fpb[m["seed"]][k]
		switch {
		case fa && !fb:
			onlyA++
		case fb && !fa:
			onlyB++
		}
	}
	if f := rows[b+"/fp_calibration"]; !strings.Contains(f["method"], "("+strconv.Itoa(onlyA)+" and "+strconv.Itoa(onlyB)+" discordant)") {
		t.Errorf("fp calibration: %v; by hand %d and %d discordant", f, onlyA, onlyB)
	}
	// The composite difference is the overview's.
	comp := map[string]float64{}
	for _, m := range csvRows(t, mustGet(t, s, "/experiments/demo/scores.csv", http.StatusOK, "text/csv").Body) {
		if m["dimension"] == "composite" {
			comp[m["auditor"]] = csvNum(t, m["value"])
		}
	}
	c := rows[b+"/composite"]
	if got, want := csvNum(t, c["diff"]), comp[a]-comp[b]; math.Abs(got-want) > 1e-9 {
		t.Errorf("composite difference %v, overview %v − %v = %v", got, comp[a], comp[b], want)
	}
	if lo, hi := csvNum(t, c["lo"]), csvNum(t, c["hi"]); !(lo < csvNum(t, c["diff"]) && csvNum(t, c["diff"]) < hi) {
		t.Errorf("composite interval [%v, %v] around %v", lo, hi, c["diff"])
	}
	// Holm never lowers a p-value and caps at 1.
	for k, m := range rows {
		if m["p"] == "" {
			continue
		}
		if p, ph := csvNum(t, m["p"]), csvNum(t, m["p_holm"]); ph < p || ph > 1 {
			t.Errorf("%s: p %v, Holm %v", k, p, ph)
		}
	}
}

// TestComparePage: the page, its presets, the overview's links, the
// figure and the refusals.
func TestComparePage(t *testing.T) {
	s := mustDemo(t)
	r := mustGet(t, s, "/experiments/demo/compare?a=ref-pairwise-cal50@e3&b=claude-opus-4.6&b=claude-haiku-4.5", http.StatusOK, "text/html")
	contains(t, "compare page", r.Body, `data-testid="compare-table"`, `data-testid="compare-behaviors"`, "p (Holm)",
		"paired t on 30 behavior × seed pairs", "Newcombe paired interval", "paired percentile bootstrap",
		`data-testid="compare-presets"`, "epoch 3 against epoch 1", "against its base model Claude Haiku 4.5",
		"Reference pairwise, refresh 50, 4/8 calibration, multi-target against Reference pairwise, refresh 50, 4/8 calibration (headline), step 450")
	if n := strings.Count(r.Body, `data-testid="compare-table"`); n != 2 {
		t.Errorf("%d comparison tables, want 2", n)
	}
	// Four compute-matched multi- against single-target pairs.
	if n := strings.Count(r.Body, `<span class="tag">multi-target</span>`); n != 4 {
		t.Errorf("%d multi-target presets, want 4", n)
	}
	ov := mustGet(t, s, "/experiments/demo", http.StatusOK, "text/html")
	contains(t, "overview", ov.Body, `data-testid="compare-link"`, `href="/experiments/demo/compare?a=claude-opus-4.6"`)
	for _, f := range []string{"png", "svg", "pdf"} {
		mustGet(t, s, "/experiments/demo/figures/compare."+f+"?a=ref-pairwise-cal50@e3&b=claude-opus-4.6", http.StatusOK, "")
	}
	mustGet(t, s, "/experiments/demo/compare", http.StatusOK, "text/html")
	mustGet(t, s, "/experiments/demo/compare?a=nobody&b=claude-opus-4.6", http.StatusBadRequest, "")
	mustGet(t, s, "/experiments/demo/compare?a=claude-opus-4.6&b=claude-opus-4.6", http.StatusBadRequest, "")
	mustGet(t, s, "/experiments/demo/compare?b=claude-opus-4.6", http.StatusBadRequest, "")
	mustGet(t, s, "/experiments/demo/compare.csv?a=claude-opus-4.6", http.StatusBadRequest, "")
}

// TestPairsCompare: two annotators against one reference.
func TestPairsCompare(t *testing.T) {
	s := mustDemo(t)
	r := mustGet(t, s, "/pairs/synthetic-personality-demo/compare?a=2b7373d4&b=fe99eeb3&ref=a81a4d29", http.StatusOK, "text/html")
	contains(t, "pairs compare", r.Body, `data-testid="pairs-compare-table"`, "agreement", "strength", "McNemar", "paired t on")
	mustGet(t, s, "/pairs/synthetic-personality-demo/compare", http.StatusOK, "text/html")
	mustGet(t, s, "/pairs/synthetic-personality-demo/compare?a=nobody&b=fe99eeb3", http.StatusBadRequest, "")
	mustGet(t, s, "/pairs/synthetic-personality-demo/compare?a=fe99eeb3&b=fe99eeb3", http.StatusBadRequest, "")
	ex := mustGet(t, s, "/pairs/synthetic-personality-demo", http.StatusOK, "text/html")
	contains(t, "explorer link", ex.Body, `data-testid="pairs-compare-link"`)
}
