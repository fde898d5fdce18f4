package web

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
		"/experiments/:exp/figures/:file": {"scores.svg", "crux-audit_quality.svg", "rwr.svg", "transfer.svg", "cycles.svg", "dose.svg", "refresh.svg", "scorers.svg", "compare.svg"},
		"/runs/:run/figures/:file":        {"curves.svg", "metric-train/reward.svg"},
	}
	special := map[string]string{
		"/judgments/:id":                  "/judgments/demo:j-000001",
		"/pairs/:dataset/comparisons/:id": "/pairs/synthetic-personality-demo/comparisons/0",
	}
	var urls []string
	for _, r := range s.echo.Routes() {
		if r.Method != http.MethodGet {
			continue
		}
		if files, ok := figures[r.Path]; ok {
			for _, f := range files {
				urls = append(urls, strings.Replace(strings.Replace(r.Path, ":file", f, 1), ":exp", "demo", 1))
			}
			continue
		}
		u := special[r.Path]
		if u == "" {
			u = r.Path
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
	if r.Code != http.StatusBadRequest || !strings.Contains(r.Body, "experiment") || !strings.Contains(r.Body, "exp, outcome") {
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
