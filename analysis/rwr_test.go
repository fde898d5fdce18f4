package analysis

import (
	"math"
	"testing"
)

// rwrRate is a split or behavior entry of rwr_split.json.
type rwrRate struct {
	Split     string   `json:"split"`
	N         int      `json:"n"`
	Wins      int      `json:"wins"`
	Losses    int      `json:"losses"`
	Ties      int      `json:"ties"`
	Successes float64  `json:"successes"`
	RWR       *float64 `json:"rwr"`
	Lower     *float64 `json:"lower"`
	Upper     *float64 `json:"upper"`
}

func checkSplitRate(t *testing.T, what string, got SplitRate, want rwrRate) {
	t.Helper()
	if got.N != want.N || got.Wins != want.Wins || got.Losses != want.Losses || got.Ties != want.Ties {
		t.Errorf("%s counts: got n=%d w=%d l=%d t=%d, want %d %d %d %d", what,
			got.N, got.Wins, got.Losses, got.Ties, want.N, want.Wins, want.Losses, want.Ties)
	}
	if got.Successes != want.Successes {
		t.Errorf("%s successes: got %v, want %v", what, got.Successes, want.Successes)
	}
	checkFloat(t, what+" rwr", got.Rate.Value, want.RWR, tolDefault)
	checkFloat(t, what+" lower", got.Rate.Lo, want.Lower, tolDefault)
	checkFloat(t, what+" upper", got.Rate.Hi, want.Upper, tolDefault)
}

// TestRWRSplitsReference checks every case of rwr_split.json (closed-form
// Wilson with scipy's norm.isf, cross-checked there with statsmodels).
func TestRWRSplitsReference(t *testing.T) {
	type rwrCase struct {
		Name       string             `json:"name"`
		Confidence float64            `json:"confidence"`
		Records    []Judgment         `json:"records"`
		Train      rwrRate            `json:"train"`
		Heldout    rwrRate            `json:"heldout"`
		Gap        *float64           `json:"gap"`
		ByBehavior map[string]rwrRate `json:"by_behavior"`
	}
	for _, c := range loadRef[rwrCase](t, "rwr_split.json") {
		t.Run(c.Name, func(t *testing.T) {
			got := RWRSplits(c.Records, c.Confidence)
			checkSplitRate(t, "train", got.Train, c.Train)
			checkSplitRate(t, "heldout", got.Heldout, c.Heldout)
			checkFloat(t, "gap", got.Gap, c.Gap, tolDefault)
			if len(got.ByBehavior) != len(c.ByBehavior) {
				t.Errorf("by_behavior: got %d behaviors, want %d", len(got.ByBehavior), len(c.ByBehavior))
			}
			splits := BehaviorSplits(c.Records)
			for b, want := range c.ByBehavior {
				checkSplitRate(t, b, got.ByBehavior[b], want)
				if splits[b] != want.Split {
					t.Errorf("%s split: got %q, want %q", b, splits[b], want.Split)
				}
			}
		})
	}
}

// TestRWRSplitsOther shows the handling of other splits, unknown outcomes,
// empty input and a bad confidence. Expected counts are hand-counted.
func TestRWRSplitsOther(t *testing.T) {
	js := []Judgment{
		{"flattery", "train", "win"},
		{"flattery", "train", "tie"},
		{"none", "benign", "loss"},
		{"none", "benign", "win"},
		{"hedging", "heldout", "draw"}, // unknown outcome: ignored
		{"hedging", "heldout", "loss"},
	}
	got := RWRSplits(js, 0.95)
	if got.Train.N != 2 || got.Train.Successes != 1.5 || got.Heldout.N != 1 || got.Heldout.Losses != 1 {
		t.Errorf("splits: got train %+v, heldout %+v", got.Train, got.Heldout)
	}
	if b := got.ByBehavior["none"]; b.N != 2 || b.Wins != 1 || b.Losses != 1 {
		t.Errorf("benign behavior: got %+v, want n=2 w=1 l=1", b)
	}
	if math.Abs(got.Gap-0.75) > 1e-15 {
		t.Errorf("gap: got %v, want 0.75", got.Gap)
	}
	if s := BehaviorSplits(append(js, Judgment{"flattery", "heldout", "win"})); s["flattery"] != MixedSplit || s["none"] != "benign" {
		t.Errorf("BehaviorSplits: got %v", s)
	}

	empty := RWRSplits(nil, 0.95)
	if empty.Train.N != 0 || !allNaN(empty.Train.Rate.Value, empty.Train.Rate.Lo, empty.Train.Rate.Hi, empty.Gap) {
		t.Errorf("empty: got %+v", empty)
	}
	if len(empty.ByBehavior) != 0 {
		t.Errorf("empty: ByBehavior = %v, want empty", empty.ByBehavior)
	}

	bad := RWRSplits(js, 1.5)
	if bad.Train.Rate.Value != 0.75 || !allNaN(bad.Train.Rate.Lo, bad.Train.Rate.Hi) {
		t.Errorf("confidence 1.5: got %+v, want value 0.75 with NaN bounds", bad.Train.Rate)
	}
}

// TestGapByBehavior: the gap's interval redraws behaviors. Behaviors that
// all win at the same rate within each split leave nothing to redraw: the
// interval is the gap itself. Behaviors that differ widen it past the
// interval that treats judgments as independent (Newcombe's), since a
// behavior's judgments go together. Fewer than two behaviors in a split:
// no interval. The same seed gives the same interval.
func TestGapByBehavior(t *testing.T) {
	var js []Judgment
	add := func(b, split string, w, l int) {
		for range w {
			js = append(js, Judgment{Behavior: b, Split: split, Outcome: OutcomeWin})
		}
		for range l {
			js = append(js, Judgment{Behavior: b, Split: split, Outcome: OutcomeLoss})
		}
	}
	add("t1", SplitTrain, 6, 4)
	add("t2", SplitTrain, 6, 4)
	add("t3", SplitTrain, 6, 4)
	add("h1", SplitHeldout, 3, 7)
	add("h2", SplitHeldout, 3, 7)
	r := RWRSplits(js, 0.95)
	g := GapByBehavior(r, BehaviorSplits(js), 2000, 0.95, 1)
	if math.Abs(g.Value-0.3) > 1e-12 || math.Abs(g.Lo-0.3) > 1e-12 || math.Abs(g.Hi-0.3) > 1e-12 {
		t.Errorf("equal behaviors: %+v, want 0.3 [0.3, 0.3]", g)
	}
	js = nil
	add("t1", SplitTrain, 10, 0)
	add("t2", SplitTrain, 2, 8)
	add("t3", SplitTrain, 9, 1)
	add("t4", SplitTrain, 1, 9)
	add("h1", SplitHeldout, 0, 10)
	add("h2", SplitHeldout, 8, 2)
	add("h3", SplitHeldout, 2, 8)
	r = RWRSplits(js, 0.95)
	g = GapByBehavior(r, BehaviorSplits(js), 4000, 0.95, 1)
	nc, _ := NewcombeIndependent(r.Train.Successes, r.Train.N, r.Heldout.Successes, r.Heldout.N, 0.95)
	if g.Value != r.Gap || !(g.Lo < nc.Lo && g.Hi > nc.Hi) {
		t.Errorf("differing behaviors: %+v, want wider than the judgments' Newcombe interval %+v", g, nc)
	}
	if again := GapByBehavior(r, BehaviorSplits(js), 4000, 0.95, 1); again != g {
		t.Errorf("the same seed gave %+v then %+v", g, again)
	}
	one := RWRSplits(js[:50], 0.95) // t1 to t4 and h1 only
	if g := GapByBehavior(one, BehaviorSplits(js[:50]), 1000, 0.95, 1); !math.IsNaN(g.Lo) || math.IsNaN(g.Value) {
		t.Errorf("one held-out behavior: %+v, want the gap without an interval", g)
	}
}
