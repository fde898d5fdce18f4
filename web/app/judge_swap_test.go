package app

import (
	"context"
	"errors"
	"math"
	"strconv"
	"strings"
	"testing"

	"github.com/auditscope/auditscope/analysis/experiment"
	"github.com/auditscope/auditscope/data/model"
)

// swapExperiment has auditors a and b on 24 behavior × seed units of
// audit quality (more than the 20 differing units an exact test takes).
// The evaluation judge reads a 10, 11, 12 and 13 points ahead, six times
// each (mean 11.5); judge "rev" reads b ahead by as much; judge "half"
// judged only a's audits; judge "dims" gave judge-dimension scores only.
func swapExperiment() *fakeReader {
	unit := func(id, auditor, seed string, q float64) model.EvalAudit {
		return model.EvalAudit{ID: id, Auditor: auditor, Eval: model.EvalAuditQuality, Behavior: "x", Seed: seed, Quality: ptr(q)}
	}
	r := &fakeReader{version: 1, auditors: []model.Auditor{{ID: "a", Name: "A"}, {ID: "b", Name: "B"}}, under: map[string][]model.EvalAudit{}}
	for i := range 24 {
		seed, f := "s"+strconv.Itoa(i), float64(i%4)
		r.audits = append(r.audits, unit("a"+seed, "a", seed, 60+2*f), unit("b"+seed, "b", seed, 50+f))
		r.under["rev"] = append(r.under["rev"], unit("a"+seed, "a", seed, 50+f), unit("b"+seed, "b", seed, 60+2*f))
		r.under["half"] = append(r.under["half"], unit("a"+seed, "a", seed, 70))
	}
	r.judges = []model.JudgeInfo{{Name: "dims", Kind: model.JudgeModel, Audits: 48}, {Name: "half", Kind: model.JudgeModel, Audits: 24, Outcomes: 24},
		{Name: "rev", Kind: model.JudgeModel, Audits: 48, Outcomes: 48}}
	return r
}

// TestJudgeSwap: the comparison under each other judge, read against the
// page's: the evaluation judge's +11.5 reverses under "rev" (−11.5) and
// "half" has no data on b; under "rev" the page's own is −11.5 and the
// evaluation judge's reverses it.
func TestJudgeSwap(t *testing.T) {
	ctx := context.Background()
	s := New(swapExperiment())
	st, err := s.Stats(ctx, "x")
	if err != nil {
		t.Fatal(err)
	}
	if strings.Join(st.Judges, ",") != "half,rev" {
		t.Fatalf("judges with outcomes %q, want half,rev", st.Judges)
	}
	cs, err := s.Compare(ctx, st, "a", []string{"b"})
	if err != nil {
		t.Fatal(err)
	}
	d := DiffOf(cs, "b", experiment.AuditQuality)
	if math.Abs(d.Value-11.5) > 1e-12 || !(d.Lo > 0) {
		t.Fatalf("A − B under the evaluation judge %+v, want 11.5 with an interval above 0", d.Estimate)
	}
	swaps, err := s.JudgeSwap(ctx, st, "a", []string{"b"})
	if err != nil {
		t.Fatal(err)
	}
	if len(swaps) != 2 || swaps[0].Judge != "half" || swaps[1].Judge != "rev" {
		t.Fatalf("swaps %+v, want half then rev", swaps)
	}
	half, rev := DiffOf(swaps[0].Comps, "b", experiment.AuditQuality), DiffOf(swaps[1].Comps, "b", experiment.AuditQuality)
	if math.Abs(rev.Value+11.5) > 1e-12 {
		t.Errorf("A − B under rev %v, want −11.5", rev.Value)
	}
	if got := Swap(d, half); got != SwapNoData {
		t.Errorf("under half (b unjudged): %q, want %q", got, SwapNoData)
	}
	if got := Swap(d, rev); got != SwapReverses {
		t.Errorf("under rev: %q, want %q", got, SwapReverses)
	}
	if h, n := SwapCount(d, []experiment.Diff{half, rev}); h != 1 || n != 2 {
		t.Errorf("holds under %d of %d, want 1 of 2 (half scored neither side's pairs)", h, n)
	}
	// Under rev, the evaluation judge is one of the others.
	stRev, err := s.StatsUnder(ctx, "x", "rev")
	if err != nil {
		t.Fatal(err)
	}
	if stRev.Judge != "rev" || stRev.Key() == st.Key() {
		t.Fatalf("statistics under rev: judge %q, key %q (the evaluation judge's %q)", stRev.Judge, stRev.Key(), st.Key())
	}
	csRev, err := s.Compare(ctx, stRev, "a", []string{"b"})
	if err != nil {
		t.Fatal(err)
	}
	if v := DiffOf(csRev, "b", experiment.AuditQuality).Value; math.Abs(v+11.5) > 1e-12 {
		t.Errorf("compare under rev %v, want −11.5 (not the evaluation judge's kept comparison)", v)
	}
	back, err := s.JudgeSwap(ctx, stRev, "a", []string{"b"})
	if err != nil || len(back) != 2 || back[0].Judge != "" || back[1].Judge != "half" {
		t.Fatalf("swaps under rev %+v (%v), want the evaluation judge then half", back, err)
	}
	if got := Swap(DiffOf(csRev, "b", experiment.AuditQuality), DiffOf(back[0].Comps, "b", experiment.AuditQuality)); got != SwapReverses {
		t.Errorf("the evaluation judge read from rev's page: %q, want %q", got, SwapReverses)
	}
	// A judge with no outcomes, or none at all, is refused by name.
	for _, j := range []string{"dims", "nobody"} {
		_, err := s.StatsUnder(ctx, "x", j)
		var qe *QueryError
		if !errors.As(err, &qe) || !strings.Contains(qe.Msg, j) || !strings.Contains(qe.Msg, "rev") {
			t.Errorf("judge %q: %v, want a query error naming it and the judges there are", j, err)
		}
	}
}

// TestSwapReadings: each reading of a difference under another judge.
func TestSwapReadings(t *testing.T) {
	nan := math.NaN()
	diff := func(dim string, v, lo, hi float64) experiment.Diff {
		d := experiment.Diff{Dimension: dim}
		d.Value, d.Lo, d.Hi = v, lo, hi
		return d
	}
	base := diff(experiment.AuditQuality, 5, 1, 9)
	for _, c := range []struct {
		o    experiment.Diff
		want string
	}{
		{diff(experiment.AuditQuality, 3, 0.5, 6), SwapHolds},
		{diff(experiment.AuditQuality, 3, -0.5, 6), SwapUnclear},
		{diff(experiment.AuditQuality, -3, -6, -0.5), SwapReverses},
		{diff(experiment.AuditQuality, nan, nan, nan), SwapNoData},
	} {
		if got := Swap(base, c.o); got != c.want {
			t.Errorf("Swap(%+v) = %q, want %q", c.o.Estimate, got, c.want)
		}
	}
	if got := Swap(diff(experiment.AuditQuality, 0, -1, 1), diff(experiment.AuditQuality, 3, 1, 5)); got != SwapNoBaseline {
		t.Errorf("against a difference of 0: %q, want %q", got, SwapNoBaseline)
	}
	if got := Swap(diff(experiment.Realism, 5, 1, 9), diff(experiment.Realism, 5, 1, 9)); got != SwapSame {
		t.Errorf("realism: %q, want %q", got, SwapSame)
	}
	if h, n := SwapCount(diff(experiment.AuditQuality, 5, -1, 9), []experiment.Diff{diff(experiment.AuditQuality, 3, 1, 5)}); h != 1 || n != 2 {
		t.Errorf("a page difference whose interval holds 0: holds under %d of %d, want 1 of 2", h, n)
	}
}
