// Package judged computes what an experiment of judge-scored audits (Petri
// transcripts, Petri or Inspect logs with judge dimensions) shows: which
// audits a statistic may use (the validity gate), each model's mean and
// yield on every dimension with intervals over the seeds, and two models
// compared seed by seed across the dimensions.
//
// The seed, the scenario instruction an audit starts from, is what was
// sampled: audits of one seed (rollouts, epochs, runs) are not independent,
// so every interval here is over seeds.
package judged

import (
	"fmt"
	"math"
	"strconv"

	"github.com/auditscope/auditscope/data/model"
)

// The judge's own flags the gate reads, by Petri's names.
const (
	DimAuditorFailure  = "auditor_failure"
	DimScenarioRealism = "scenario_realism"
)

// GateOptions are the gate's thresholds on the judge's own flags.
type GateOptions struct {
	// FailAt excludes audits whose auditor_failure is at least it (0: not
	// checked).
	FailAt float64
	// RealismBelow excludes audits whose scenario_realism is below it (0:
	// not checked).
	RealismBelow float64
}

// The reasons an audit is excluded, in the order they are checked: an
// audit is counted under its first.
const (
	ReasonNoReply     = "no target reply"
	ReasonNoVerdict   = "no judge verdict"
	ReasonUnparsed    = "judge output not parsed"
	ReasonFailure     = "auditor failure"
	ReasonUnrealistic = "unrealistic scenario"
	ReasonDuplicate   = "duplicate transcript"
)

// Reasons lists the reasons in the order they are checked.
var Reasons = []string{ReasonNoReply, ReasonNoVerdict, ReasonUnparsed, ReasonFailure, ReasonUnrealistic, ReasonDuplicate}

// Exclusion is why an audit is excluded: one of Reasons, and the detail
// (the flag's value, the audit a duplicate repeats). Reason "" keeps it.
type Exclusion struct {
	Reason, Detail string
}

// Gate decides which audits a statistic may use. The checks are the data
// problems Petri leaves silent: a target that never replied, a verdict
// missing or filled with default scores because the judge's output could
// not be parsed, the judge's own flags on the auditor's scenario, and the
// same conversation imported twice under two ids (the later one excluded).
func Gate(set model.JudgedSet, opts GateOptions) []Exclusion {
	fail, real := index(set.Dimensions, DimAuditorFailure), index(set.Dimensions, DimScenarioRealism)
	out := make([]Exclusion, len(set.Audits))
	first := map[[3]string]string{}
	for i, a := range set.Audits {
		switch {
		case a.TargetReplies == 0:
			out[i] = Exclusion{Reason: ReasonNoReply}
		case a.Judge == "missing" || !anyScore(a.Scores):
			out[i] = Exclusion{Reason: ReasonNoVerdict}
		case a.Judge == "unparsed":
			out[i] = Exclusion{Reason: ReasonUnparsed, Detail: "no summary and no justification: the scores are Petri's defaults"}
		case opts.FailAt > 0 && fail >= 0 && a.Scores[fail] >= opts.FailAt:
			out[i] = Exclusion{Reason: ReasonFailure, Detail: fmt.Sprintf("%s %s ≥ %s", DimAuditorFailure, num(a.Scores[fail]), num(opts.FailAt))}
		case opts.RealismBelow > 0 && real >= 0 && a.Scores[real] < opts.RealismBelow:
			out[i] = Exclusion{Reason: ReasonUnrealistic, Detail: fmt.Sprintf("%s %s < %s", DimScenarioRealism, num(a.Scores[real]), num(opts.RealismBelow))}
		}
		if out[i].Reason != "" || a.Conversation == "" {
			continue
		}
		k := [3]string{a.Auditor, a.Target, a.Conversation}
		if id, ok := first[k]; ok {
			out[i] = Exclusion{Reason: ReasonDuplicate, Detail: "the same conversation as " + id}
			continue
		}
		first[k] = a.ID
	}
	return out
}

// Counts is how many audits each reason excludes, and how many are kept.
type Counts struct {
	Kept     int
	Excluded map[string]int
}

// Count counts the exclusions.
func Count(ex []Exclusion) Counts {
	c := Counts{Excluded: map[string]int{}}
	for _, e := range ex {
		if e.Reason == "" {
			c.Kept++
		} else {
			c.Excluded[e.Reason]++
		}
	}
	return c
}

// Total is how many are excluded.
func (c Counts) Total() int {
	n := 0
	for _, k := range c.Excluded {
		n += k
	}
	return n
}

func anyScore(s []float64) bool {
	for _, v := range s {
		if !math.IsNaN(v) {
			return true
		}
	}
	return false
}

func index(names []string, name string) int {
	for i, n := range names {
		if n == name {
			return i
		}
	}
	return -1
}

func num(v float64) string { return strconv.FormatFloat(v, 'g', -1, 64) }
