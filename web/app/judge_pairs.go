package app

import (
	"context"
	"errors"
	"math"
	"runtime"
	"slices"
	"sync"

	"golang.org/x/sync/errgroup"

	"github.com/auditscope/auditscope/analysis"
	"github.com/auditscope/auditscope/analysis/experiment"
	"github.com/auditscope/auditscope/data/model"
)

// pairsOf compares the pairs of judges in the page's order: the
// evaluation judge with each other, each followed by that judge with the
// ones after it. They are computed side by side (the store's reads and
// the bootstraps overlap).
func (s *Service) pairsOf(ctx context.Context, exp string, eval model.JudgeInfo, others []model.JudgeInfo, side map[string]judgePair, threshold float64) ([]JudgePair, [][]HumanCheck, error) {
	var pairs [][2]model.JudgeInfo
	for i, a := range others {
		pairs = append(pairs, [2]model.JudgeInfo{eval, a})
		for _, b := range others[i+1:] {
			pairs = append(pairs, [2]model.JudgeInfo{a, b})
		}
	}
	done := make([]JudgePair, len(pairs))
	checks := make([][]HumanCheck, len(pairs))
	read := &evalReads{m: map[string]evalDim{}}
	g, gctx := errgroup.WithContext(ctx)
	// Two pairs a core: many raters make many pairs, each its own
	// queries and bootstraps.
	g.SetLimit(2 * runtime.GOMAXPROCS(0))
	for i, pr := range pairs {
		g.Go(func() error {
			p, labels, err := s.judgePairOf(gctx, exp, pr[0], pr[1], side)
			done[i] = p
			// A person's labels checked against the evaluation judge
			// beside the other pairs.
			for _, l := range labels {
				if err != nil {
					break
				}
				var h HumanCheck
				h, err = s.humanCheck(gctx, exp, l, threshold, read)
				checks[i] = append(checks[i], h)
			}
			return err
		})
	}
	return done, checks, g.Wait()
}

// judgePairOf compares judges a and b (a before b in the page's order) on
// each dimension both scored. A pair with a person's labels is read audit
// by audit from side (comparePair); two models' agreement is summed per
// seed by the store.
func (s *Service) judgePairOf(ctx context.Context, exp string, a, b model.JudgeInfo, side map[string]judgePair) (JudgePair, []humanLabels, error) {
	ha, hb := side[a.Name], side[b.Name]
	switch {
	case a.Kind == model.JudgeHuman && b.Kind == model.JudgeHuman:
		return comparePair(ha.side, hb.side, ha.ids, ha.cluster)
	case a.Name == EvalJudge && b.Kind == model.JudgeHuman:
		return comparePair(hb.eval, hb.side, hb.ids, hb.cluster)
	}
	// A person's 0/1 labels and a model's 1–10 scores are not on one
	// scale: only the evaluation judge's verdicts are checked against them
	// (above); a person's 1–10 labels are agreed with.
	dims := bothDims(a.Dimensions, b.Dimensions)
	for _, h := range []judgePair{ha, hb} {
		if h.side.name != "" {
			dims = slices.DeleteFunc(dims, h.side.binary)
		}
	}
	p := JudgePair{A: a.Name, B: b.Name}
	if len(dims) == 0 {
		return p, nil, nil
	}
	name := func(j model.JudgeInfo) string {
		if j.Name == EvalJudge {
			return ""
		}
		return j.Name
	}
	ms, gaps, err := s.r.JudgeMoments(ctx, exp, name(a), name(b), dims, MaxDisagreements)
	if err != nil {
		return p, nil, err
	}
	slices.SortStableFunc(ms, func(x, y model.PairMoments) int { return slices.Index(dims, x.Dim) - slices.Index(dims, y.Dim) })
	if p.Rows, err = agreements(a.Name+"\x00"+b.Name, ms); err != nil {
		return p, nil, err
	}
	for _, g := range gaps {
		p.Disagree = append(p.Disagree, Disagreement{Audit: g.Audit, Dim: g.Dim, A: g.A, B: g.B})
	}
	return p, nil, nil
}

// bothDims are the dimensions of a that b scored too, in a's order.
func bothDims(a, b []string) []string {
	var out []string
	for _, d := range a {
		if slices.Contains(b, d) {
			out = append(out, d)
		}
	}
	return out
}

// agreements computes each dimension's agreement from its moments. Each
// dimension's bootstrap is its own (its seed is the pair's and the
// dimension's): they run on every core.
func agreements(pair string, ms []model.PairMoments) ([]JudgeRow, error) {
	rows := make([]JudgeRow, len(ms))
	errs := make([]error, len(ms))
	var wg sync.WaitGroup
	next := make(chan int)
	for range runtime.GOMAXPROCS(0) {
		wg.Go(func() {
			for i := range next {
				m := ms[i]
				per := make([]analysis.JudgeMoments, len(m.Clusters))
				for k, c := range m.Clusters {
					per[k] = analysis.JudgeMoments(c)
				}
				ag, err := analysis.CompareJudgeMoments(per, JudgeResamples, judgedConfidence, experiment.Seed("", pair, m.Dim))
				rows[i], errs[i] = JudgeRow{Dim: m.Dim, N: ag.N, Clusters: ag.Clusters, Kappa: ag.Kappa, Alpha: ag.Alpha, Diff: ag.Diff}, err
			}
		})
	}
	for i := range ms {
		next <- i
	}
	close(next)
	wg.Wait()
	return rows, errors.Join(errs...)
}

// comparePair compares two judges on each dimension both scored. A
// person's 0/1 labels of a dimension the other judge scores 1–10 are not
// an agreement on one scale: they are checked against that judge's
// verdict at the threshold instead (HumanCheck), for the evaluation judge.
func comparePair(a, b judgeSide, ids []string, cluster map[string]int) (JudgePair, []humanLabels, error) {
	p := JudgePair{A: a.name, B: b.name}
	var checks []humanLabels
	both := judgedByBoth(a, b, ids)
	for ai, dim := range a.dims {
		bi, ok := b.at[dim]
		if !ok {
			continue
		}
		var xs, ys []float64
		var cl []int
		var audits []string
		for _, id := range both {
			x, y := a.score(id, ai), b.score(id, bi)
			if math.IsNaN(x) || math.IsNaN(y) {
				continue
			}
			xs, ys, cl, audits = append(xs, x), append(ys, y), append(cl, cluster[id]), append(audits, id)
		}
		if len(xs) == 0 {
			continue
		}
		// A person's 0/1 labels and a model's 1–10 scores are not on one
		// scale: the labels check the evaluation judge's verdicts instead.
		// (A model's scores may all be 1: that is no yes-or-no answer.)
		if a.kind == model.JudgeHuman && binary(xs) && b.kind != model.JudgeHuman {
			continue
		}
		if b.kind == model.JudgeHuman && binary(ys) && a.kind != model.JudgeHuman {
			if a.name == EvalJudge {
				checks = append(checks, humanLabels{rater: b.name, dim: dim, judge: xs, by: ys, cluster: cl})
			}
			continue
		}
		ag, err := analysis.CompareJudges(xs, ys, cl, JudgeResamples, judgedConfidence, experiment.Seed("", a.name+"\x00"+b.name, dim))
		if err != nil {
			return p, nil, err
		}
		p.Rows = append(p.Rows, JudgeRow{Dim: dim, N: ag.N, Clusters: ag.Clusters, Kappa: ag.Kappa, Alpha: ag.Alpha, Diff: ag.Diff})
		for i := range xs {
			if xs[i] != ys[i] {
				p.Disagree = append(p.Disagree, Disagreement{Audit: audits[i], Dim: dim, A: xs[i], B: ys[i]})
			}
		}
		p.Disagree = mostApart(p.Disagree)
	}
	return p, checks, nil
}

// judgedByBoth are the audits both judges judged, in the evaluation
// judge's order (which fixes the resamples' draws).
func judgedByBoth(a, b judgeSide, ids []string) []string {
	var both []string
	for _, id := range ids {
		if _, ok := a.scores[id]; ok {
			if _, ok := b.scores[id]; ok {
				both = append(both, id)
			}
		}
	}
	return both
}

// mostApart keeps the MaxDisagreements audits scored furthest apart, the
// largest difference first (in dimension and audit order on ties).
func mostApart(d []Disagreement) []Disagreement {
	slices.SortStableFunc(d, func(x, y Disagreement) int {
		if v := math.Abs(y.B-y.A) - math.Abs(x.B-x.A); v != 0 {
			return int(math.Copysign(1, v))
		}
		return 0
	})
	return d[:min(len(d), MaxDisagreements)]
}
