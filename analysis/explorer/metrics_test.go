package explorer

import (
	"errors"
	"math"
	"math/rand/v2"
	"testing"

	"github.com/auditscope/auditscope/analysis"
)

// TestCompareHand checks every metric of every row against h on the hand
// matrix, worked out by hand (the same values web/pairs_test.go checks
// through annotators.csv):
//
// p1 agrees in c1 c2 c4, disagrees in c3, is not applicable in c6 (tie) and
// c7 (invalid): relevance 4/6, accuracy 3/4, kappa 0.5, strength 1/3,
// agreement 3/6. Unadjusted kappa over c1..c4 (p1 = a b b b, h = a b a b):
// po = 3/4, pe = 1/4·2/4 + 3/4·2/4 = 1/2, kappa 0.5.
//
// p2 agrees in c2 c6 c7, disagrees in c1 c4, n/a in c3: relevance 5/6,
// accuracy 3/5, kappa 0.2, strength 1/6. Unadjusted kappa over c1 c2 c4 c6
// c7 (p2 = b b a b b, h = a b b b b): po = 3/5, pe = 1/5·1/5 + 4/5·4/5 =
// 17/25, kappa -0.25.
//
// g agrees in c1 and c7: relevance 1/3, accuracy 1, strength 1/3, kappa 1.
// model:X agrees in c1 c2 c3: strength 3/6, unadjusted kappa 1. model:Y
// agrees only in c4 of c1 c2 c4 c7: accuracy 1/4, strength -2/6, unadjusted
// kappa (1/4 - 1/2)/(1/2) = -0.5. model:Z agrees in c7 of c3 c4 c7:
// accuracy 1/3, strength -1/6, unadjusted kappa (3/9 - 5/9)/(4/9) = -0.5.
func TestCompareHand(t *testing.T) {
	d := handDataset(t)
	ref := d.VotesOf(mustLookup(t, d, "h"), nil)
	keep := Decisive(ref)
	if want := []int32{0, 1, 2, 3, 5, 6}; !equalInt32(keep, want) {
		t.Fatalf("Decisive(h) = %v, want %v", keep, want)
	}
	rows := d.FeedbackRows("h")
	votes := make([][]analysis.Vote, len(rows))
	for i, a := range rows {
		votes[i] = d.VotesOf(a, nil)
	}
	stats, err := Compare(ref, keep, votes, Needs{KappaUnadjusted: true}, nil)
	if err != nil {
		t.Fatal(err)
	}
	type want struct {
		agree, disagree, na                    int
		rel, acc, agr, kappa, kappaU, strength float64
	}
	wants := map[string]want{
		"p1":      {3, 1, 2, 4.0 / 6, 0.75, 0.5, 0.5, 0.5, 1.0 / 3},
		"p2":      {3, 2, 1, 5.0 / 6, 0.6, 0.5, 0.2, -0.25, 1.0 / 6},
		"g":       {2, 0, 4, 1.0 / 3, 1, 1.0 / 3, 1, 1, 1.0 / 3},
		"model:X": {3, 0, 3, 0.5, 1, 0.5, 1, 1, 0.5},
		"model:Y": {1, 3, 2, 4.0 / 6, 0.25, 1.0 / 6, -0.5, -0.5, -2.0 / 6},
		"model:Z": {1, 2, 3, 0.5, 1.0 / 3, 1.0 / 6, -1.0 / 3, -0.5, -1.0 / 6},
	}
	for i, a := range rows {
		w, st := wants[a.Key], stats[i]
		g := st.Agreement
		if g.Kept != 6 || g.Agree != w.agree || g.Disagree != w.disagree || g.NotApplicable != w.na {
			t.Errorf("%s: counts %d/%d/%d/%d, want 6/%d/%d/%d", a.Key, g.Kept, g.Agree, g.Disagree, g.NotApplicable, w.agree, w.disagree, w.na)
		}
		for _, c := range []struct {
			what      string
			got, want float64
		}{
			{"relevance", g.Relevance, w.rel}, {"accuracy", g.Accuracy, w.acc}, {"agreement", g.Agreement, w.agr},
			{"kappa", g.Kappa, w.kappa}, {"kappa unadjusted", st.KappaUnadjusted, w.kappaU}, {"strength", g.Strength, w.strength},
		} {
			if !near(c.got, c.want) {
				t.Errorf("%s %s = %v, want %v", a.Key, c.what, c.got, c.want)
			}
		}
		// Not asked for: NaN.
		if !math.IsNaN(st.Strength.Lo) || !math.IsNaN(st.Relevance.Lo) || !math.IsNaN(st.Accuracy.Hi) {
			t.Errorf("%s: intervals computed without being asked for: %+v", a.Key, st)
		}
	}
	// Without the ask, no unadjusted kappa either.
	stats, _ = Compare(ref, keep, votes[:1], Needs{}, nil)
	if !math.IsNaN(stats[0].KappaUnadjusted) {
		t.Errorf("unadjusted kappa %v computed without being asked for", stats[0].KappaUnadjusted)
	}
}

func equalInt32(a, b []int32) bool {
	if len(a) != len(b) {
		return false
	}
	for i := range a {
		if a[i] != b[i] {
			return false
		}
	}
	return true
}

// TestCompareReference checks Compare's agreement metrics on every case of
// testdata/stats/ff_metrics.json: the keep of Decisive drops exactly the
// comparisons the definition drops.
func TestCompareReference(t *testing.T) {
	// A case of the file; null ratios are undefined, null votes missing.
	type ff struct {
		Name          string    `json:"name"`
		Ref           []*string `json:"ref"`
		Ann           []*string `json:"ann"`
		NKept         int       `json:"n_kept"`
		Agree         int       `json:"agree"`
		Disagree      int       `json:"disagree"`
		NotApplicable int       `json:"not_applicable"`
		Relevance     *float64  `json:"relevance"`
		Acc           *float64  `json:"acc"`
		Agreement     *float64  `json:"agreement"`
		Kappa         *float64  `json:"kappa_adjusted"`
		Strength      *float64  `json:"strength"`
	}
	for _, c := range loadRef[ff](t, "ff_metrics.json") {
		ref, ann := votesOf(c.Ref), votesOf(c.Ann)
		stats, err := Compare(ref, Decisive(ref), [][]analysis.Vote{ann}, Needs{}, nil)
		if err != nil {
			t.Fatal(err)
		}
		g := stats[0].Agreement
		if g.Kept != c.NKept || g.Agree != c.Agree || g.Disagree != c.Disagree || g.NotApplicable != c.NotApplicable {
			t.Errorf("%s: counts %d/%d/%d/%d, want %d/%d/%d/%d", c.Name, g.Kept, g.Agree, g.Disagree, g.NotApplicable,
				c.NKept, c.Agree, c.Disagree, c.NotApplicable)
		}
		for _, m := range []struct {
			what string
			got  float64
			want *float64
		}{
			{"relevance", g.Relevance, c.Relevance}, {"accuracy", g.Accuracy, c.Acc}, {"agreement", g.Agreement, c.Agreement},
			{"kappa", g.Kappa, c.Kappa}, {"strength", g.Strength, c.Strength},
		} {
			if m.want == nil && !math.IsNaN(m.got) || m.want != nil && !tolDefault(m.got, *m.want) {
				t.Errorf("%s %s = %v, want %v", c.Name, m.what, m.got, m.want)
			}
		}
	}
}

// TestKappaUnadjustedReference checks KappaUnadjusted(ref, ann) on every
// case of testdata/stats/cohen_kappa.json, scikit-learn's
// cohen_kappa_score(a, b) with a the annotator and b the reference.
func TestKappaUnadjustedReference(t *testing.T) {
	type kc struct {
		Name  string   `json:"name"`
		A     []string `json:"a"`
		B     []string `json:"b"`
		Kappa *float64 `json:"kappa"`
	}
	for _, c := range loadRef[kc](t, "cohen_kappa.json") {
		ann, ref := make([]analysis.Vote, len(c.A)), make([]analysis.Vote, len(c.B))
		for i := range c.A {
			ann[i], ref[i] = analysis.ParseVote(c.A[i]), analysis.ParseVote(c.B[i])
		}
		got := KappaUnadjusted(ref, ann)
		if c.Kappa == nil && !math.IsNaN(got) || c.Kappa != nil && !tolDefault(got, *c.Kappa) {
			t.Errorf("%s: kappa %v, want %v", c.Name, got, c.Kappa)
		}
	}
}

// TestKappaUnadjustedMatchesCohenKappa checks the count formula equals
// analysis.CohenKappa (scikit-learn semantics) exactly on random votes,
// including the undefined cases: it is kept only to avoid strings.
func TestKappaUnadjustedMatchesCohenKappa(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 2))
	codes := []analysis.Vote{none, va, vb, tie, inv}
	for trial := range 500 {
		n := rng.IntN(12)
		ref, ann := make([]analysis.Vote, n), make([]analysis.Vote, n)
		a, b := make([]string, n), make([]string, n)
		// Some trials use only a and b, or only one label, to reach pe = 1.
		k := []int{5, 3, 2}[trial%3]
		for i := range n {
			ref[i], ann[i] = codes[rng.IntN(k)], codes[rng.IntN(k)]
			if k == 2 {
				ref[i], ann[i] = va, va
			}
			a[i], b[i] = ann[i].String(), ref[i].String()
		}
		want, _, err := analysis.CohenKappa(a, b, []string{"text_a", "text_b"})
		if err != nil {
			t.Fatal(err)
		}
		if got := KappaUnadjusted(ref, ann); got != want && !(math.IsNaN(got) && math.IsNaN(want)) {
			t.Errorf("ref %v ann %v: kappa %v, want %v", ref, ann, got, want)
		}
	}
}

// TestWilsonIntervals checks the relevance, accuracy and win-rate intervals
// on every 95% case of testdata/stats/wilson.json (statsmodels).
func TestWilsonIntervals(t *testing.T) {
	type wc struct {
		Name       string  `json:"name"`
		Successes  int     `json:"successes"`
		N          int     `json:"n"`
		Confidence float64 `json:"confidence"`
		Lower      float64 `json:"lower"`
		Upper      float64 `json:"upper"`
	}
	checked := 0
	for _, c := range loadRef[wc](t, "wilson.json") {
		if c.Confidence != Confidence {
			continue
		}
		checked++
		check := func(what string, e analysis.Estimate) {
			t.Helper()
			if !tolDefault(e.Lo, c.Lower) || !tolDefault(e.Hi, c.Upper) || !tolDefault(e.Value, float64(c.Successes)/float64(c.N)) {
				t.Errorf("%s %s: %+v, want [%v, %v]", c.Name, what, e, c.Lower, c.Upper)
			}
		}
		// Relevance: successes valid votes of n kept comparisons.
		check("relevance", RelevanceInterval(analysis.AgreementFromCounts(c.N, c.Successes, 0)))
		// Accuracy: successes agreeing of n valid votes, with other
		// comparisons kept that do not count.
		check("accuracy", AccuracyInterval(analysis.AgreementFromCounts(c.N+7, c.Successes, c.N-c.Successes)))
		check("win rate", WinRate(c.Successes, c.N-c.Successes))
	}
	if checked == 0 {
		t.Fatal("no 95% case")
	}
	// No trial: undefined.
	for what, e := range map[string]analysis.Estimate{
		"relevance of nothing kept": RelevanceInterval(analysis.AgreementFromCounts(0, 0, 0)),
		"accuracy of no valid vote": AccuracyInterval(analysis.AgreementFromCounts(5, 0, 0)),
		"win rate of no game":       WinRate(0, 0),
	} {
		if !math.IsNaN(e.Value) || !math.IsNaN(e.Lo) || !math.IsNaN(e.Hi) {
			t.Errorf("%s: %+v, want NaN", what, e)
		}
	}
	// Compare fills them when asked: p2's accuracy against h is 3 of 5.
	d := handDataset(t)
	ref := d.VotesOf(mustLookup(t, d, "h"), nil)
	stats, err := Compare(ref, Decisive(ref), [][]analysis.Vote{d.VotesOf(mustLookup(t, d, "p2"), nil)}, Needs{Wilson: true}, nil)
	if err != nil {
		t.Fatal(err)
	}
	want := AccuracyInterval(analysis.AgreementFromCounts(6, 3, 2))
	if got := stats[0].Accuracy; got != want || !(got.Lo > 0.2307 && got.Lo < 0.2308) {
		t.Errorf("p2 accuracy interval %+v, want %+v ≈ [0.2307, 0.8824]", got, want)
	}
	if got := stats[0].Relevance; got != RelevanceInterval(analysis.AgreementFromCounts(6, 3, 2)) {
		t.Errorf("p2 relevance interval %+v", got)
	}
}

// TestStrengthIntervals checks the strength bootstrap: seeded, holding the
// strength, degenerate when every vote agrees, undefined with nothing
// kept, and computed through the memo Compare is given.
func TestStrengthIntervals(t *testing.T) {
	d := handDataset(t)
	ref := d.VotesOf(mustLookup(t, d, "h"), nil)
	keep := Decisive(ref)
	rows := d.FeedbackRows("h")
	votes := make([][]analysis.Vote, len(rows))
	for i, a := range rows {
		votes[i] = d.VotesOf(a, nil)
	}
	need := Needs{StrengthCI: true}
	first, err := Compare(ref, keep, votes, need, nil)
	if err != nil {
		t.Fatal(err)
	}
	again, _ := Compare(ref, keep, votes, need, nil)
	for i, a := range rows {
		e := first[i].Strength
		if e != again[i].Strength {
			t.Errorf("%s: %+v then %+v: not seeded", a.Key, e, again[i].Strength)
		}
		if !near(e.Value, first[i].Agreement.Strength) || e.Lo > e.Value || e.Hi < e.Value || e.Lo < -1 || e.Hi > 1 {
			t.Errorf("%s: interval %+v does not hold the strength %v within [-1, 1]", a.Key, e, first[i].Agreement.Strength)
		}
	}
	// h against itself agrees on every kept comparison: [1, 1].
	self, _ := Compare(ref, keep, [][]analysis.Vote{ref}, need, nil)
	if e := self[0].Strength; e.Value != 1 || e.Lo != 1 || e.Hi != 1 {
		t.Errorf("h against itself: %+v, want 1 [1, 1]", e)
	}
	// Nothing kept: undefined.
	empty, _ := Compare(ref, nil, votes[:1], need, nil)
	if e := empty[0].Strength; !math.IsNaN(e.Value) || !math.IsNaN(e.Lo) {
		t.Errorf("nothing kept: %+v, want NaN", e)
	}

	// The memo decides: Compare takes what it returns, and passes on its
	// error; compute is the plain bootstrap on the kept votes.
	calls := 0
	fake := []analysis.Estimate{{Value: 9, Lo: 8, Hi: 10}}
	memo := func(compute func() ([]analysis.Estimate, error)) ([]analysis.Estimate, error) {
		calls++
		est, err := compute()
		if err != nil || len(est) != 1 || est[0] != first[0].Strength {
			t.Errorf("compute = %v, %v; want %+v", est, err, first[0].Strength)
		}
		return fake, nil
	}
	got, err := Compare(ref, keep, votes[:1], need, memo)
	if err != nil || calls != 1 || got[0].Strength != fake[0] {
		t.Errorf("with a memo: %+v, %v after %d calls", got[0].Strength, err, calls)
	}
	boom := errors.New("boom")
	if _, err := Compare(ref, keep, votes[:1], need, func(func() ([]analysis.Estimate, error)) ([]analysis.Estimate, error) {
		return nil, boom
	}); !errors.Is(err, boom) {
		t.Errorf("memo error: %v", err)
	}
	// Without the ask the memo is not called.
	calls = 0
	if _, err := Compare(ref, keep, votes, Needs{}, memo); err != nil || calls != 0 {
		t.Errorf("no interval asked: %v, %d memo calls", err, calls)
	}
}

func TestSpread(t *testing.T) {
	nan := math.NaN()
	for _, tt := range []struct {
		values []float64
		want   float64
	}{
		{[]float64{1.0 / 3, -0.5, 1}, 1.5},
		{[]float64{nan, 0.25, nan, -0.25}, 0.5},
		{[]float64{0.7}, 0},
		{[]float64{nan, nan}, nan},
		{nil, nan},
	} {
		if got := Spread(tt.values); !near(got, tt.want) {
			t.Errorf("Spread(%v) = %v, want %v", tt.values, got, tt.want)
		}
	}
}
