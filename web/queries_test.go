package web

import (
	"net/url"
	"reflect"
	"testing"

	"github.com/auditscope/auditscope/data/model"
	"github.com/auditscope/auditscope/web/app"
)

func TestAuditsQueryRoundTrip(t *testing.T) {
	epoch := 3
	for _, q := range []auditsQuery{
		{Page: 1, Per: defaultPerPage},
		{Filter: model.AuditFilter{Experiment: "demo", Auditor: "claude-opus-4.6", Run: "r", Epoch: &epoch, Eval: "production",
			Behavior: "flattery", Split: "heldout", Target: "llama", Outcome: "detected", Text: "moscow & co",
			Scores: []model.ScoreCond{{Dimension: "concerning", Op: ">=", Value: 7}, {Dimension: "needs_attention", Op: "<", Value: 2.5}},
			Sort:   "score:concerning", Desc: true}, Page: 3, Per: 10},
		{Filter: model.AuditFilter{Sort: "turns"}, Page: 2, Per: defaultPerPage},
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
