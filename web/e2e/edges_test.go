package e2e

import (
	"net/http"
	"strings"
	"testing"
)

// TestInvalidUTF8 is issue #27's list: one invalid byte in a query value or
// a path segment is a 400 naming the parameter, never a 500.
func TestInvalidUTF8(t *testing.T) {
	s := mustDemo(t)
	for u, param := range map[string]string{
		"/audits?eval=%ff":                                     "eval",
		"/audits.csv?eval=%ff":                                 "eval",
		"/audits?exp=%ff":                                      "exp",
		"/audits?auditor=%ff":                                  "auditor",
		"/audits?sort=%ff":                                     "sort",
		"/pairs/synthetic-personality-demo?with=%ff":           "with",
		"/pairs/synthetic-personality-demo/comparisons?q=%ff":  "q",
		"/experiments/%ff":                                     "exp",
		"/pairs/%ff":                                           "dataset",
		"/judgments/%ff":                                       "id",
		"/audits/%ff":                                          "id",
		"/audits/small:a1/transcript.json?x=%c3%28":            "x",
		"/experiments/demo/figures/scores.svg?dim=%e2%82":      "dim",
		"/no-such-page/%ff":                                    "path",
		"/experiments/demo/compare?a=%ff&b=claude-haiku-4.5":   "a",
		"/pairs/synthetic-personality-demo/compare?ref=%fe%ff": "ref",
	} {
		r := get(t, s, u)
		if r.Code != http.StatusBadRequest {
			t.Errorf("GET %s: %d, want 400\n%.300s", u, r.Code, r.Body)
			continue
		}
		if !strings.Contains(r.Body, param) || !strings.Contains(r.Body, "UTF-8") {
			t.Errorf("GET %s: the message does not name %s as invalid UTF-8:\n%.600s", u, param, r.Body)
		}
	}
}

// TestUnknownEval: an eval the selection does not have is not an empty
// list: the page offers the evals it may mean as links (the CSV is a 400
// naming the choices), as for an unknown auditor or run.
func TestUnknownEval(t *testing.T) {
	s := mustDemo(t)
	r := mustGet(t, s, "/audits?exp=demo&eval=productio", http.StatusOK, "text/html")
	contains(t, "unknown eval", r.Body, `data-testid="unknown-choice"`, `href="/audits?eval=production&amp;exp=demo" data-testid="choice-link">production</a>`)
	r = get(t, s, "/audits.csv?exp=demo&eval=nope")
	if r.Code != http.StatusBadRequest {
		t.Errorf("unknown eval in the CSV: %d, want 400", r.Code)
	}
	mustGet(t, s, "/audits?exp=demo&eval=production", http.StatusOK, "text/html")
}
