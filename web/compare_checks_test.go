package web

import (
	"net/http"
	"strings"
	"testing"
)

// TestCompareRefusedBeforeStatistics: a compare page, CSV or figure whose
// query names no auditor, or no judge that gave outcomes, is a 400 naming
// the parameter, and the store's outcome rows are never read for it (no
// statistics are computed for a query that cannot be answered); a good
// query reads them.
func TestCompareRefusedBeforeStatistics(t *testing.T) {
	f := handMade()
	s := fakeServer(t, f, Config{})
	for path, want := range map[string]string{
		"/experiments/x/compare?a=nope&b=beta":               "a: unknown value &#34;nope&#34;",
		"/experiments/x/compare.csv?a=alpha&b=zeta":          "b: unknown value",
		"/experiments/x/compare?a=alpha&b=alpha":             "is A itself",
		"/experiments/x/compare.csv?a=alpha":                 "a and b: give the auditor A",
		"/experiments/x/compare?a=alpha&b=beta&judge=nobody": "judge: &#34;nobody&#34; gave no outcomes",
		"/experiments/x/figures/compare.svg?a=nope&b=beta":   "a: unknown value",
		"/experiments/x/compare?b=beta":                      "a: missing",
	} {
		r := get(t, s, path)
		if r.Code != http.StatusBadRequest || !strings.Contains(r.Body, want) {
			t.Errorf("%s: %d, want 400 saying %q\n%.300s", path, r.Code, want, r.Body)
		}
	}
	if n := f.outcomes.Load(); n != 0 {
		t.Fatalf("the refused queries read the outcome rows %d times, want none", n)
	}
	mustGet(t, s, "/experiments/x/compare?a=alpha&b=beta", http.StatusOK, "text/html")
	if f.outcomes.Load() == 0 {
		t.Error("a good query computed its statistics without reading the outcome rows: the count tests nothing")
	}
}
