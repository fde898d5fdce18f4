package app

import (
	"context"
	"math"
	"slices"

	"github.com/auditscope/auditscope/analysis"
	"github.com/auditscope/auditscope/analysis/experiment"
	"github.com/auditscope/auditscope/data/model"
)

// EvalJudge names the judge an experiment's audits were imported with (its
// evaluation judge), beside the judges attached since (issue #51).
const EvalJudge = "evaluation judge"

// JudgeResamples resample an experiment's seeds for the judges page's
// intervals; MaxDisagreements audits a pair's page lists.
const (
	JudgeResamples   = 2000
	MaxDisagreements = 10
)

// Judges is an experiment's judges checked against each other.
type Judges struct {
	Exp    model.Experiment
	Judges []model.JudgeInfo // the evaluation judge first
	Pairs  []JudgePair
	// Humans are each 0/1 label a person gave checked against the
	// evaluation judge's verdict at the yield threshold.
	Humans    []HumanCheck
	Threshold float64
}

// JudgePair is two judges on each dimension both scored.
type JudgePair struct {
	A, B     string
	Rows     []JudgeRow
	Disagree []Disagreement
}

// JudgeRow is a pair's agreement on one dimension.
type JudgeRow struct {
	Dim         string
	N, Clusters int
	Kappa       Estimate
	Alpha       Estimate
	Diff        Estimate // B − A
}

// Disagreement is an audit two judges scored far apart.
type Disagreement struct {
	Audit, Dim string
	A, B       float64
}

// HumanCheck is a person's 0/1 labels of a dimension against the
// evaluation judge's verdict (score ≥ threshold).
type HumanCheck struct {
	Rater, Dim     string
	TP, FP, FN, TN int
	Sensitivity    Estimate
	Specificity    Estimate
	Observed       Estimate // the judge's yield over every audit it judged
	Corrected      Estimate // Rogan–Gladen
}

// judgeSide is one judge's scores: by audit, in the order of dims.
type judgeSide struct {
	name, kind string
	dims       []string
	at         map[string]int // dims' positions
	scores     map[string][]float64
}

func newSide(name, kind string, dims []string, scores map[string][]float64) judgeSide {
	at := make(map[string]int, len(dims))
	for i, d := range dims {
		at[d] = i
	}
	return judgeSide{name: name, kind: kind, dims: dims, at: at, scores: scores}
}

// score is the judge's score of an audit on its i-th dimension (NaN for
// none).
func (j judgeSide) score(audit string, i int) float64 {
	row, ok := j.scores[audit]
	if !ok || i < 0 || i >= len(row) {
		return math.NaN()
	}
	return row[i]
}

// JudgesOf computes the judges page of exp, once per version of the data.
func (s *Service) JudgesOf(ctx context.Context, exp string) (Judges, error) {
	return kept(ctx, s, "judges\x00"+exp, func(ctx context.Context) (Judges, error) { return s.judgesOf(ctx, exp) })
}

func (s *Service) judgesOf(ctx context.Context, exp string) (Judges, error) {
	e, err := s.r.Experiment(ctx, exp)
	if err != nil {
		return Judges{}, err
	}
	dims, err := s.r.ScoreDimensions(ctx, exp)
	if err != nil {
		return Judges{}, err
	}
	all, err := s.r.CountAudits(ctx, model.AuditFilter{Experiment: exp})
	if err != nil {
		return Judges{}, err
	}
	others, err := s.r.Judges(ctx, exp)
	if err != nil {
		return Judges{}, err
	}
	out := Judges{Exp: e, Threshold: DefaultThreshold}
	out.Judges = append(out.Judges, model.JudgeInfo{Name: EvalJudge, Kind: model.JudgeModel, Audits: all, Dimensions: dims})
	js, err := s.judgedSides(ctx, exp, others)
	if err != nil {
		return Judges{}, err
	}
	out.Judges = append(out.Judges, others...)
	evalByDim := map[string]evalDim{} // the raters of one dimension read it once
	for i, a := range js {
		pairs := []struct{ a, b judgeSide }{{a.eval, a.side}}
		for _, b := range js[i+1:] {
			pairs = append(pairs, struct{ a, b judgeSide }{a.side, b.side})
		}
		for _, pr := range pairs {
			p, checks, err := comparePair(pr.a, pr.b, a.ids, a.cluster)
			if err != nil {
				return Judges{}, err
			}
			if len(p.Rows) > 0 {
				out.Pairs = append(out.Pairs, p)
			}
			for _, c := range checks {
				h, err := s.humanCheck(ctx, exp, c, out.Threshold, evalByDim)
				if err != nil {
					return Judges{}, err
				}
				out.Humans = append(out.Humans, h)
			}
		}
	}
	return out, nil
}

// judgePair is one other judge's scores beside the evaluation judge's of the
// same audits (ids in order, their seeds as clusters).
type judgePair struct {
	side, eval judgeSide
	ids        []string
	cluster    map[string]int
}

// judgedSides reads each judge with the evaluation judge's scores of the
// audits it judged, on its dimensions: at 100,000 audits, reading every
// audit's every score was most of the page's time.
func (s *Service) judgedSides(ctx context.Context, exp string, others []model.JudgeInfo) ([]judgePair, error) {
	var js []judgePair
	for _, j := range others {
		sc, err := s.r.JudgeScores(ctx, exp, j)
		if err != nil {
			return nil, err
		}
		set, err := s.r.JudgedBy(ctx, exp, j.Name, j.Dimensions)
		if err != nil {
			return nil, err
		}
		ids, cluster, evalScores := auditSeeds(set)
		js = append(js, judgePair{newSide(j.Name, j.Kind, j.Dimensions, sc.Scores), newSide(EvalJudge, model.JudgeModel, j.Dimensions, evalScores), ids, cluster})
	}
	return js, nil
}

// evalDim is the evaluation judge's scores of one dimension on every
// audit, with their seeds.
type evalDim struct {
	seeds  []string
	scores []float64
}

// auditSeeds are a judged set's audit ids in order, each audit's seed as a
// cluster number, and its scores by id.
func auditSeeds(set model.JudgedSet) (ids []string, cluster map[string]int, scores map[string][]float64) {
	seeds := map[string]int{}
	cluster = make(map[string]int, len(set.Audits))
	scores = make(map[string][]float64, len(set.Audits))
	for _, a := range set.Audits {
		if _, ok := seeds[a.Seed]; !ok {
			seeds[a.Seed] = len(seeds)
		}
		ids = append(ids, a.ID)
		cluster[a.ID], scores[a.ID] = seeds[a.Seed], a.Scores
	}
	return ids, cluster, scores
}

// humanLabels are a person's 0/1 labels of a dimension beside the
// evaluation judge's scores of the same audits, and their seeds.
type humanLabels struct {
	rater, dim string
	judge, by  []float64
	cluster    []int
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

// humanCheck checks the evaluation judge's verdicts (score ≥ threshold)
// against a person's 0/1 labels on the audits both judged, and corrects
// the judge's rate over every audit it judged on the dimension.
func (s *Service) humanCheck(ctx context.Context, exp string, h humanLabels, threshold float64, read map[string]evalDim) (HumanCheck, error) {
	lj, lh := make([]bool, len(h.judge)), make([]bool, len(h.by))
	for i := range h.judge {
		lj[i], lh[i] = h.judge[i] >= threshold, h.by[i] == 1
	}
	e, ok := read[h.dim]
	if !ok {
		var err error
		if e.seeds, e.scores, err = s.r.EvalScores(ctx, exp, h.dim); err != nil {
			return HumanCheck{}, err
		}
		read[h.dim] = e
	}
	seedOfAudit, scores := e.seeds, e.scores
	seeds := map[string]int{}
	var all []bool
	var allc []int
	for i, x := range scores {
		if !math.IsNaN(x) {
			sd := seedOfAudit[i]
			if _, ok := seeds[sd]; !ok {
				seeds[sd] = len(seeds)
			}
			all, allc = append(all, x >= threshold), append(allc, seeds[sd])
		}
	}
	r, err := analysis.CheckJudge(all, allc, lj, lh, h.cluster, JudgeResamples, judgedConfidence, experiment.Seed("", h.rater, h.dim))
	return HumanCheck{Rater: h.rater, Dim: h.dim, TP: r.TP, FP: r.FP, FN: r.FN, TN: r.TN, Sensitivity: r.Sensitivity, Specificity: r.Spec,
		Observed: r.Observed, Corrected: r.Corrected}, err
}

func binary(v []float64) bool {
	for _, x := range v {
		if x != 0 && x != 1 {
			return false
		}
	}
	return true
}
