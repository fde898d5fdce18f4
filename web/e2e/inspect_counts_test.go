package e2e

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestInspectSamplesEpochs: the home page counts a log's samples and
// epochs apart ("3 samples × 2 epochs", not "6 samples"), and the scorer
// figure says the same, not n=6.
func TestInspectSamplesEpochs(t *testing.T) {
	var samples []string
	for id := 1; id <= 3; id++ {
		for ep := 1; ep <= 2; ep++ {
			samples = append(samples, fmt.Sprintf(`{"id": %d, "epoch": %d, "input": "q", "messages": [], "scores": {"match": {"value": %d}}}`, id, ep, (id+ep)%2))
		}
	}
	log := `{"version": 2, "status": "success", "eval": {"task": "t", "created": "2026-01-01T00:00:00+00:00", "model": "m/one", "dataset": {"name": "d"}, "config": {"epochs": 2}},
 "results": {"total_samples": 6, "completed_samples": 6, "scores": [{"name": "match", "scorer": "match", "metrics": {"accuracy": {"name": "accuracy", "value": 0.5}}}]},
 "samples": [` + strings.Join(samples, ", ") + `]}`
	dir := t.TempDir()
	if err := os.WriteFile(filepath.Join(dir, "epochs.json"), []byte(log), 0o644); err != nil {
		t.Fatal(err)
	}
	s := serveImported(t, dir)
	home := get(t, s, "/")
	if !strings.Contains(home.Body, "3 samples × 2 epochs") || strings.Contains(home.Body, "6 samples") {
		t.Errorf("the home page does not count 3 samples × 2 epochs:\n%s", home.Body[strings.Index(home.Body, "folder"):][:400])
	}
	// A real log of 2 samples × 2 epochs (inspect_ai's log_streaming.eval).
	real := t.TempDir()
	b, err := os.ReadFile(filepath.Join(inspectFixtures(t), "log_streaming.eval"))
	if err != nil {
		t.Fatal(err)
	}
	os.WriteFile(filepath.Join(real, "log_streaming.eval"), b, 0o644)
	rs := serveImported(t, real)
	if home := get(t, rs, "/"); !strings.Contains(home.Body, "2 samples × 2 epochs") || strings.Contains(home.Body, "4 samples") {
		t.Errorf("log_streaming.eval is not counted as 2 samples × 2 epochs")
	}
	// The list's rows are samples in epochs: counted as sample runs.
	if list := get(t, rs, "/audits?exp=folder"); !strings.Contains(list.Body, "1–4 of 4 sample runs") {
		t.Errorf("the list of log_streaming.eval does not count 4 sample runs")
	}
}
