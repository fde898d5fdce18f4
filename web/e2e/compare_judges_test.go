package e2e

import (
	"math"
	"net/http"
	"net/url"
	"strconv"
	"strings"
	"testing"

	"github.com/auditscope/auditscope/data/demo"
	"github.com/auditscope/auditscope/data/model"
	"github.com/auditscope/auditscope/views"
)

// judgeQualityByHand is the paired audit-quality difference A − B under
// the demo's judge, worked out from the demo bundle's verdicts (not the
// store): each behavior × seed unit's mean quality as judge read it, over
// the units both sides have.
func judgeQualityByHand(t *testing.T, judge, a, b string) (float64, int) {
	t.Helper()
	bd := demo.Experiment(demo.Options{})
	type side struct{ sum, n map[string]float64 }
	sides := map[string]*side{a: {map[string]float64{}, map[string]float64{}}, b: {map[string]float64{}, map[string]float64{}}}
	at := map[string]int{}
	for i, x := range bd.Audits {
		at[x.ID] = i
	}
	for _, v := range bd.Verdicts {
		if v.Judge != judge || v.Outcome == nil || v.Outcome.Quality == nil {
			continue
		}
		x := bd.Audits[at[v.Audit]]
		if sd := sides[x.Auditor]; sd != nil && x.Eval == model.EvalAuditQuality {
			k := x.Behavior + "|" + x.Seed
			sd.sum[k] += *v.Outcome.Quality
			sd.n[k]++
		}
	}
	var sum float64
	var n int
	for k, na := range sides[a].n {
		if nb, ok := sides[b].n[k]; ok {
			sum += sides[a].sum[k]/na - sides[b].sum[k]/nb
			n++
		}
	}
	return sum / float64(n), n
}

// TestCompareJudgeSwap (issue #51): the compare page under another judge
// reads that judge's outcomes (its audit-quality difference as worked out
// from the demo bundle's verdicts), and each row says how it reads under
// every judge. On the demo's hacked run the training judge reverses the
// held-out judge's verdict on audit quality between the first and third
// epochs.
func TestCompareJudgeSwap(t *testing.T) {
	// Independent of the other tests (a server of its own on the
	// read-only demo): run beside them, on the other core.
	t.Parallel()
	s := mustDemo(t)
	q := func(v url.Values) string { return v.Encode() }
	// Two baselines under the second judge, against the bundle by hand.
	const a, b = "claude-opus-4.6", "claude-haiku-4.5"
	rows := compareRows(t, s, q(url.Values{"a": {a}, "b": {b}, "judge": {demo.SecondJudge}}))
	want, n := judgeQualityByHand(t, demo.SecondJudge, a, b)
	r := rows[b+"/audit_quality"]
	if got := csvNum(t, r["diff"]); n == 0 || math.Abs(got-want) > 1e-9 {
		t.Errorf("audit quality under the second judge %v, by hand %v over %d pairs", got, want, n)
	}
	if r["judge"] != demo.SecondJudge || r["judges"] != "2" {
		t.Errorf("row's judge %q, judges %q; want the second judge's, of 2 (the training judge scored no baseline)", r["judge"], r["judges"])
	}
	// The hacked run: worse at epoch 3 under the held-out judge, better
	// under the training judge.
	e3, e1 := demo.HackedRun+"@e3", demo.HackedRun+"@e1"
	held := compareRows(t, s, q(url.Values{"a": {e3}, "b": {e1}}))[e1+"/audit_quality"]
	train := compareRows(t, s, q(url.Values{"a": {e3}, "b": {e1}, "judge": {demo.TrainingJudge}}))[e1+"/audit_quality"]
	if !(csvNum(t, held["hi"]) < 0) || !(csvNum(t, train["lo"]) > 0) {
		t.Fatalf("hacked run e3 − e1 audit quality: held-out %s [%s, %s], training %s [%s, %s]; want below 0 and above 0",
			held["diff"], held["lo"], held["hi"], train["diff"], train["lo"], train["hi"])
	}
	wantTrain, _ := judgeQualityByHand(t, demo.TrainingJudge, e3, e1)
	if got := csvNum(t, train["diff"]); math.Abs(got-wantTrain) > 1e-9 {
		t.Errorf("e3 − e1 under the training judge %v, by hand %v", got, wantTrain)
	}
	if held["holds"] != "1" || held["judges"] != "2" || train["holds"] != "1" {
		t.Errorf("holds %s of %s (held-out page), %s (training page); want 1 of 2 each: the other judge reverses it", held["holds"], held["judges"], train["holds"])
	}
	page := mustGet(t, s, "/experiments/demo/compare?"+q(url.Values{"a": {e3}, "b": {e1}}), http.StatusOK, "text/html").Body
	for _, w := range []string{`data-testid="compare-swap"`, "holds under 1 of 2 judges", "reverses", `data-testid="pick-judge"`,
		`href="/experiments/demo/compare?a=` + url.QueryEscape(e3) + `&amp;b=` + url.QueryEscape(e1) + `&amp;judge=` + url.QueryEscape(demo.TrainingJudge) + `"`} {
		if !strings.Contains(page, w) {
			t.Errorf("the hacked run's compare page lacks %q", w)
		}
	}
	// Links keep the judge: the units behind a row, the CSV.
	under := mustGet(t, s, "/experiments/demo/compare?"+q(url.Values{"a": {e3}, "b": {e1}, "judge": {demo.TrainingJudge}}), http.StatusOK, "text/html").Body
	if !strings.Contains(under, "judge="+url.QueryEscape(demo.TrainingJudge)+`" data-testid="compare-units"`) || !strings.Contains(under, ">the evaluation judge</a></th>") {
		t.Errorf("the page under the training judge: units links drop the judge, or the evaluation judge is not among the others")
	}
	// The paper's comparisons, tested under the training judge, link to
	// themselves under it.
	presets := mustGet(t, s, "/experiments/demo/compare?"+q(url.Values{"judge": {demo.TrainingJudge}}), http.StatusOK, "text/html").Body
	if !strings.Contains(presets, `data-testid="compare-presets"`) || !strings.Contains(presets, "&amp;judge="+url.QueryEscape(demo.TrainingJudge)+`"`) {
		t.Errorf("the preset comparisons under the training judge do not keep it in their links")
	}
	// An unknown judge, or one without outcomes, is refused by name.
	for _, j := range []string{"nobody", "rater-ana"} {
		r := get(t, s, "/experiments/demo/compare?"+q(url.Values{"a": {a}, "b": {b}, "judge": {j}}))
		if r.Code != http.StatusBadRequest || !strings.Contains(r.Body, j) || !strings.Contains(r.Body, demo.SecondJudge) {
			t.Errorf("judge=%s: %d, want 400 naming it and the judges there are", j, r.Code)
		}
	}
}

// TestOverviewUnderJudge: the overview's evaluation suite under the second
// judge is that judge's reading: Claude Opus 4.6's audit quality is the
// mean of the second judge's quality over its audit-quality audits.
func TestOverviewUnderJudge(t *testing.T) {
	// Independent of the other tests (a server of its own on the
	// read-only demo): run beside them, on the other core.
	t.Parallel()
	s := mustDemo(t)
	bd := demo.Experiment(demo.Options{})
	at := map[string]int{}
	for i, x := range bd.Audits {
		at[x.ID] = i
	}
	var sum, n float64
	for _, v := range bd.Verdicts {
		if x := bd.Audits[at[v.Audit]]; v.Judge == demo.SecondJudge && x.Auditor == "claude-opus-4.6" && x.Eval == model.EvalAuditQuality && v.Outcome != nil && v.Outcome.Quality != nil {
			sum, n = sum+*v.Outcome.Quality, n+1
		}
	}
	jq := url.Values{"judge": {demo.SecondJudge}}.Encode()
	var got, eval float64
	for _, m := range csvRows(t, mustGet(t, s, "/experiments/demo/scores.csv?"+jq, http.StatusOK, "text/csv").Body) {
		if m["auditor"] == "claude-opus-4.6" && m["dimension"] == "audit_quality" {
			got = csvNum(t, m["value"])
		}
	}
	for _, m := range csvRows(t, mustGet(t, s, "/experiments/demo/scores.csv", http.StatusOK, "text/csv").Body) {
		if m["auditor"] == "claude-opus-4.6" && m["dimension"] == "audit_quality" {
			eval = csvNum(t, m["value"])
		}
	}
	if n == 0 || math.Abs(got-sum/n) > 1e-9 || got == eval {
		t.Errorf("audit quality under the second judge %v, by hand %v over %v audits (the evaluation judge's %v)", got, sum/n, n, eval)
	}
	// An audit page shows the second judge's outcome beside the
	// evaluation judge's.
	for _, v := range bd.Verdicts {
		if v.Judge != demo.SecondJudge || v.Outcome == nil || v.Outcome.Quality == nil {
			continue
		}
		x := bd.Audits[at[v.Audit]]
		body := mustGet(t, s, "/audits/demo:"+v.Audit, http.StatusOK, "text/html").Body
		want := `<th scope="row">outcome: quality</th><td class="num">` + views.Num(*x.Outcome.Quality, 1) + `</td><td class="num">` + views.Num(*v.Outcome.Quality, 1) + `</td>`
		if !strings.Contains(body, want) {
			t.Errorf("audit %s does not show the second judge's quality beside the evaluation judge's (%s)", v.Audit, want)
		}
		break
	}
	page := mustGet(t, s, "/experiments/demo?"+jq, http.StatusOK, "text/html").Body
	if !strings.Contains(page, `data-testid="compare-link"`) || strings.Contains(page, `compare?a=claude-haiku-4.5"`) {
		t.Errorf("the overview under the second judge links to comparisons without it")
	}
	if !strings.Contains(page, `Outcomes as <strong>`+demo.SecondJudge) || !strings.Contains(page, `scores.csv?judge=`) {
		t.Errorf("the overview under the second judge does not say so, or its CSV link drops the judge")
	}
}

// TestTransferUnderJudge: the transfer page under the second judge counts
// its detections: Claude Opus 4.6's STC audits it called detected, as the
// demo bundle's verdicts have them; the sweep figures and the overview's
// links keep the judge.
func TestTransferUnderJudge(t *testing.T) {
	// Independent of the other tests (a server of its own on the
	// read-only demo): run beside them, on the other core.
	t.Parallel()
	s := mustDemo(t)
	bd := demo.Experiment(demo.Options{})
	at := map[string]int{}
	for i, x := range bd.Audits {
		at[x.ID] = i
	}
	var n, detected int
	for _, v := range bd.Verdicts {
		x := bd.Audits[at[v.Audit]]
		if v.Judge == demo.SecondJudge && x.Auditor == "claude-opus-4.6" && x.Eval == model.EvalAuditBenchSTC && v.Outcome != nil && v.Outcome.Detected != nil {
			n++
			if *v.Outcome.Detected {
				detected++
			}
		}
	}
	jq := url.Values{"judge": {demo.SecondJudge}}.Encode()
	found := false
	for _, m := range csvRows(t, mustGet(t, s, "/experiments/demo/transfer.csv?"+jq, http.StatusOK, "text/csv").Body) {
		if m["auditor"] == "claude-opus-4.6" && m["eval"] == model.EvalAuditBenchSTC && m["behavior"] == "" {
			found = true
			if m["n"] != strconv.Itoa(n) || m["detected"] != strconv.Itoa(detected) {
				t.Errorf("STC under the second judge: %s of %s detected, by hand %d of %d", m["detected"], m["n"], detected, n)
			}
		}
	}
	if !found || n == 0 {
		t.Fatalf("no STC row for Claude Opus 4.6 under the second judge (%d by hand)", n)
	}
	page := mustGet(t, s, "/experiments/demo/transfer?"+jq, http.StatusOK, "text/html").Body
	if !strings.Contains(page, "Detections as <strong>"+demo.SecondJudge) || !strings.Contains(page, "transfer.csv?"+jq) {
		t.Errorf("the transfer page under the second judge does not say so, or its CSV link drops the judge")
	}
	mustGet(t, s, "/experiments/demo/figures/dose.svg?dim=composite&"+jq, http.StatusOK, "image/svg+xml")
	mustGet(t, s, "/experiments/demo/figures/transfer.svg?"+jq, http.StatusOK, "image/svg+xml")
	over := mustGet(t, s, "/experiments/demo?"+jq, http.StatusOK, "text/html").Body
	if !strings.Contains(over, "figures/dose.svg?dim=") || !strings.Contains(over, "&amp;judge="+url.QueryEscape(demo.SecondJudge)) {
		t.Errorf("the overview's sweep figures drop the judge")
	}
}
