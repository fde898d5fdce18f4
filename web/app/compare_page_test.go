package app

import (
	"context"
	"errors"
	"math"
	"testing"

	"github.com/auditscope/auditscope/analysis/experiment"
)

// TestComparePageChecksFirst: a compare query that names no auditor, a
// judge with no outcomes (one that scored judge dimensions only, one
// unknown), A among the Bs, Bs without A, or no B where both are needed is
// refused naming the query's field before the outcome rows are read (no
// statistics computed for it); a good one gives the page: A − B +11.5 under
// the evaluation judge (swapExperiment's), −11.5 under "rev", the Bs
// given twice or empty left out.
func TestComparePageChecksFirst(t *testing.T) {
	ctx := context.Background()
	r := swapExperiment()
	s := New(r)
	for _, c := range []struct {
		q     CompareQuery
		both  bool
		field string
	}{
		{CompareQuery{A: "zz", B: []string{"b"}}, false, "A"},
		{CompareQuery{A: "a", B: []string{"zz"}}, false, "B"},
		{CompareQuery{A: "a", B: []string{"a"}}, false, "B"},
		{CompareQuery{B: []string{"b"}}, false, "A"},
		{CompareQuery{A: "a", B: []string{"b"}, Judge: "dims"}, false, "Judge"},
		{CompareQuery{A: "a"}, true, "AB"},
		{CompareQuery{A: "a", B: []string{"b"}, Judge: "nobody"}, false, "Judge"},
	} {
		_, err := s.ComparePage(ctx, "x", c.q, c.both)
		var qe *QueryError
		if !errors.As(err, &qe) || qe.Field != c.field {
			t.Errorf("%+v (both %v): %v, want a query error of %s", c.q, c.both, err, c.field)
		}
	}
	if r.reads != 0 {
		t.Fatalf("the refused queries read the outcome rows %d times, want none", r.reads)
	}
	if _, err := s.ComparePage(ctx, "x", CompareQuery{}, false); err != nil {
		t.Fatalf("no A and no B (the page's pickers): %v", err)
	}

	p, err := s.ComparePage(ctx, "x", CompareQuery{A: "a", B: []string{"", "b", "b"}}, true)
	if err != nil {
		t.Fatal(err)
	}
	if len(p.Query.B) != 1 || len(p.Comparisons) != 1 {
		t.Fatalf("Bs %q, %d comparisons; want b once", p.Query.B, len(p.Comparisons))
	}
	if d := DiffOf(p.Comparisons, "b", experiment.AuditQuality); math.Abs(d.Value-11.5) > 1e-12 {
		t.Errorf("A − B %v, want 11.5", d.Value)
	}
	var rev *Under
	for i := range p.Swaps {
		if p.Swaps[i].Judge == "rev" {
			rev = &p.Swaps[i]
		}
	}
	if rev == nil {
		t.Fatalf("no reading under rev among %d", len(p.Swaps))
	}
	if d := DiffOf(rev.Comps, "b", experiment.AuditQuality); math.Abs(d.Value+11.5) > 1e-12 {
		t.Errorf("A − B under rev %v, want −11.5", d.Value)
	}

	under, err := s.ComparePage(ctx, "x", CompareQuery{A: "a", B: []string{"b"}, Judge: "rev"}, true)
	if err != nil {
		t.Fatal(err)
	}
	if d := DiffOf(under.Comparisons, "b", experiment.AuditQuality); under.Stats.Judge != "rev" || math.Abs(d.Value+11.5) > 1e-12 {
		t.Errorf("the page under rev: judge %q, A − B %v; want rev, −11.5", under.Stats.Judge, d.Value)
	}
}
