package web

import (
	"encoding/csv"
	"net/http"
	"strconv"
	"strings"
	"testing"
)

func TestHome(t *testing.T) {
	s := mustDemo(t)
	r := mustGet(t, s, "/", http.StatusOK, "text/html")
	contains(t, "home", r.Body, `href="/experiments/demo"`, "synthetic demo data", `href="/pairs/icai-example-v2-models"`, "Comparisons")
	for _, h := range []string{"Content-Security-Policy", "X-Content-Type-Options", "Referrer-Policy"} {
		if r.Header.Get(h) == "" {
			t.Errorf("header %s missing", h)
		}
	}
	if csp := r.Header.Get("Content-Security-Policy"); !strings.Contains(csp, "frame-ancestors 'none'") || strings.Contains(csp, "unsafe-inline") {
		t.Errorf("CSP %q", csp)
	}
}

func TestStatic(t *testing.T) {
	s := mustDemo(t)
	mustGet(t, s, "/static/style.css", http.StatusOK, "text/css")
	mustGet(t, s, "/static/app.js", http.StatusOK, "text/javascript")
}

func TestExperimentOverview(t *testing.T) {
	s := mustDemo(t)
	r := mustGet(t, s, "/experiments/demo", http.StatusOK, "text/html")
	contains(t, "overview", r.Body, `data-testid="scores-table"`, "Claude Opus 4.6", "Composite", `data-testid="correlations"`, "synthetic demo data", "scores.svg")
	r = mustGet(t, s, "/experiments/demo?kind=baseline&sort=composite&dir=desc", http.StatusOK, "text/html")
	if strings.Contains(r.Body, "@e1") {
		t.Errorf("baseline filter shows a checkpoint")
	}
	mustGet(t, s, "/experiments/demo?sort=nonsense", http.StatusBadRequest, "text/html")
	mustGet(t, s, "/experiments/demo?cal=abc", http.StatusBadRequest, "text/html")
	mustGet(t, s, "/experiments/nope", http.StatusNotFound, "text/html")
}

func TestScoresCSV(t *testing.T) {
	s := mustDemo(t)
	r := mustGet(t, s, "/experiments/demo/scores.csv", http.StatusOK, "text/csv")
	recs, err := csv.NewReader(strings.NewReader(r.Body)).ReadAll()
	if err != nil {
		t.Fatal(err)
	}
	if got := strings.Join(recs[0], ","); got != "auditor,dimension,value,lo,hi,n" {
		t.Fatalf("header = %q", got)
	}
	composite := map[string]float64{}
	dims := map[string]map[string]float64{}
	for _, rec := range recs[1:] {
		if rec[2] == "" {
			continue
		}
		v, err := strconv.ParseFloat(rec[2], 64)
		if err != nil {
			t.Fatal(err)
		}
		if dims[rec[0]] == nil {
			dims[rec[0]] = map[string]float64{}
		}
		dims[rec[0]][rec[1]] = v
		if rec[1] == "composite" {
			composite[rec[0]] = v
		}
	}
	// The composite is the plain mean of the four dimensions.
	for a, c := range composite {
		d := dims[a]
		mean := (d["audit_quality"] + d["fp_calibration"] + d["production"] + d["realism"]) / 4
		if diff := c - mean; diff > 1e-9 || diff < -1e-9 {
			t.Errorf("%s: composite %v, mean of four %v", a, c, mean)
		}
	}
	if len(composite) < 10 {
		t.Errorf("only %d auditors with a composite", len(composite))
	}
}

func TestExperimentFigures(t *testing.T) {
	s := mustDemo(t)
	for ext, ct := range map[string]string{"png": "image/png", "svg": "image/svg+xml", "pdf": "application/pdf"} {
		r := mustGet(t, s, "/experiments/demo/figures/scores."+ext+"?dim=realism&kind=baseline", http.StatusOK, ct)
		if len(r.Body) < 500 {
			t.Errorf("%s figure is only %d bytes", ext, len(r.Body))
		}
	}
	mustGet(t, s, "/experiments/demo/figures/scores.gif", http.StatusNotFound, "")
	mustGet(t, s, "/experiments/demo/figures/scores.svg?dim=bogus", http.StatusBadRequest, "")
}
