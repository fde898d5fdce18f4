package app

import (
	"context"
	"slices"
)

// CompareQuery is the compare page's query as web parses it from the URL:
// auditor A, the auditors B compared with it (in the order given), and
// whose outcomes are read ("" the evaluation judge's).
type CompareQuery struct {
	A     string
	B     []string
	Judge string
}

// MaxCompareB bounds the auditors one page compares A with.
const MaxCompareB = 8

// ComparePage is what the compare page, its CSV and its figure show: the
// statistics they read, A against each B, and each of those differences
// read under every other judge. With no A and B chosen the page lists the
// paper's comparisons instead (PresetResults).
type ComparePage struct {
	Stats       *ExperimentStats
	Query       CompareQuery
	Comparisons []Comparison
	Swaps       []Under
}

// ComparePage checks q against the experiment's auditors and judges, a few
// rows read before anything is computed (a query that names nothing costs
// no statistics), then computes the page. both refuses a query without A
// and a B: the CSV has nothing to hold without them.
func (s *Service) ComparePage(ctx context.Context, exp string, q CompareQuery, both bool) (*ComparePage, error) {
	if _, err := s.r.Experiment(ctx, exp); err != nil {
		return nil, err
	}
	auditors, err := s.r.Auditors(ctx, exp)
	if err != nil {
		return nil, err
	}
	judges, err := s.r.Judges(ctx, exp)
	if err != nil {
		return nil, err
	}
	if err := checkJudge(q.Judge, outcomeJudges(judges)); err != nil {
		return nil, err
	}
	ids := make([]string, len(auditors))
	for i, a := range auditors {
		ids[i] = a.ID
	}
	if q, err = CheckCompare(q, ids, both, "auditor"); err != nil {
		return nil, err
	}
	st, err := s.statsUnder(ctx, exp, q.Judge)
	if err != nil {
		return nil, err
	}
	p := &ComparePage{Stats: st, Query: q}
	if p.Comparisons, err = s.Compare(ctx, st, q.A, q.B); err != nil {
		return nil, err
	}
	p.Swaps, err = s.JudgeSwap(ctx, st, q.A, q.B)
	return p, err
}

// CheckCompare checks a compare query against the auditors (or, for plain
// Inspect samples, the models) ids it may name, and returns it with the Bs
// given twice or empty left out. both requires A and a B; what names the
// things compared ("auditor", "model") when they are missing.
func CheckCompare(q CompareQuery, ids []string, both bool, what string) (CompareQuery, error) {
	if q.A != "" && !slices.Contains(ids, q.A) {
		return q, UnknownValue("A", q.A, ids)
	}
	var bs []string
	for _, b := range q.B {
		if b == "" || slices.Contains(bs, b) {
			continue
		}
		if !slices.Contains(ids, b) {
			return q, UnknownValue("B", b, ids)
		}
		if b == q.A {
			return q, FieldErrorf("B", "%q is A itself; compare it with another auditor", b)
		}
		bs = append(bs, b)
	}
	q.B = bs
	if len(q.B) > MaxCompareB {
		return q, FieldErrorf("B", "at most %d auditors at once, found %d", MaxCompareB, len(q.B))
	}
	if len(q.B) > 0 && q.A == "" {
		return q, FieldErrorf("A", "missing; give the auditor A to compare the Bs with")
	}
	if both && (q.A == "" || len(q.B) == 0) {
		return q, FieldErrorf("AB", "give the %s A and one or more %ss B", what, what)
	}
	return q, nil
}
