package web

import (
	"math"
	"net/http"
	"strings"
	"testing"

	"github.com/auditscope/auditscope/web/app"
)

// wilson is the Wilson score interval of k successes in n at 95%, worked
// out here from its closed form (Wilson 1927), not by the analysis package.
func wilson(k, n float64) (lo, hi float64) {
	const z = 1.959963984540054
	p := k / n
	mid := (p + z*z/(2*n)) / (1 + z*z/n)
	half := z / (1 + z*z/n) * math.Sqrt(p*(1-p)/n+z*z/(4*n*n))
	return mid - half, mid + half
}

// TestExperimentHandMade serves the hand-made experiment (handMade: alpha
// detects 3 of 4 behaviors, beta 1 of the same 4) and checks every number
// of its rates and their comparison against values worked out in this test.
func TestExperimentHandMade(t *testing.T) {
	s := fakeServer(t, handMade(), Config{})
	page := mustGet(t, s, "/experiments/x", http.StatusOK, "text/html").Body
	contains(t, "overview", page, "Hand &lt;b&gt;made&lt;/b&gt;", `title="75.0 [30.1, 95.4]"`, `title="25.0 [4.6, 69.9]"`)
	if strings.Contains(page, "<b>made</b>") {
		t.Error("the experiment's name is not escaped")
	}

	rates := map[string]map[string]string{}
	for _, r := range csvRows(t, mustGet(t, s, "/experiments/x/scores.csv", http.StatusOK, "text/csv").Body) {
		if r["dimension"] == "auditbench_default" {
			rates[r["auditor"]] = r
		}
	}
	for au, k := range map[string]float64{"alpha": 3, "beta": 1} {
		lo, hi := wilson(k, 4)
		r := rates[au]
		if r == nil {
			t.Fatalf("scores.csv has no auditbench_default row for %s", au)
		}
		if got := csvNum(t, r["value"]); !near(got, 100*k/4) || !near(csvNum(t, r["lo"]), 100*lo) || !near(csvNum(t, r["hi"]), 100*hi) || r["n"] != "4" {
			t.Errorf("%s: %s [%s, %s] n %s, want %g [%g, %g] n 4", au, r["value"], r["lo"], r["hi"], r["n"], 100*k/4, 100*lo, 100*hi)
		}
	}

	// Paired by behavior × seed: detected by both on s1, by alpha only on
	// s2 and s4, by neither on s3. The difference is (2 − 0)/4; its
	// interval is Newcombe's (1998) method 10 from the two Wilson
	// intervals, whose correlation term is 0 here (ad − bc = 1 ≤ n/2);
	// McNemar's exact p is 2 · 0.5² (both discordant pairs on one side).
	var row map[string]string
	for _, r := range csvRows(t, mustGet(t, s, "/experiments/x/compare.csv?a=alpha&b=beta", http.StatusOK, "text/csv").Body) {
		if r["dimension"] == "auditbench_default" {
			row = r
		}
	}
	if row == nil {
		t.Fatal("compare.csv has no auditbench_default row")
	}
	l1, u1 := wilson(3, 4)
	l2, u2 := wilson(1, 4)
	lo := 0.5 - math.Hypot(0.75-l1, u2-0.25)
	hi := 0.5 + math.Hypot(u1-0.75, 0.25-l2)
	for col, want := range map[string]float64{"diff": 50, "lo": 100 * lo, "hi": 100 * hi, "p": 0.5, "pairs": 4, "only_a": 2, "only_b": 0} {
		if got := csvNum(t, row[col]); !near(got, want) {
			t.Errorf("compare.csv %s = %s, want %g", col, row[col], want)
		}
	}

	// The audit list: eight audits, four of them alpha's.
	contains(t, "audit list", mustGet(t, s, "/audits?exp=x", http.StatusOK, "text/html").Body, "8 audits")
	contains(t, "alpha's audits", mustGet(t, s, "/audits?exp=x&auditor=alpha", http.StatusOK, "text/html").Body, "4 audits")
	for _, p := range []string{"/experiments/nope", "/experiments/nope/scores.csv", "/audits/x:nope"} {
		if r := get(t, s, p); r.Code != http.StatusNotFound {
			t.Errorf("%s: %d, want 404", p, r.Code)
		}
	}
}

// TestQueryErrorNamesParam: the application layer names the query field at
// fault; the page names it as the URL does.
func TestQueryErrorNamesParam(t *testing.T) {
	for _, tt := range []struct {
		err  *app.QueryError
		want string
	}{
		{&app.QueryError{Field: "Judge", Msg: "no judge \"x\""}, "judge: no judge \"x\""},
		{&app.QueryError{Field: "Branch", Msg: "the target view has branches 0 to 1, not 4"}, "branch: the target view has branches 0 to 1, not 4"},
		{&app.QueryError{Msg: "compare two different models"}, "compare two different models"},
	} {
		if got := queryErrorText(tt.err); got != tt.want {
			t.Errorf("%+v: %q, want %q", tt.err, got, tt.want)
		}
	}
	r := get(t, rollbackServer(t), "/audits/x:rollback?view=nosuch")
	if r.Code != http.StatusBadRequest || !strings.Contains(r.Body, "view: this transcript has the views") {
		t.Errorf("an unknown view: %d %.300s", r.Code, r.Body)
	}
}

// TestDifferenceItem: a difference whose interval no data bounds is drawn
// without whiskers and says so, for the experiment's comparisons and the
// Inspect samples' alike (the samples' figure drew infinite whiskers).
func TestDifferenceItem(t *testing.T) {
	it := differenceItem("quality", 3, math.Inf(-1), math.Inf(1))
	if !math.IsNaN(it.Lo) || !math.IsNaN(it.Hi) || it.Value != 3 || it.Label != "quality (interval unbounded)" {
		t.Errorf("unbounded: %+v", it)
	}
	if it := differenceItem("quality", 3, 1, 5); it.Lo != 1 || it.Hi != 5 || it.Label != "quality" {
		t.Errorf("bounded: %+v", it)
	}
}
