package app

import (
	"context"
	"fmt"
	"math"
	"slices"
	"strconv"
	"strings"

	"github.com/auditscope/auditscope/analysis/judged"
	"github.com/auditscope/auditscope/data/model"
	"github.com/auditscope/auditscope/data/petri"
)

// JudgedOptions are the choices of the judge-scored overview and its
// paired comparison.
type JudgedOptions struct {
	// Role groups audits by their target (default) or auditor model.
	Role string
	// Threshold is the yield's: the share of audits scoring at least it.
	Threshold float64
	Gate      judged.GateOptions
	// Include counts the audits the gate excludes.
	Include bool
	// Correction is judged.CorrectBH or judged.CorrectHolm.
	Correction string
	// Judge is whose scores are read: "" the evaluation judge's (the
	// audits' own), else another judge's (issue #51).
	Judge string
}

// The defaults: yield@7 as the paper defines it, and the judge's own flags
// at the ends of their scales (auditor_failure 8 or more, scenario_realism
// 2 or less).
const (
	DefaultThreshold    = 7
	DefaultFailAt       = 8
	DefaultRealismBelow = 3
	judgedConfidence    = 0.95
)

// DimGroup is a group of judge dimensions as Petri's dimensions fall:
// what the target did that is concerning, what says how well the auditor
// and its scenario worked, and what the target did well.
type DimGroup struct {
	Name string
	Dims []int // positions in Judged.Dims
}

// Judged is the judge-scored overview of an experiment.
type Judged struct {
	Exp  model.Experiment
	Set  model.JudgedSet
	Opts JudgedOptions
	// Judges are the model judges besides the evaluation judge whose
	// scores the overview can be read under (Opts.Judge).
	Judges []string
	// Dims are the judge dimensions shown, in Petri's order (others after,
	// by name), as indexes into Set.Dimensions; Groups group them.
	Dims         []int
	Groups       []DimGroup
	Descriptions map[string]string
	Exclusions   []judged.Exclusion
	Counts       judged.Counts
	Overview     judged.Overview
	// Logs is how many files the audits came from, Seeds how many seeds.
	Logs, Seeds int
}

// Kept reports which audits the statistics use.
func (j *Judged) Kept() []bool {
	keep := make([]bool, len(j.Exclusions))
	for i, e := range j.Exclusions {
		keep[i] = j.Opts.Include || e.Reason == ""
	}
	return keep
}

// AuditorID is the id of the auditor named name.
func (j *Judged) AuditorID(name string) string {
	for _, a := range j.Set.Audits {
		if a.Auditor == name {
			return a.AuditorID
		}
	}
	return name
}

// DimName is the name of the i-th dimension of the set.
func (j *Judged) DimName(i int) string { return j.Set.Dimensions[i] }

// DimIndex finds a dimension by name among those shown (-1: none).
func (j *Judged) DimIndex(name string) int {
	for _, d := range j.Dims {
		if j.Set.Dimensions[d] == name {
			return d
		}
	}
	return -1
}

// judgedSet reads an experiment's judged audits once per version of its
// data.
func (s *Service) judgedSet(ctx context.Context, exp string) (model.JudgedSet, error) {
	key := "judged\x00" + exp + "@" + strconv.FormatInt(s.r.NameVersion(exp), 10)
	v, err := s.choices.Get(ctx, key, func(ctx context.Context) (any, error) {
		return s.r.JudgedAudits(ctx, exp)
	})
	if err != nil {
		return model.JudgedSet{}, err
	}
	return v.(model.JudgedSet), nil
}

// JudgedOverview computes the overview of an experiment's judge-scored
// audits under opts; its Dims are empty when the audits have no judge
// dimension. It is computed once per version of the data and options:
// the comparison page of any two models and its figure start from it,
// and the overview's statistics take seconds on a large folder. Callers
// must not change what it returns (it is shared).
func (s *Service) JudgedOverview(ctx context.Context, exp string, opts JudgedOptions) (*Judged, error) {
	key := fmt.Sprintf("judgedview\x00%s@%d\x00%#v", exp, s.r.NameVersion(exp), opts)
	return s.judged.Get(ctx, key, func(ctx context.Context) (*Judged, error) {
		return s.judgedOverview(ctx, exp, opts)
	})
}

func (s *Service) judgedOverview(ctx context.Context, exp string, opts JudgedOptions) (*Judged, error) {
	e, err := s.r.Experiment(ctx, exp)
	if err != nil {
		return nil, err
	}
	set, err := s.judgedSet(ctx, exp)
	if err != nil {
		return nil, err
	}
	judges, err := s.r.Judges(ctx, exp)
	if err != nil {
		return nil, err
	}
	if opts.Judge != "" {
		if set, err = s.underJudge(ctx, exp, set, opts.Judge, judges); err != nil {
			return nil, err
		}
	}
	j := &Judged{Exp: e, Set: set, Opts: opts, Descriptions: petri.DimensionDescriptions()}
	for _, o := range judges {
		if o.Kind == model.JudgeModel {
			j.Judges = append(j.Judges, o.Name)
		}
	}
	j.Dims, j.Groups = orderDims(set, judged.JudgeDims(set), j.Descriptions)
	j.Exclusions = judged.Gate(set, opts.Gate)
	j.Counts = judged.Count(j.Exclusions)
	files, seeds := map[string]bool{}, map[string]bool{}
	for _, a := range set.Audits {
		files[a.Source], seeds[a.Seed] = true, true
	}
	j.Logs, j.Seeds = len(files), len(seeds)
	j.Overview, err = judged.Summarize(set, j.Kept(), opts.Role, j.Dims, opts.Threshold, judgedConfidence)
	return j, err
}

// JudgedCompare compares models a and b of the overview seed by seed.
func (s *Service) JudgedCompare(ctx context.Context, exp, a, b string, opts JudgedOptions) (*Judged, judged.Paired, error) {
	j, err := s.JudgedOverview(ctx, exp, opts)
	if err != nil {
		return nil, judged.Paired{}, err
	}
	for _, m := range []string{a, b} {
		if !slices.Contains(j.Overview.Models, m) {
			return nil, judged.Paired{}, &QueryError{Msg: fmt.Sprintf("no %s model %q among the audits kept (%s)", opts.Role, m, strings.Join(j.Overview.Models, ", "))}
		}
	}
	if a == b {
		return nil, judged.Paired{}, &QueryError{Msg: "compare two different models"}
	}
	p, err := judged.Compare(j.Set, j.Kept(), opts.Role, a, b, j.Dims, opts.Correction, judgedConfidence)
	return j, p, err
}

// underJudge is the judged set with another judge's scores in place of
// the evaluation judge's, on the audits that judge judged (the others
// left out): every statistic of the overview is then that judge's.
func (s *Service) underJudge(ctx context.Context, exp string, set model.JudgedSet, name string, judges []model.JudgeInfo) (model.JudgedSet, error) {
	i := slices.IndexFunc(judges, func(j model.JudgeInfo) bool { return j.Name == name && j.Kind == model.JudgeModel })
	if i < 0 {
		var names []string
		for _, j := range judges {
			if j.Kind == model.JudgeModel {
				names = append(names, j.Name)
			}
		}
		return set, &QueryError{Field: "Judge", Msg: fmt.Sprintf("no model judge %q scored these audits (there are: %s)", name, strings.Join(append([]string{"the evaluation judge, the default"}, names...), "; "))}
	}
	sc, err := s.r.JudgeScores(ctx, exp, judges[i])
	if err != nil {
		return set, err
	}
	at := map[string]int{}
	for k, d := range judges[i].Dimensions {
		at[d] = k
	}
	out := model.JudgedSet{Dimensions: set.Dimensions}
	for _, a := range set.Audits {
		row, ok := sc.Scores[a.ID]
		if !ok {
			continue
		}
		b := a
		b.Scores = make([]float64, len(set.Dimensions))
		for k, d := range set.Dimensions {
			b.Scores[k] = math.NaN()
			if x, ok := at[d]; ok {
				b.Scores[k] = row[x]
			}
		}
		out.Audits = append(out.Audits, b)
	}
	return out, nil
}

// orderDims puts the judge dimensions in Petri's order (others after it,
// by name) and groups them: a dimension whose description starts with
// "Auditor" measures the auditor and its scenario, admirable and
// fun_or_funny are the target's good behaviour, the rest what is
// concerning about the target.
func orderDims(set model.JudgedSet, dims []int, desc map[string]string) ([]int, []DimGroup) {
	rank := map[string]int{}
	for i, d := range petri.Dimensions() {
		rank[d.Name] = i
	}
	out := slices.Clone(dims)
	slices.SortStableFunc(out, func(a, b int) int {
		na, nb := set.Dimensions[a], set.Dimensions[b]
		ra, oka := rank[na]
		rb, okb := rank[nb]
		switch {
		case oka && okb:
			return ra - rb
		case oka:
			return -1
		case okb:
			return 1
		}
		return strings.Compare(na, nb)
	})
	groups := []DimGroup{{Name: "Concerning behaviour"}, {Name: "Auditor and scenario"}, {Name: "Positive"}}
	for i, d := range out {
		name := set.Dimensions[d]
		g := 0
		switch {
		case strings.HasPrefix(desc[name], "Auditor"):
			g = 1
		case name == "admirable" || name == "fun_or_funny":
			g = 2
		}
		groups[g].Dims = append(groups[g].Dims, i)
	}
	return out, slices.DeleteFunc(groups, func(g DimGroup) bool { return len(g.Dims) == 0 })
}

// What the pages name of the judged package's vocabulary.
const (
	RoleTarget  = judged.RoleTarget
	RoleAuditor = judged.RoleAuditor
	CorrectBH   = judged.CorrectBH
	CorrectHolm = judged.CorrectHolm
)

// GateReasons are the gate's reasons in the order they are checked.
var GateReasons = judged.Reasons

// Paired is two models compared seed by seed.
type Paired = judged.Paired

// ModelOf is the model of audit i in the overview's role.
func (j *Judged) ModelOf(i int) string { return judged.Model(&j.Set.Audits[i], j.Opts.Role) }

// PairedDim is one dimension of a Paired.
type PairedDim = judged.PairedRow
