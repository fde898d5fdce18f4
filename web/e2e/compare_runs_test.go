package e2e

import (
	"context"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/auditscope/auditscope/data"
)

// TestSamplesCompareRuns: a folder with two runs of gpt-4o-mini on one
// task (popularity.json: samples 1–3 once, C C I; its rerun, derived from
// it: each sample 5 epochs, all I) is not pooled as epochs: sample 1 of A
// is (1 + 0)/2 = 0.5 (each run's epochs averaged, then the runs), not
// (1 + 5·0)/6, and the comparison says it averaged two runs.
func TestSamplesCompareRuns(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "runs")
	os.Mkdir(dir, 0o755)
	for _, f := range []string{filepath.Join(inspectFixtures(t), "popularity.json"), filepath.Join(inspectFixtures(t), "..", "derived", "popularity-rerun.json"),
		filepath.Join(inspectFixtures(t), "log_formats.json")} {
		b, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		os.WriteFile(filepath.Join(dir, filepath.Base(f)), b, 0o644)
	}
	store := mustStore(t)
	if _, err := store.Import(context.Background(), dir, data.ImportOptions{}); err != nil {
		t.Fatal(err)
	}
	s := quietServer(store)
	const q = "a=openai%2Fgpt-4o-mini&b=ollama%2Fllama3.1&dim=match&sort=unit"
	units := csvRows(t, mustGet(t, s, "/experiments/runs/compare/units.csv?"+q, http.StatusOK, "text/csv").Body)
	// 0.5 is no longer a 0/1 value, and one sample is paired: too few for
	// a paired t, so the unit is shown unpaired.
	if len(units) != 3 || units[0]["sample"] != "1" || units[0]["a_value"] != "0.5" || units[0]["b_value"] != "0" {
		t.Errorf("sample 1: %v, want A = 0.5 (two runs averaged), not 1/6 (pooled as epochs)", units[0])
	}
	rows := csvRows(t, mustGet(t, s, "/experiments/runs/compare.csv?a=openai%2Fgpt-4o-mini&b=ollama%2Fllama3.1", http.StatusOK, "text/csv").Body)
	if len(rows) != 1 || !strings.Contains(rows[0]["method"], "up to 2 runs (logs) for A") {
		t.Errorf("the comparison does not say it averaged runs: %v", rows)
	}
}
