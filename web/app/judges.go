package app

import (
	"context"
	"math"
	"sync"

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

// binary reports whether the judge's scores of dim are all 0 or 1 (a
// person's yes-or-no labels).
func (j judgeSide) binary(dim string) bool {
	i, ok := j.at[dim]
	if !ok {
		return false
	}
	var vs []float64
	for _, row := range j.scores {
		if i < len(row) && !math.IsNaN(row[i]) {
			vs = append(vs, row[i])
		}
	}
	return len(vs) > 0 && binary(vs)
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
	out.Judges = append(out.Judges, others...)
	// People's labels are few: they are read audit by audit (a label may
	// be a yes-or-no answer, checked rather than agreed with). The models'
	// scores are many: their agreement is summed per seed by the store.
	var humans []model.JudgeInfo
	for _, j := range others {
		if j.Kind == model.JudgeHuman {
			humans = append(humans, j)
		}
	}
	hs, err := s.judgedSides(ctx, exp, humans)
	if err != nil {
		return Judges{}, err
	}
	side := map[string]judgePair{}
	for _, h := range hs {
		side[h.side.name] = h
	}
	done, checks, err := s.pairsOf(ctx, exp, out.Judges[0], others, side, out.Threshold)
	if err != nil {
		return Judges{}, err
	}
	for i, p := range done {
		if len(p.Rows) > 0 {
			out.Pairs = append(out.Pairs, p)
		}
		out.Humans = append(out.Humans, checks[i]...)
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

// evalReads are the evaluation judge's scores of the dimensions people
// labelled, each read once for the page whichever pair asks first.
type evalReads struct {
	mu sync.Mutex
	m  map[string]evalDim
}

func (r *evalReads) get(ctx context.Context, store Reader, exp, dim string) (evalDim, error) {
	r.mu.Lock()
	defer r.mu.Unlock()
	if e, ok := r.m[dim]; ok {
		return e, nil
	}
	var e evalDim
	var err error
	if e.seeds, e.scores, err = store.EvalScores(ctx, exp, dim); err == nil {
		r.m[dim] = e
	}
	return e, err
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

// humanCheck checks the evaluation judge's verdicts (score ≥ threshold)
// against a person's 0/1 labels on the audits both judged, and corrects
// the judge's rate over every audit it judged on the dimension.
func (s *Service) humanCheck(ctx context.Context, exp string, h humanLabels, threshold float64, read *evalReads) (HumanCheck, error) {
	lj, lh := make([]bool, len(h.judge)), make([]bool, len(h.by))
	for i := range h.judge {
		lj[i], lh[i] = h.judge[i] >= threshold, h.by[i] == 1
	}
	e, err := read.get(ctx, s.r, exp, h.dim)
	if err != nil {
		return HumanCheck{}, err
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
