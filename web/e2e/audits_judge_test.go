package e2e

import (
	"net/http"
	"net/url"
	"strconv"
	"strings"
	"testing"

	"github.com/auditscope/auditscope/data/demo"
)

// TestAuditListUnderJudge (issue #51): the audit list under another judge
// lists the audits it judged, thresholds, sorts and shows its scores (as
// the demo bundle's verdicts have them), and its CSV likewise; an unknown
// judge, or one without its experiment, is refused.
func TestAuditListUnderJudge(t *testing.T) {
	// Independent of the other tests (a server of its own on the
	// read-only demo): run beside them, on the other core.
	t.Parallel()
	s := mustDemo(t)
	bd := demo.Experiment(demo.Options{})
	second := map[string]map[string]float64{}
	high := 0 // the second judge's eval_awareness of 7 or more
	for _, v := range bd.Verdicts {
		if v.Judge == demo.SecondJudge {
			second[v.Audit] = v.Scores
			if v.Scores[demo.DisagreeDim] >= 7 {
				high++
			}
		}
	}
	q := url.Values{"exp": {"demo"}, "judge": {demo.SecondJudge}, "score": {demo.DisagreeDim + ">=7"}, "sort": {demo.DisagreeDim}, "dir": {"desc"}}
	rows := csvRows(t, mustGet(t, s, "/audits.csv?"+q.Encode(), http.StatusOK, "text/csv").Body)
	if len(rows) != high || high == 0 {
		t.Fatalf("%d audits under the second judge with %s ≥ 7, by hand %d", len(rows), demo.DisagreeDim, high)
	}
	last := 11.0
	for _, m := range rows {
		want, ok := second[m["id"]]
		got := csvNum(t, m["score:"+demo.DisagreeDim])
		if !ok || got != want[demo.DisagreeDim] || got > last {
			t.Fatalf("audit %s: %s %v (the second judge's %v, judged %v), after %v: want its score, descending", m["id"], demo.DisagreeDim, got, want[demo.DisagreeDim], ok, last)
		}
		last = got
	}
	page := mustGet(t, s, "/audits?"+q.Encode(), http.StatusOK, "text/html").Body
	if !strings.Contains(page, `data-testid="list-judge"`) || !strings.Contains(page, strconv.Itoa(high)) || !strings.Contains(page, "judge="+url.QueryEscape(demo.SecondJudge)) {
		t.Errorf("the list under the second judge does not say so, count %d, or keep the judge in its links", high)
	}
	for _, bad := range []url.Values{{"exp": {"demo"}, "judge": {"nobody"}}, {"judge": {demo.SecondJudge}}} {
		if r := get(t, s, "/audits?"+bad.Encode()); r.Code != http.StatusBadRequest || !strings.Contains(r.Body, "judge") {
			t.Errorf("%s: %d, want 400 naming the judge", bad.Encode(), r.Code)
		}
	}
}
