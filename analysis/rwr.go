package analysis

import (
	"math"
	"slices"
)

// The split and outcome values of a Judgment.
const (
	SplitTrain   = "train"
	SplitHeldout = "heldout"

	OutcomeWin  = "win"
	OutcomeLoss = "loss"
	OutcomeTie  = "tie"
)

// Judgment is one pairwise judgment of a checkpoint's audit against a
// reference transcript: the planted behavior audited, the behavior's split
// ("train" or "heldout"; other values such as "benign" are allowed) and the
// outcome for the checkpoint ("win", "loss" or "tie").
type Judgment struct{ Behavior, Split, Outcome string }

// SplitRate is a reference win rate over a set of judgments:
//
//	N = Wins + Losses + Ties,  Successes = Wins + Ties/2,  Rate.Value = Successes/N
//
// with the Wilson interval (see Wilson) on the real-valued Successes. Rate is
// all NaN when N = 0.
type SplitRate struct {
	N, Wins, Losses, Ties int
	Successes             float64
	Rate                  Estimate
}

// RWR is the reference win rate of a checkpoint split by behavior.
type RWR struct {
	// Train and Heldout pool all judgments of the training and held-out
	// behaviors.
	Train, Heldout SplitRate
	// Gap is Train.Rate.Value - Heldout.Rate.Value, NaN when either split is
	// empty.
	Gap float64
	// ByBehavior holds the rate of each behavior's own judgments, whatever
	// its split (BehaviorSplits gives the split of each behavior).
	ByBehavior map[string]SplitRate
}

// WinRate returns the SplitRate of the given counts, with a Wilson interval
// at the confidence level. The rate is NaN when there are no judgments; the
// bounds are NaN too when the confidence is outside (0, 1) or a count is
// negative.
func WinRate(wins, losses, ties int, confidence float64) SplitRate {
	r := SplitRate{N: wins + losses + ties, Wins: wins, Losses: losses, Ties: ties}
	r.Successes = float64(wins) + 0.5*float64(ties)
	r.Rate = nanEstimate()
	if r.N <= 0 {
		return r
	}
	r.Rate.Value = r.Successes / float64(r.N)
	if est, err := Wilson(r.Successes, r.N, confidence); err == nil {
		r.Rate = est
	}
	return r
}

// RWRSplits computes the reference win rate of the training split, the
// held-out split, the gap between them, and the rate of every behavior.
//
// Judgments whose split is neither "train" nor "heldout" (for example
// benign targets) count only in ByBehavior. Judgments whose outcome is not
// "win", "loss" or "tie" are ignored. Intervals are Wilson intervals at the
// given confidence; with a confidence outside (0, 1) they are NaN while the
// rates are still computed.
func RWRSplits(js []Judgment, confidence float64) RWR {
	type counts struct{ w, l, t int }
	add := func(c *counts, outcome string) {
		switch outcome {
		case OutcomeWin:
			c.w++
		case OutcomeLoss:
			c.l++
		case OutcomeTie:
			c.t++
		}
	}
	var train, heldout counts
	byBehavior := make(map[string]*counts)
	for _, j := range js {
		if j.Outcome != OutcomeWin && j.Outcome != OutcomeLoss && j.Outcome != OutcomeTie {
			continue
		}
		switch j.Split {
		case SplitTrain:
			add(&train, j.Outcome)
		case SplitHeldout:
			add(&heldout, j.Outcome)
		}
		c := byBehavior[j.Behavior]
		if c == nil {
			c = &counts{}
			byBehavior[j.Behavior] = c
		}
		add(c, j.Outcome)
	}
	r := RWR{
		Train:      WinRate(train.w, train.l, train.t, confidence),
		Heldout:    WinRate(heldout.w, heldout.l, heldout.t, confidence),
		ByBehavior: make(map[string]SplitRate, len(byBehavior)),
	}
	r.Gap = r.Train.Rate.Value - r.Heldout.Rate.Value // NaN if either is NaN
	for b, c := range byBehavior {
		r.ByBehavior[b] = WinRate(c.w, c.l, c.t, confidence)
	}
	return r
}

// MixedSplit is the BehaviorSplits value of a behavior that appears with
// more than one split.
const MixedSplit = "mixed"

// BehaviorSplits returns the split of every behavior in js (all judgments,
// whatever their outcome). A behavior recorded with different splits maps to
// MixedSplit.
func BehaviorSplits(js []Judgment) map[string]string {
	splits := make(map[string]string)
	for _, j := range js {
		switch s, ok := splits[j.Behavior]; {
		case !ok:
			splits[j.Behavior] = j.Split
		case s != j.Split:
			splits[j.Behavior] = MixedSplit
		}
	}
	return splits
}

// GapByBehavior is the training − held-out gap of r with a percentile
// bootstrap interval that redraws behaviors: each resample draws as many
// training behaviors as there are, with replacement, and as many held-out
// ones, pooling the drawn behaviors' judgments (as the rates do), so the
// interval counts behaviors, the unit the splits were made of, not
// judgments (a behavior's judgments go together). splits gives each
// behavior's split (BehaviorSplits); a behavior of a mixed split is left
// out. NaN bounds with fewer than two behaviors in a split.
func GapByBehavior(r RWR, splits map[string]string, resamples int, confidence float64, seed uint64) Estimate {
	out := Estimate{Value: r.Gap, Lo: math.NaN(), Hi: math.NaN()}
	var train, held []SplitRate
	names := make([]string, 0, len(r.ByBehavior))
	for b := range r.ByBehavior {
		names = append(names, b)
	}
	slices.Sort(names) // a fixed order: the same seed draws the same behaviors
	for _, b := range names {
		switch splits[b] {
		case SplitTrain:
			train = append(train, r.ByBehavior[b])
		case SplitHeldout:
			held = append(held, r.ByBehavior[b])
		}
	}
	if math.IsNaN(r.Gap) || len(train) < 2 || len(held) < 2 || resamples < 1 || checkConfidence("GapByBehavior", confidence) != nil {
		return out
	}
	rng := newRand(seed, streamBootstrap)
	pooled := func(rs []SplitRate) float64 {
		var s float64
		var n int
		for range rs {
			x := rs[rng.IntN(len(rs))]
			s, n = s+x.Successes, n+x.N
		}
		return s / float64(n)
	}
	vals := make([]float64, 0, resamples)
	for range resamples {
		if g := pooled(train) - pooled(held); !math.IsNaN(g) {
			vals = append(vals, g)
		}
	}
	out.Lo, out.Hi = percentileInterval(vals, confidence)
	return out
}
