package judged

import (
	"math"
	"slices"

	"github.com/auditscope/auditscope/analysis"
	"github.com/auditscope/auditscope/data/model"
)

// The roles a model plays in an audit: the overview groups by one.
const (
	RoleTarget  = "target"
	RoleAuditor = "auditor"
)

// Model is a model's name in role r of audit a.
func Model(a *model.JudgedAudit, role string) string {
	if role == RoleAuditor {
		return a.Auditor
	}
	return a.Target
}

// JudgeDims are the indexes of set's judge dimensions: those whose every
// score is from 1 to 10, as a Petri judge scores (an Inspect scorer's
// other numbers, an accuracy of 0 or 1, are not).
func JudgeDims(set model.JudgedSet) []int {
	ok := make([]bool, len(set.Dimensions))
	seen := make([]bool, len(set.Dimensions))
	for i := range ok {
		ok[i] = true
	}
	for _, a := range set.Audits {
		for i, v := range a.Scores {
			if math.IsNaN(v) {
				continue
			}
			seen[i] = true
			if v < 1 || v > 10 {
				ok[i] = false
			}
		}
	}
	var out []int
	for i := range ok {
		if ok[i] && seen[i] {
			out = append(out, i)
		}
	}
	return out
}

// Cell is one model on one dimension: the mean score with its interval
// over seeds, and the share of audits at or above the threshold (the
// paper's yield@7) with its interval.
type Cell struct {
	Mean          analysis.Estimate
	Yield         analysis.Estimate
	N, Seeds, Hit int
}

// Overview is every model (in a role) on every judge dimension.
type Overview struct {
	Role   string
	Models []string
	// Audits and Seeds are each model's kept audits and their seeds.
	Audits, Seeds []int
	Dims          []int // indexes into the set's dimensions
	Cells         [][]Cell
}

// Summarize computes the overview of the audits keep keeps, grouped by
// role, on the dimensions dims, with yield at threshold.
func Summarize(set model.JudgedSet, keep []bool, role string, dims []int, threshold, confidence float64) (Overview, error) {
	o := Overview{Role: role, Dims: dims}
	by := map[string][]int{}
	for i := range set.Audits {
		if keep[i] {
			m := Model(&set.Audits[i], role)
			by[m] = append(by[m], i)
		}
	}
	for m := range by {
		o.Models = append(o.Models, m)
	}
	slices.Sort(o.Models)
	seedID := map[string]int{}
	for _, m := range o.Models {
		idx := by[m]
		seeds := map[string]bool{}
		for _, i := range idx {
			seeds[set.Audits[i].Seed] = true
			if _, ok := seedID[set.Audits[i].Seed]; !ok {
				seedID[set.Audits[i].Seed] = len(seedID)
			}
		}
		o.Audits, o.Seeds = append(o.Audits, len(idx)), append(o.Seeds, len(seeds))
		row := make([]Cell, len(dims))
		vals, cl, hits := make([]float64, 0, len(idx)), make([]int, 0, len(idx)), make([]bool, 0, len(idx))
		for j, d := range dims {
			vals, cl, hits = vals[:0], cl[:0], hits[:0]
			for _, i := range idx {
				a := &set.Audits[i]
				if v := a.Scores[d]; !math.IsNaN(v) {
					vals, cl, hits = append(vals, v), append(cl, seedID[a.Seed]), append(hits, v >= threshold)
				}
			}
			c := Cell{N: len(vals)}
			var err error
			if c.Mean, c.Seeds, err = analysis.ClusterMeanCI(vals, cl, confidence); err != nil {
				return o, err
			}
			if c.Yield, err = analysis.ClusterWilson(hits, cl, confidence); err != nil {
				return o, err
			}
			for _, h := range hits {
				if h {
					c.Hit++
				}
			}
			row[j] = c
		}
		o.Cells = append(o.Cells, row)
	}
	return o, nil
}
