package e2e

import (
	"encoding/csv"
	"fmt"
	"math"
	"net/http"
	"net/url"
	"regexp"
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
	if got := strings.Join(recs[0], ","); got != "auditor,dimension,value,lo,hi,n,interval" {
		t.Fatalf("header = %q", got)
	}
	// Each row names its interval; AuditBench and audit quality cluster by
	// behavior (issue #48: the audits' intervals were 2.6–3.8× too narrow).
	for _, rec := range recs[1:] {
		want := map[string]string{"audit_quality": "clustered by behavior", "auditbench_stc": "design effect over", "auditbench_default": "design effect over",
			"fp_calibration": "Wilson", "production": "t over production seeds", "realism": "Wilson", "composite": "bootstrap"}[rec[1]]
		if rec[2] != "" && !strings.Contains(rec[6], want) {
			t.Errorf("%s %s: interval %q, want %q", rec[0], rec[1], rec[6], want)
		}
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

// TestOverviewRanking: the overview leads with the auditors ranked by
// composite; the best is the top of scores.csv's composite; each row's
// difference from the best and p-value are the compare page's, which its
// verdict links to; the answer counts the rows marked not distinguishable.
func TestOverviewRanking(t *testing.T) {
	// Independent of the other tests (a server of its own on the
	// read-only demo): run beside them, on the other core.
	t.Parallel()
	s := mustDemo(t)
	body := mustGet(t, s, "/experiments/demo", http.StatusOK, "text/html").Body
	if i, j := strings.Index(body, `data-testid="ranking"`), strings.Index(body, `data-testid="scores-table"`); i < 0 || j < i {
		t.Fatalf("the ranking is missing or comes after the scores table (%d, %d)", i, j)
	}
	// The best by scores.csv's composite.
	recs, err := csv.NewReader(strings.NewReader(mustGet(t, s, "/experiments/demo/scores.csv", http.StatusOK, "text/csv").Body)).ReadAll()
	if err != nil {
		t.Fatal(err)
	}
	best, bestV, ranked := "", -1.0, 0
	for _, r := range recs[1:] {
		if v, err := strconv.ParseFloat(r[2], 64); r[1] == "composite" && err == nil {
			ranked++
			if v > bestV {
				best, bestV = r[0], v
			}
		}
	}
	rowRe := regexp.MustCompile(`(?s)<tr data-testid="ranking-row"><td class="num">(\d+)</td><td>([^<]*)</td><td class="num">([0-9.]+) \[[^<]*</td>.*?<td class="num"[^>]*>(?:<span class="muted">—</span>|([^<]*))</td><td class="num">([^<]*)</td><td class="num">([^<]*)</td><td>(?:<strong>best</strong>|<a class="rank-verdict" href="([^"]*)"[^>]*>([^<]*)</a>)</td></tr>`)
	rows := rowRe.FindAllStringSubmatch(body, -1)
	if len(rows) != ranked || ranked < 50 {
		t.Fatalf("%d ranking rows, %d auditors with a composite", len(rows), ranked)
	}
	if want := "/experiments/demo/compare?a=" + url.QueryEscape(best) + "&amp;b="; !strings.HasPrefix(rows[1][7], want) {
		t.Errorf("the second row links to %q, want the compare page of %s", rows[1][7], best)
	}
	prev, tied := 101.0, 0
	for i, r := range rows {
		v, _ := strconv.ParseFloat(r[3], 64)
		if r[1] != strconv.Itoa(i+1) || v > prev {
			t.Errorf("row %d: rank %s, composite %v after %v", i, r[1], v, prev)
		}
		prev = v
		if i == 0 {
			if math.Abs(v-bestV) > 0.05 || r[7] != "" {
				t.Errorf("the first row %q, want %s at %.1f", r[0], best, bestV)
			}
			continue
		}
		if r[8] == "not distinguishable" {
			tied++
		}
		// The verdict is the interval's (issue #48: a p of 0.052 beside an
		// interval excluding 0 was called not distinguishable), and the
		// Holm column, over the ranking's family, is never below p.
		var lo, hi float64
		if _, err := fmt.Sscanf(r[4][strings.Index(r[4], "[")+1:], "%g, %g]", &lo, &hi); err != nil {
			t.Fatalf("row %d: interval %q: %v", i, r[4], err)
		}
		if (r[8] == "not distinguishable") != (lo <= 0 && hi >= 0) {
			t.Errorf("row %d: %q with interval %s", i, r[8], r[4])
		}
		praw, _ := strconv.ParseFloat(strings.TrimPrefix(r[5], "< "), 64)
		pholm, _ := strconv.ParseFloat(strings.TrimPrefix(r[6], "< "), 64)
		if pholm < praw || r[6] == "" {
			t.Errorf("row %d: p %s, Holm %s", i, r[5], r[6])
		}
		if i%12 != 1 { // a few rows' compare pages
			continue
		}
		cmp := mustGet(t, s, strings.ReplaceAll(r[7], "&amp;", "&"), http.StatusOK, "text/html").Body
		k := strings.Index(cmp, ">Composite<")
		if k < 0 || !strings.Contains(cmp[k:k+400], ">"+r[4]+"<") || !strings.Contains(cmp[k:k+500], ">"+r[5]+"<") {
			t.Errorf("row %d: %s p %s is not on its compare page: %.500s", i, r[4], r[5], cmp[max(k, 0):])
		}

	}
	if want := strconv.Itoa(tied) + " other auditors are not distinguishable from it"; tied < 2 || !strings.Contains(body, want) {
		t.Errorf("the answer does not say %q", want)
	}
	// A filter narrows the ranking and says so.
	body = mustGet(t, s, "/experiments/demo?kind=checkpoint", http.StatusOK, "text/html").Body
	contains(t, "filtered ranking", body, "Best among the auditors the filters select: <strong>Reference pairwise")
}
