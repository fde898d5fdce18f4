package web

import (
	"net/url"
	"reflect"
	"testing"

	"github.com/auditscope/auditscope/data"
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
