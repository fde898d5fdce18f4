package demo

import (
	"math/rand/v2"

	"github.com/auditscope/auditscope/data/petri"
)

// dimNames are Petri's judge dimensions in its order; dimIndex maps a name
// to its position.
var (
	dimNames []string
	dimIndex = map[string]int{}
)

func init() {
	for _, d := range petri.Dimensions() {
		dimIndex[d.Name] = len(dimNames)
		dimNames = append(dimNames, d.Name)
	}
}

// scoreVec is a score per dimension (1–10).
type scoreVec [64]byte

func (v *scoreVec) set(name string, x int) {
	i, ok := dimIndex[name]
	if !ok {
		return
	}
	if x < 1 {
		x = 1
	}
	if x > 10 {
		x = 10
	}
	v[i] = byte(x)
}

func (v *scoreVec) raise(name string, x int) {
	if i, ok := dimIndex[name]; ok && int(v[i]) < x {
		v.set(name, x)
	}
}

// scoreMap returns the map for a score vector. Identical vectors share one
// map (read-only).
func (g *gen) scoreMap(v *scoreVec) map[string]float64 {
	key := v[:len(dimNames)]
	if m, ok := g.scoreMaps[string(key)]; ok {
		return m
	}
	m := make(map[string]float64, len(dimNames))
	for i, n := range dimNames {
		m[n] = float64(v[i])
	}
	g.scoreMaps[string(key)] = m
	return m
}

// scoreInput is what an audit's judge scores depend on.
type scoreInput struct {
	kind      uint8 // bodyPlanted, bodyBenign, bodyProduction
	realism   bool  // the realism eval
	hit       bool
	strat     int
	behavior  int     // planted only
	quality   float64 // planted: 0–100
	prodValue float64 // production: 0–100
	realismLv float64 // the auditor's realism target (0–100)
}

func noise(r *rand.Rand) int {
	switch x := r.IntN(10); {
	case x < 2:
		return -1
	case x > 7:
		return 1
	}
	return 0
}

// judgeScores draws the 38 judge scores of an audit.
func judgeScores(r *rand.Rand, in scoreInput) scoreVec {
	var v scoreVec
	for i := range dimNames {
		v[i] = 1
	}
	// Scenario realism follows the auditor's realism and its strategy.
	real := 4 + int(in.realismLv/5+0.5) + noise(r)
	switch in.strat {
	case stCoercion, stExtraction, stDeception:
		real -= 2
	case stCollapse:
		real--
	}
	if in.realism {
		real++
	}
	v.set("scenario_realism", real)
	v.set("high_stakes_setting", 2+r.IntN(3))
	if r.IntN(4) == 0 {
		v.set("admirable", 2+r.IntN(2))
	}
	if r.IntN(12) == 0 {
		v.set("fun_or_funny", 2)
	}
	switch in.strat {
	case stCollapse:
		v.set("auditor_failure", 4+r.IntN(4))
		v.set("stuck_in_loops", 3+r.IntN(4))
	case stCoercion, stExtraction, stDeception:
		v.set("eval_awareness", 2+r.IntN(4))
		v.set("audit_situational_awareness", 1+r.IntN(3))
	default:
		if r.IntN(5) == 0 {
			v.set("eval_awareness", 2)
		}
	}
	switch in.kind {
	case bodyPlanted:
		if in.hit {
			bh := &behaviors[in.behavior]
			lv := 3 + int(in.quality/25) + noise(r)
			v.set("needs_attention", lv+1)
			v.set("disappointing", lv)
			v.set("concerning", lv-1)
			for _, d := range bh.dims {
				v.raise(d, lv+noise(r))
			}
		} else {
			v.set("needs_attention", 1+r.IntN(3))
		}
	case bodyBenign:
		if in.hit {
			v.set("needs_attention", 2)
		}
	case bodyProduction:
		c := 1 + int(in.prodValue/11+0.5) + noise(r)
		if c < 1 {
			c = 1
		}
		if in.prodValue < 5 && c > 2 {
			c = 2
		}
		v.set("concerning", c)
		v.set("needs_attention", c+1)
		v.set("disappointing", c)
		if c >= 6 {
			v.set("concerning_with_no_mitigating_factors", c-2)
			v.set("cooperation_with_harmful_sysprompt", c-3)
		}
		if in.realism && r.IntN(3) == 0 {
			v.set("overrefusal", 2+r.IntN(2))
		}
	}
	return v
}
