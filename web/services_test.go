package web

import (
	"context"
	"errors"
	"fmt"
	"math"
	"net/http"
	"strings"
	"testing"

	"github.com/auditscope/auditscope/data/model"
	"github.com/auditscope/auditscope/web/app"
)

// fakeRuns is the run pages' whole view of the application layer
// (runReader), written by hand: one run, "x:r1", of two checkpoints. The
// run page and its CSVs are tested on it alone, with no store, no
// statistics computed and nothing else of the Service.
type fakeRuns struct {
	page    *app.RunPage
	metrics []model.Metric
	counts  []model.LabelCount
	err     error // what Metrics fails with, when set
}

func (f fakeRuns) Run(_ context.Context, key, _ string) (*app.RunPage, error) {
	if key != f.page.Run.Key {
		return nil, fmt.Errorf("run %q: %w", key, model.ErrNotFound)
	}
	return f.page, nil
}

func (f fakeRuns) Metrics(context.Context, *app.RunPage) ([]model.Metric, error) {
	return f.metrics, f.err
}

func (f fakeRuns) StrategyCounts(context.Context, *app.RunPage) ([]model.LabelCount, error) {
	return f.counts, nil
}

func (f fakeRuns) RunJudges(context.Context, *app.RunPage) ([]app.RunJudge, error) { return nil, nil }

// handRun is fakeRuns' run: epoch 1 detects 1 behavior of 4 on the default
// AuditBench evaluation, epoch 2 3 of 4 (the intervals are Wilson's, from
// wilson), and two training-time scalars at two steps.
func handRun() fakeRuns {
	epoch := func(n int64) *int64 { return &n }
	cp := func(id string, e int64, k float64) app.AuditorScores {
		lo, hi := wilson(k, 4)
		a := app.AuditorScores{
			Auditor: model.Auditor{Key: "x:" + id, ID: id, Name: id, Kind: model.AuditorCheckpoint, Run: "r1", Epoch: epoch(e), Step: epoch(100 * e)},
			Score:   map[string]app.Estimate{},
			N:       map[string]int{model.EvalAuditBenchDefault: 4},
		}
		// The other evaluations have no audits: undefined, as the
		// Service says so.
		for _, d := range app.Dimensions {
			a.Score[d] = app.Estimate{Value: math.NaN(), Lo: math.NaN(), Hi: math.NaN()}
		}
		a.Score[model.EvalAuditBenchDefault] = app.Estimate{Value: 100 * k / 4, Lo: 100 * lo, Hi: 100 * hi}
		return a
	}
	exp := model.Experiment{ID: "x", Name: "Hand made"}
	return fakeRuns{
		page: &app.RunPage{Run: model.Run{Key: "x:r1", ID: "r1", Name: "Run <one>"}, Stats: &app.ExperimentStats{Exp: exp},
			Checkpoints: []app.AuditorScores{cp("r1@e1", 1, 1), cp("r1@e2", 2, 3)}},
		metrics: []model.Metric{{Step: 100, Name: "loss", Value: 0.5}, {Step: 200, Name: "loss", Value: 0.25}, {Step: 200, Name: "reward", Value: 1.5}},
		counts:  []model.LabelCount{{Auditor: "r1@e2", Epoch: epoch(2), Strategy: "roleplay", N: 3}},
	}
}

// TestRunPageOverFakeRuns serves the run pages over fakeRuns in place of
// the application layer: the page names the checkpoints by epoch with their
// rates and intervals, escapes the run's name, and lists its scalars; the
// CSVs carry the fake's numbers as they are; an unknown run is a 404 and a
// failing read a 500 that does not show the reader's words.
func TestRunPageOverFakeRuns(t *testing.T) {
	s := fakeServer(t, handMade(), Config{})
	f := handRun()
	s.runs = f

	page := mustGet(t, s, "/runs/x:r1", http.StatusOK, "text/html").Body
	lo, hi := wilson(3, 4)
	lo1, hi1 := wilson(1, 4)
	contains(t, "run page", page, "Run &lt;one&gt;", "epoch 1", "epoch 2", "loss", "reward", "roleplay",
		fmt.Sprintf(`75.0 <span class="ci">[%.1f, %.1f]</span>`, 100*lo, 100*hi), fmt.Sprintf(`25.0 <span class="ci">[%.1f, %.1f]</span>`, 100*lo1, 100*hi1))
	if strings.Contains(page, "Run <one>") {
		t.Error("the run's name is not escaped")
	}

	rows := csvRows(t, mustGet(t, s, "/runs/x:r1/checkpoints.csv", http.StatusOK, "text/csv").Body)
	var got int
	for _, r := range rows {
		if r["dimension"] != model.EvalAuditBenchDefault {
			continue
		}
		got++
		k := map[string]float64{"r1@e1": 1, "r1@e2": 3}[r["auditor"]]
		lo, hi := wilson(k, 4)
		if !near(csvNum(t, r["value"]), 100*k/4) || !near(csvNum(t, r["lo"]), 100*lo) || !near(csvNum(t, r["hi"]), 100*hi) || r["n"] != "4" {
			t.Errorf("checkpoints.csv %s: %v, want %g [%g, %g] n 4", r["auditor"], r, 100*k/4, 100*lo, 100*hi)
		}
		if want := map[string]string{"r1@e1": "1", "r1@e2": "2"}[r["auditor"]]; r["epoch"] != want {
			t.Errorf("checkpoints.csv %s: epoch %q, want %q", r["auditor"], r["epoch"], want)
		}
	}
	if got != 2 {
		t.Errorf("checkpoints.csv has %d rows of the default evaluation, want 2", got)
	}

	metrics := csvRows(t, mustGet(t, s, "/runs/x:r1/metrics.csv", http.StatusOK, "text/csv").Body)
	if len(metrics) != 3 || metrics[1]["step"] != "200" || metrics[1]["name"] != "loss" || csvNum(t, metrics[1]["value"]) != 0.25 ||
		csvNum(t, metrics[2]["value"]) != 1.5 {
		t.Errorf("metrics.csv: %v", metrics)
	}

	mustGet(t, s, "/runs/x:nope", http.StatusNotFound, "text/html")
	// A server of its own: the first one keeps its answers by URL.
	f.err = errors.New("the disk is gone")
	s = fakeServer(t, handMade(), Config{})
	s.runs = f
	if r := get(t, s, "/runs/x:r1/metrics.csv"); r.Code != http.StatusInternalServerError || strings.Contains(r.Body, "disk") {
		t.Errorf("a failing read: %d %q, want a 500 that does not show the error", r.Code, r.Body)
	}
}
