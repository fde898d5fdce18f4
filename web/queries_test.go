package web

import (
	"net/http"
	"net/url"
	"reflect"
	"strings"
	"testing"

	"github.com/auditscope/auditscope/data"
	"github.com/auditscope/auditscope/web/app"
)

// Each page's query struct reads back what it writes: parse(values(q)) == q.

func TestAuditsQueryRoundTrip(t *testing.T) {
	epoch := 3
	for _, q := range []auditsQuery{
		{Page: 1, Per: defaultPerPage},
		{Filter: data.AuditFilter{Experiment: "demo", Auditor: "claude-opus-4.6", Run: "r", Epoch: &epoch, Eval: "production",
			Behavior: "flattery", Split: "heldout", Target: "llama", Outcome: "detected", Text: "moscow & co",
			Scores: []data.ScoreCond{{Dimension: "concerning", Op: ">=", Value: 7}, {Dimension: "needs_attention", Op: "<", Value: 2.5}},
			Sort:   "score:concerning", Desc: true}, Page: 3, Per: 10},
		{Filter: data.AuditFilter{Sort: "turns"}, Page: 2, Per: defaultPerPage},
	} {
		got, err := parseAuditsQuery(q.values())
		if err != nil {
			t.Fatalf("%+v: %v", q, err)
		}
		if !reflect.DeepEqual(got, q) {
			t.Errorf("round trip of %+v gave %+v (via %s)", q, got, q.values().Encode())
		}
	}
}

func TestOverviewQueryRoundTrip(t *testing.T) {
	for _, q := range []overviewQuery{
		{Sort: "order", Dim: "composite"},
		{Run: "binary-pointwise", Reward: "binary_pointwise", Kind: "checkpoint", Cal: "0.5", Epoch: "3", Sort: "realism", Desc: true, Dim: "realism"},
		{Sort: "name", Dim: "audit_quality"},
		{Sort: "composite", Desc: false, Dim: "composite"},
	} {
		got, err := parseOverviewQuery(q.values())
		if err != nil {
			t.Fatalf("%+v: %v", q, err)
		}
		if !reflect.DeepEqual(got, q) {
			t.Errorf("round trip of %+v gave %+v (via %s)", q, got, q.values().Encode())
		}
	}
}

func TestCyclesQueryRoundTrip(t *testing.T) {
	for _, q := range []cyclesQuery{{Kind: "intragroup", Max: defaultCycleLen}, {Kind: "reference", Max: 3}, {Kind: "crux", Max: maxCycleLen}} {
		got, err := parseCyclesQuery(q.values())
		if err != nil || !reflect.DeepEqual(got, q) {
			t.Errorf("round trip of %+v gave %+v, %v", q, got, err)
		}
	}
	for _, bad := range []string{"kind=nope", "max=2", "max=x"} {
		v, _ := url.ParseQuery(bad)
		if _, err := parseCyclesQuery(v); err == nil {
			t.Errorf("%s accepted", bad)
		}
	}
}

func TestSweepQueryRoundTrip(t *testing.T) {
	for _, def := range []int{1, 2} {
		for _, q := range []sweepQuery{
			{Dim: defaultSweepDim, Epoch: def, defaultEpoch: def},
			{Dim: "composite", Epoch: 3, defaultEpoch: def},
			{Dim: "fp_calibration", Epoch: 0, defaultEpoch: def},
		} {
			got, err := parseSweepQuery(q.values(), def)
			if err != nil || !reflect.DeepEqual(got, q) {
				t.Errorf("round trip of %+v gave %+v, %v", q, got, err)
			}
		}
	}
	for _, bad := range []string{"dim=nope", "epoch=x", "epoch=1.5"} {
		v, _ := url.ParseQuery(bad)
		if _, err := parseSweepQuery(v, 2); err == nil {
			t.Errorf("%s accepted", bad)
		}
	}
}

func TestRWRQueryRoundTrip(t *testing.T) {
	runs := []string{"r1", "r,2"}
	for _, q := range []rwrQuery{{Run: "r1", first: "r1"}, {Run: "r,2", first: "r1"}} {
		got, err := parseRWRQuery(q.values(), runs)
		if err != nil || !reflect.DeepEqual(got, q) {
			t.Errorf("round trip of %+v gave %+v, %v", q, got, err)
		}
	}
	if got, err := parseRWRQuery(url.Values{}, nil); err != nil || got != (rwrQuery{}) {
		t.Errorf("no runs: %+v, %v; want no run", got, err)
	}
	if _, err := parseRWRQuery(url.Values{"run": {"nope"}}, runs); err == nil {
		t.Error("an unknown run accepted")
	}
}

func TestTranscriptQueryRoundTrip(t *testing.T) {
	for _, q := range []transcriptQuery{{Branch: -1}, {View: "target", Branch: 0}, {View: "auditor", Branch: -1}, {Branch: 3}} {
		got, err := parseTranscriptQuery(q.values())
		if err != nil || !reflect.DeepEqual(got, q) {
			t.Errorf("round trip of %+v gave %+v, %v", q, got, err)
		}
	}
	for _, bad := range []string{"branch=x", "branch=-1", "branch=1.0"} {
		v, _ := url.ParseQuery(bad)
		if _, err := parseTranscriptQuery(v); err == nil {
			t.Errorf("%s accepted", bad)
		}
	}
}

// TestRankingFailedFit: an experiment whose Bradley–Terry fit fails (an
// auditor that never wins) shows "–" with the reason, and its ranking.csv
// leaves the strengths empty, never 0.
func TestRankingFailedFit(t *testing.T) {
	s := mustDemo(t)
	r := mustGet(t, s, "/experiments/small/ranking.csv?kind=intragroup", 200, "text/csv")
	for _, line := range strings.Split(strings.TrimSpace(r.Body), "\n")[1:] {
		f := strings.Split(line, ",")
		if f[1] != "" || f[7] != "" {
			t.Errorf("a failed fit wrote a strength or rank: %s", line)
		}
	}
	page := mustGet(t, s, "/experiments/small/cycles?kind=intragroup", 200, "text/html")
	contains(t, "cycles page", page.Body, "No Bradley–Terry ranking", "ties not counted")
	demo := mustGet(t, s, "/experiments/demo/cycles?kind=intragroup", 200, "text/html")
	contains(t, "demo cycles page", demo.Body, `data-testid="bt-anchor"`, "(anchor)", "fixed at 0")
}

// TestPairsSmallSamplesMarked: a dataset of one comparison shows its
// strengths faded and marked, with the note; the demo's large one does not.
func TestPairsSmallSamplesMarked(t *testing.T) {
	s := mustDemo(t)
	r := mustGet(t, s, "/pairs/icai-example-v2-40-principles", http.StatusOK, "text/html")
	contains(t, "one-comparison dataset", r.Body, `class="num thin `, `data-testid="pairs-thin-note"`, "a small sample")
	r = mustGet(t, s, "/pairs/synthetic-personality-demo", http.StatusOK, "text/html")
	if strings.Contains(r.Body, `data-testid="pairs-thin-note"`) {
		t.Error("the 3,000-comparison demo is marked as a small sample")
	}
}

func TestJudgmentsQueryRoundTrip(t *testing.T) {
	for _, q := range []judgmentsQuery{
		{Page: 1, Per: defaultPerPage},
		{Filter: app.JudgmentFilter{Kind: "realism", Auditor: "claude-opus-4.6", Vs: "haiku", Split: "heldout", Behavior: "flattery"}, Page: 4, Per: 10},
	} {
		got, err := parseJudgmentsQuery(q.values())
		if err != nil || !reflect.DeepEqual(got, q) {
			t.Errorf("round trip of %+v gave %+v, %v", q, got, err)
		}
	}
	if _, err := parseJudgmentsQuery(url.Values{"kind": {"nope"}}); err == nil {
		t.Error("kind=nope accepted")
	}
}

// TestRWRUnknownRun: the RWR page answers an unknown run with a 400 that
// lists the runs, as the list pages do.
func TestRWRUnknownRun(t *testing.T) {
	r := get(t, mustDemo(t), "/experiments/demo/rwr?run=nope")
	if r.Code != http.StatusBadRequest || !strings.Contains(r.Body, "run: unknown value") || !strings.Contains(r.Body, "binary-pointwise") {
		t.Errorf("run=nope: %d %.300s", r.Code, r.Body)
	}
}

// TestJudgmentsBadValues: the judgments list follows the list pages' rule:
// an unknown auditor or behavior is a 400 with the choices, a page past the
// end goes to the last page.
func TestJudgmentsBadValues(t *testing.T) {
	s := mustDemo(t)
	for q, want := range map[string]string{
		"auditor=nope":  "auditor: unknown value",
		"vs=nope":       "vs: unknown value",
		"behavior=nope": "behavior: unknown value",
		"split=nope":    "split: want",
		"kind=nope":     "kind: want",
	} {
		r := get(t, s, "/experiments/demo/judgments?"+q)
		if r.Code != http.StatusBadRequest || !strings.Contains(r.Body, want) {
			t.Errorf("%s: %d, want 400 saying %q", q, r.Code, want)
		}
	}
	if r := get(t, s, "/experiments/demo/judgments?page=99999"); r.Code != http.StatusSeeOther {
		t.Errorf("page past the end: %d", r.Code)
	}
	mustGet(t, s, "/experiments/demo/judgments?kind=realism&page=2", http.StatusOK, "text/html")
}

// TestJudgmentsShowNames: the judgments list names auditors as the rest of
// the dashboard does, and external items without their prefix.
func TestJudgmentsShowNames(t *testing.T) {
	r := mustGet(t, mustDemo(t), "/experiments/demo/judgments?kind=reference", http.StatusOK, "text/html")
	contains(t, "judgments", r.Body, "Binary pointwise · epoch 1", "(external)")
	if strings.Contains(r.Body, ">ext:") {
		t.Error("an external item is shown with its ext: prefix")
	}
}

// TestComparisonsBadValues: the comparisons list follows the list pages'
// rule for an unknown annotator or reference.
func TestComparisonsBadValues(t *testing.T) {
	s := mustDemo(t)
	for _, q := range []string{"ann=nope", "ref=nope"} {
		r := get(t, s, "/pairs/synthetic-personality-demo/comparisons?"+q)
		param := strings.SplitN(q, "=", 2)[0]
		if r.Code != http.StatusBadRequest || !strings.Contains(r.Body, param+": unknown value") || !strings.Contains(r.Body, "nearest") {
			t.Errorf("%s: %d %.300s", q, r.Code, r.Body)
		}
	}
}
