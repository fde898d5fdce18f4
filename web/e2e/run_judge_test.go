package e2e

import (
	"net/http"
	"net/url"
	"strings"
	"testing"

	"github.com/auditscope/auditscope/data/demo"
)

// TestRunUnderJudge (issue #51): the run page under the training judge
// scores its checkpoints by that judge's outcomes. On the demo's hacked
// run the training judge sees audit quality rise from the first epoch to
// the third, the held-out judge sees it fall: the reward-hacking signature,
// in the checkpoints' own table. The figures and CSV keep the judge.
func TestRunUnderJudge(t *testing.T) {
	s := mustDemo(t)
	run := "/runs/demo:" + demo.HackedRun
	quality := func(q string) map[string]float64 {
		out := map[string]float64{}
		for _, m := range csvRows(t, mustGet(t, s, run+"/checkpoints.csv"+q, http.StatusOK, "text/csv").Body) {
			if m["dimension"] == "audit_quality" {
				out[m["epoch"]] = csvNum(t, m["value"])
			}
		}
		return out
	}
	jq := "?" + url.Values{"judge": {demo.TrainingJudge}}.Encode()
	held, train := quality(""), quality(jq)
	if !(held["3"] < held["1"]) || !(train["3"] > train["1"]) {
		t.Errorf("audit quality by epoch: held-out %v, training judge %v; want falling under the held-out judge, rising under the training judge", held, train)
	}
	page := mustGet(t, s, run+jq, http.StatusOK, "text/html").Body
	for _, w := range []string{"Outcomes as <strong>" + demo.TrainingJudge, "checkpoints.csv" + strings.ReplaceAll(jq, "&", "&amp;"), "figures/curves.svg" + jq} {
		if !strings.Contains(page, w) {
			t.Errorf("the run page under the training judge lacks %q", w)
		}
	}
	mustGet(t, s, run+"/figures/curves.svg"+jq, http.StatusOK, "image/svg+xml")
	if r := get(t, s, run+"?judge=nobody"); r.Code != http.StatusBadRequest {
		t.Errorf("an unknown judge: %d, want 400", r.Code)
	}
}
