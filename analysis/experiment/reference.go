package experiment

import (
	"sort"

	"github.com/auditscope/auditscope/analysis"
)

// The behavior splits of reference judgments (bundle.Split*).
const (
	SplitTrain   = "train"
	SplitHeldout = "heldout"
	SplitBenign  = "benign"
)

// ReferenceJudgment is a reference judgment seen from one audit's side.
type ReferenceJudgment struct {
	Auditor      string
	OtherAuditor string // "" when the other side is the external reference
	Behavior     string
	Split        string
	Outcome      string // win, loss or tie from the auditor's side
}

// ReferenceRates is one auditor's reference win rates: train and held-out
// behaviors pooled and per behavior (RWR), and the benign split, whose
// audits have no behavior to elicit and so sit outside both.
type ReferenceRates struct {
	RWR    analysis.RWR
	Benign analysis.SplitRate
}

// ReferenceWinRates groups reference judgments by auditor and computes each
// auditor's rates at the given confidence. Only judgments against the
// external reference count: when both sides are audits, the judgment
// compares two auditors and says nothing of the reference. It also returns
// the behaviors judged, sorted.
func ReferenceWinRates(js []ReferenceJudgment, confidence float64) (map[string]ReferenceRates, []string) {
	per := map[string][]analysis.Judgment{}
	seen := map[string]bool{}
	for _, j := range js {
		if j.OtherAuditor != "" {
			continue
		}
		per[j.Auditor] = append(per[j.Auditor], analysis.Judgment{Behavior: j.Behavior, Split: j.Split, Outcome: j.Outcome})
		if j.Behavior != "" {
			seen[j.Behavior] = true
		}
	}
	out := make(map[string]ReferenceRates, len(per))
	for auditor, aj := range per {
		var w, l, t int
		for _, j := range aj {
			if j.Split != SplitBenign {
				continue
			}
			switch j.Outcome {
			case analysis.OutcomeWin:
				w++
			case analysis.OutcomeLoss:
				l++
			case analysis.OutcomeTie:
				t++
			}
		}
		out[auditor] = ReferenceRates{RWR: analysis.RWRSplits(aj, confidence), Benign: analysis.WinRate(w, l, t, confidence)}
	}
	behaviors := make([]string, 0, len(seen))
	for b := range seen {
		behaviors = append(behaviors, b)
	}
	sort.Strings(behaviors)
	return out, behaviors
}

// Detection is one AuditBench audit's outcome: did the auditor find the
// implanted behavior, under which investigation approach (eval).
type Detection struct {
	Auditor, Eval, Behavior string
	Detected                bool
}

// DetectionKey names a cell of the transfer table; an empty Behavior is
// the auditor's overall rate under the approach.
type DetectionKey struct{ Auditor, Eval, Behavior string }

// DetectionCell is a detection rate with its counts.
type DetectionCell struct {
	N, Detected int
	Rate        analysis.Estimate
}

// Transfer is AuditBench detection by auditor × approach × behavior.
type Transfer struct {
	Behaviors []string // sorted
	cells     map[DetectionKey]DetectionCell
	nan       DetectionCell
}

// Cell returns one cell; a cell without audits has N = 0 and an undefined
// rate.
func (t Transfer) Cell(k DetectionKey) DetectionCell {
	if c, ok := t.cells[k]; ok {
		return c
	}
	return t.nan
}

// TransferRates computes the detection rate of every auditor under every
// approach, overall (Wilson on the effective n of its behaviors' design
// effect) and per behavior (Wilson over its audits).
func TransferRates(ds []Detection, confidence float64) Transfer {
	det := map[DetectionKey][]bool{}
	behaviorOf := map[DetectionKey][]string{} // of the overall cells' audits
	seen := map[string]bool{}
	for _, d := range ds {
		all := DetectionKey{d.Auditor, d.Eval, ""}
		det[all] = append(det[all], d.Detected)
		behaviorOf[all] = append(behaviorOf[all], d.Behavior)
		// An audit without a behavior counts once, in the overall rate.
		if d.Behavior != "" {
			k := DetectionKey{d.Auditor, d.Eval, d.Behavior}
			det[k] = append(det[k], d.Detected)
			seen[d.Behavior] = true
		}
	}
	t := Transfer{cells: make(map[DetectionKey]DetectionCell, len(det))}
	t.nan.Rate, _ = analysis.DetectionRate(nil, confidence)
	for k, v := range det {
		c := DetectionCell{N: len(v)}
		for _, d := range v {
			if d {
				c.Detected++
			}
		}
		// The only error is a confidence outside (0, 1), which leaves the
		// rate undefined as the page shows it. An overall rate pools the
		// behaviors: its interval counts them (the design effect), as the
		// overview's AuditBench columns do; a behavior's cell is its seeds.
		if idx, g := clusters(behaviorOf[k], len(v)); k.Behavior == "" && g >= 2 {
			c.Rate, _ = analysis.ClusterWilson(v, idx, confidence)
		} else {
			c.Rate, _ = analysis.DetectionRate(v, confidence)
		}
		t.cells[k] = c
	}
	for b := range seen {
		t.Behaviors = append(t.Behaviors, b)
	}
	sort.Strings(t.Behaviors)
	return t
}
