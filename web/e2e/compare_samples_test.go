package e2e

import (
	"net/http"
	"strings"
	"testing"
)

// TestSamplesCompare: two models of one task compare sample by sample:
// sample 1 pairs across the models' logs (the ids are the samples', not
// the logs'), the 0/1 metric gets McNemar with the units page's counts
// equal to the row's, and a shared sample opens side by side in Inspect's
// terms.
func TestSamplesCompare(t *testing.T) {
	s := samplesServer(t)
	const q = "a=openai%2Fgpt-4o-mini&b=ollama%2Fllama3.1"
	rows := csvRows(t, mustGet(t, s, "/experiments/pop/compare.csv?"+q+"&b=ollama%2Fgemma3", http.StatusOK, "text/csv").Body)
	if len(rows) != 2 {
		t.Fatalf("%d rows: %v", len(rows), rows)
	}
	// gpt-4o-mini answered samples 1–3 (C, C, I), llama3.1 sample 1 (I),
	// gemma3 sample 1 (C).
	want := map[string]string{"ollama/llama3.1": "1 1 1 1 0 1", "ollama/gemma3": "1 1 0 0 0 1"}
	for _, r := range rows {
		got := strings.Join([]string{r["n_b"], r["pairs"], r["diff"], r["only_a"], r["only_b"], r["p"]}, " ")
		if r["dimension"] != "match" || r["n_a"] != "3" || got != want[r["b"]] || !strings.Contains(r["method"], "McNemar") {
			t.Errorf("%s: %v (n_b pairs diff only_a only_b p = %s, want %s)", r["b"], r, got, want[r["b"]])
		}
	}
	page := mustGet(t, s, "/experiments/pop/compare?"+q, http.StatusOK, "text/html").Body
	contains(t, "compare page", page, `data-testid="compare-samples-intro"`, `href="/experiments/pop/compare/units?a=openai%2Fgpt-4o-mini&amp;b=ollama%2Fllama3.1&amp;dim=match"`)
	units := csvRows(t, mustGet(t, s, "/experiments/pop/compare/units.csv?"+q+"&dim=match&sort=unit", http.StatusOK, "text/csv").Body)
	if len(units) != 3 || units[0]["sample"] != "1" || units[0]["paired"] != "true" || units[0]["diff"] != "1" ||
		units[1]["b_records"] != "" || units[0]["b_records"] != "log_formats.json--1_epoch_1" {
		t.Errorf("units: %v", units)
	}
	up := mustGet(t, s, "/experiments/pop/compare/units?"+q+"&dim=match", http.StatusOK, "text/html").Body
	contains(t, "units page", up, "A has 3 samples, B has 1; 1 paired", "popularity × sample 1",
		`href="/audits/side-by-side?a=pop%3Apopularity.json--1_epoch_1&amp;b=pop%3Alog_formats.json--1_epoch_1"`)
	for _, c := range []struct{ q, param string }{{q + "&dim=nope", "dim"}, {q, "dim"}, {"a=nobody&b=ollama%2Fllama3.1&dim=match", "a"}} {
		if r := get(t, s, "/experiments/pop/compare/units?"+c.q); r.Code != http.StatusBadRequest || !strings.Contains(r.Body, c.param+":") {
			t.Errorf("%s: %d, want 400 naming %s", c.q, r.Code, c.param)
		}
	}
	sbs := mustGet(t, s, "/audits/side-by-side?a=pop:popularity.json--1_epoch_1&b=pop:log_formats.json--1_epoch_1", http.StatusOK, "text/html").Body
	contains(t, "side by side", sbs, `data-testid="sbs-scorers"`, "<td>C = 1</td><td>I = 0</td>", "<th>Sample</th><td>1</td><td>1</td>")
	if fig := get(t, s, "/experiments/pop/figures/compare.svg?"+q); fig.Code != http.StatusOK || !strings.Contains(fig.Body, "match") {
		t.Errorf("the figure: %d", fig.Code)
	}
}
