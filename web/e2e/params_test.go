package e2e

import (
	"html"
	"net/http"
	"regexp"
	"strings"
	"testing"
)

// TestUnknownParams: every route refuses a query parameter it does not
// read with a 400 naming it and the ones it takes (a mistyped link used to
// show unfiltered numbers), and answers its own names.
func TestUnknownParams(t *testing.T) {
	s := mustDemo(t)
	// A real value for each path parameter, and a figure per family.
	fill := map[string]string{
		":dataset": "synthetic-personality-demo", ":exp": "demo", ":id": "demo:a-002420",
		":run": "demo:ref-pairwise-cal50", "*": "style.css",
	}
	figures := map[string][]string{
		"/pairs/:dataset/figures/:file":   {"strength.svg", "heatmap.svg", "length.svg", "models.svg"},
		"/experiments/:exp/figures/:file": {"scores.svg", "crux-audit_quality.svg", "rwr.svg", "transfer.svg", "cycles.svg", "dose.svg", "refresh.svg", "scorers.svg", "compare.svg", "heatmap.svg", "forest.svg", "paired.svg"},
		"/runs/:run/figures/:file":        {"curves.svg", "metric-train/reward.svg"},
	}
	special := map[string]string{
		"/judgments/:id":                  "/judgments/demo:j-000001",
		"/pairs/:dataset/comparisons/:id": "/pairs/synthetic-personality-demo/comparisons/0",
	}
	var urls []string
	for _, path := range s.RoutePaths() {
		if files, ok := figures[path]; ok {
			for _, f := range files {
				urls = append(urls, strings.Replace(strings.Replace(path, ":file", f, 1), ":exp", "demo", 1))
			}
			continue
		}
		u := special[path]
		if u == "" {
			u = path
			for k, v := range fill {
				u = strings.ReplaceAll(u, k, v)
			}
		}
		urls = append(urls, u)
	}
	if len(urls) < 55 {
		t.Fatalf("only %d routes found", len(urls))
	}
	for _, u := range urls {
		u = strings.NewReplacer(":dataset", fill[":dataset"], ":run", fill[":run"]).Replace(u)
		r := get(t, s, u+"?experimnt=small")
		if r.Code != http.StatusBadRequest || !strings.Contains(r.Body, `unknown query parameter &#34;experimnt&#34;`) && !strings.Contains(r.Body, `unknown query parameter "experimnt"`) {
			t.Errorf("%s?experimnt=small: %d %.300q; want a 400 naming the parameter", u, r.Code, r.Body)
		}
	}
	r := get(t, s, "/audits.csv?experiment=small")
	if r.Code != http.StatusBadRequest || !strings.Contains(r.Body, "experiment") || !strings.Contains(r.Body, "exp, judge, log, outcome") {
		t.Errorf("/audits.csv?experiment=small: %d %.300q; want a 400 naming the parameter and the known ones", r.Code, r.Body)
	}
	// The names a route reads, and those its pages' links carry, still
	// answer: a comparison's link from the list with reference models.
	list := mustGet(t, s, "/pairs/synthetic-personality-demo/comparisons", 200, "text/html").Body
	m := regexp.MustCompile(`href="(/pairs/synthetic-personality-demo/comparisons/[^"?]+)"`).FindStringSubmatch(list)
	if m == nil {
		t.Fatal("no comparison link on the list")
	}
	for _, u := range []string{"/audits.csv?exp=small&page=2&cols=concerning", "/experiments/demo/scores.csv?ssort=name&sdir=desc&dim=composite",
		html.UnescapeString(m[1]) + "?refmodels=gpt-4o", "/experiments/demo/figures/cycles.svg?kind=reference"} {
		if r := get(t, s, u); r.Code != http.StatusOK {
			t.Errorf("%s: %d %.300q", u, r.Code, r.Body)
		}
	}
}

// TestDuplicateParams: a single-valued parameter given twice is a 400
// naming it, on every kind of route (the first value used to win,
// unchecked: /audits.csv?exp=demo&exp=nosuch served the demo's export);
// the list-valued ones still take several values.
func TestDuplicateParams(t *testing.T) {
	s := mustDemo(t)
	for _, u := range []string{"/audits.csv?exp=demo&exp=nosuch", "/audits?exp=demo&sort=turns&sort=id", "/experiments/demo?dim=composite&dim=realism",
		"/experiments/demo/compare?a=binary-pointwise%40e3&a=gemini-3.1-pro", "/experiments/petri-demo/dimensions.csv?thr=7&thr=8",
		"/experiments/demo/figures/scores.svg?dim=composite&dim=realism", "/pairs/synthetic-personality-demo?metric=strength&metric=kappa"} {
		r := get(t, s, u)
		name := u[strings.LastIndex(u, "&")+1 : strings.LastIndex(u, "=")]
		if r.Code != http.StatusBadRequest || !strings.Contains(r.Body, name+": given 2 times") {
			t.Errorf("%s: %d %.200q; want a 400 naming %s", u, r.Code, r.Body, name)
		}
	}
	for _, u := range []string{"/experiments/demo/compare?a=binary-pointwise%40e3&b=binary-pointwise%40e1&b=gemini-3.1-pro",
		"/audits?exp=demo&cols=concerning&cols=admirable"} {
		if r := get(t, s, u); r.Code != http.StatusOK {
			t.Errorf("%s: %d %.200q", u, r.Code, r.Body)
		}
	}
}
