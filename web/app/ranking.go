package app

import (
	"cmp"
	"context"
	"errors"
	"math"
	"runtime"
	"slices"
	"strings"
	"sync"
	"sync/atomic"

	"github.com/auditscope/auditscope/analysis"
	"github.com/auditscope/auditscope/analysis/experiment"
)

// CompositeRanking is the overview's answer to "which auditor is best?": the
// auditors with a composite, best first, and the best compared with each
// of the others by the compare page's test of the composite.
type CompositeRanking struct {
	Rows []CompositeRank
	// Unranked are the auditors without a composite (a dimension has no
	// data), in the order given.
	Unranked []string
}

// CompositeRank is one auditor of a ranking.
type CompositeRank struct {
	ID        string
	Composite analysis.Estimate
	// VsBest is the best's composite minus this one's with the compare
	// page's interval and p-value (compare?a=best&b=this); for the best
	// itself, NaN.
	VsBest experiment.Diff
	// Tied: the interval of the difference holds 0, the page's definition
	// of "not distinguishable" (the p-value, from the same resamples, can
	// sit a resample away from 0.05 on the other side). The best is tied
	// with itself.
	Tied bool
}

// Best is the first row's auditor, "" for an empty ranking.
func (r CompositeRanking) Best() string {
	if len(r.Rows) == 0 {
		return ""
	}
	return r.Rows[0].ID
}

// Rank ranks the auditors ids of st by composite, highest first (ties by
// the order given), and compares the best with each other one exactly as
// the compare page does: the same units, resamples and seed, so that
// compare?a=best&b=other shows the same difference, interval and p-value.
// The comparisons are one family: VsBest.PHolm adjusts their p-values
// together by Holm's method (the bootstrap's floor, 2/(resamples + 1) at
// 10,000 resamples, survives it over up to 250 auditors).
func (s *Service) Rank(ctx context.Context, st *ExperimentStats, ids []string) (CompositeRanking, error) {
	key := st.Key() + "\x00" + strings.Join(ids, "\x00")
	return s.ranks.Get(ctx, key, func(ctx context.Context) (CompositeRanking, error) { return rank(ctx, st, ids) })
}

// ranksCacheSize bounds the rankings kept: one per filter of the overview
// people use (each a few kB).
const ranksCacheSize = 128

func rank(ctx context.Context, st *ExperimentStats, ids []string) (CompositeRanking, error) {
	byID := make(map[string]AuditorScores, len(st.Auditors))
	for _, a := range st.Auditors {
		byID[a.Auditor.ID] = a
	}
	var r CompositeRanking
	for _, id := range ids {
		c, ok := byID[id].Score[Composite]
		if !ok || math.IsNaN(c.Value) {
			r.Unranked = append(r.Unranked, id)
			continue
		}
		r.Rows = append(r.Rows, CompositeRank{ID: id, Composite: c})
	}
	slices.SortStableFunc(r.Rows, func(a, b CompositeRank) int { return cmp.Compare(b.Composite.Value, a.Composite.Value) })
	if len(r.Rows) == 0 {
		return r, nil
	}
	u, err := st.units()
	if err != nil {
		return r, err
	}
	best := r.Rows[0].ID
	r.Rows[0].Tied = true
	r.Rows[0].VsBest = experiment.Diff{Dimension: Composite, Estimate: analysis.Estimate{Value: math.NaN(), Lo: math.NaN(), Hi: math.NaN()}, P: math.NaN(), PHolm: math.NaN()}
	// The comparisons are independent (each has its own seed, and the
	// units are only read): one per core at a time, which halves a cold
	// overview's wait on two cores (57 bootstraps of the demo's size took
	// 0.3 s one after another).
	errs := make([]error, len(r.Rows))
	var next atomic.Int64
	var wg sync.WaitGroup
	for range min(runtime.GOMAXPROCS(0), len(r.Rows)-1) {
		wg.Go(func() {
			for {
				i := int(next.Add(1))
				if i >= len(r.Rows) {
					return
				}
				if errs[i] = ctx.Err(); errs[i] != nil {
					return
				}
				d, err := u.Composite(best, r.Rows[i].ID, BootstrapResamples, experiment.PairSeed(st.Exp.ID, best, r.Rows[i].ID, "compare"))
				r.Rows[i].VsBest, r.Rows[i].Tied, errs[i] = d, !(d.Lo > 0 || d.Hi < 0), err
			}
		})
	}
	wg.Wait()
	if len(r.Rows) > 1 {
		ps := make([]float64, len(r.Rows)-1)
		for i := range ps {
			ps[i] = r.Rows[i+1].VsBest.P
		}
		for i, p := range analysis.Holm(ps) {
			r.Rows[i+1].VsBest.PHolm = p
		}
	}
	return r, errors.Join(errs...)
}
