package analysis

import (
	"math"
	"math/rand/v2"
	"testing"
)

// TestCohenKappaReference checks every case of cohen_kappa.json, produced by
// scikit-learn cohen_kappa_score(a, b, labels=["text_a", "text_b"]).
func TestCohenKappaReference(t *testing.T) {
	type kappaCase struct {
		Name  string   `json:"name"`
		A     []string `json:"a"`
		B     []string `json:"b"`
		NUsed int      `json:"n_used"`
		Kappa *float64 `json:"kappa"`
	}
	labels := []string{"text_a", "text_b"}
	for _, c := range loadRef[kappaCase](t, "cohen_kappa.json") {
		t.Run(c.Name, func(t *testing.T) {
			kappa, used, err := CohenKappa(c.A, c.B, labels)
			if err != nil {
				t.Fatal(err)
			}
			if used != c.NUsed {
				t.Errorf("n_used: got %d, want %d", used, c.NUsed)
			}
			checkFloat(t, "kappa", kappa, c.Kappa, tolDefault)
		})
	}
}

// TestCohenKappaDegenerate shows the error and NaN cases. The three-label
// value is hand-worked: C = [[2,0,0],[0,1,1],[0,0,1]] gives po = 4/5,
// pe = (2·2 + 2·1 + 1·2)/25 = 8/25, kappa = (4/5 - 8/25)/(1 - 8/25) = 12/17.
func TestCohenKappaDegenerate(t *testing.T) {
	labels := []string{"text_a", "text_b"}
	wantPanic(t, "CohenKappa", func() { CohenKappa([]string{"text_a"}, nil, labels) })
	if _, _, err := CohenKappa([]string{"text_a"}, []string{"text_a"}, nil); err == nil {
		t.Error("no labels: want an error")
	}
	if _, _, err := CohenKappa([]string{"text_a"}, []string{"text_a"}, []string{"x", "x"}); err == nil {
		t.Error("duplicate labels: want an error")
	}
	k, used, err := CohenKappa(nil, nil, labels)
	if err != nil || used != 0 || !math.IsNaN(k) {
		t.Errorf("empty: got %v, %d, %v; want NaN, 0, nil", k, used, err)
	}
	k, used, err = CohenKappa([]string{"tie", "invalid"}, []string{"text_a", "text_b"}, labels)
	if err != nil || used != 0 || !math.IsNaN(k) {
		t.Errorf("no usable pair: got %v, %d, %v; want NaN, 0, nil", k, used, err)
	}
	k, used, err = CohenKappa(
		[]string{"x", "x", "y", "y", "z"},
		[]string{"x", "x", "y", "z", "z"},
		[]string{"x", "y", "z"})
	if err != nil || used != 5 || math.Abs(k-12.0/17) > 1e-15 {
		t.Errorf("three labels: got %v, %d, %v; want 12/17, 5, nil", k, used, err)
	}
}

// ffCase is one case of ff_metrics.json (pandas boolean Series); a null vote
// decodes to a nil pointer and is passed as "" (VoteNone).
type ffCase struct {
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
	KappaAdjusted *float64  `json:"kappa_adjusted"`
	Strength      *float64  `json:"strength"`
}

func derefVotes(vs []*string) []string {
	out := make([]string, len(vs))
	for i, v := range vs {
		if v != nil {
			out[i] = *v
		}
	}
	return out
}

func codeVotes(vs []string) []Vote {
	out := make([]Vote, len(vs))
	for i, v := range vs {
		out[i] = ParseVote(v)
	}
	return out
}

// TestAnnotatorAgreementReference checks every case of ff_metrics.json with
// both the string and the coded implementation.
func TestAnnotatorAgreementReference(t *testing.T) {
	for _, c := range loadRef[ffCase](t, "ff_metrics.json") {
		t.Run(c.Name, func(t *testing.T) {
			ref, ann := derefVotes(c.Ref), derefVotes(c.Ann)
			for _, impl := range []struct {
				name string
				got  Agreement
			}{
				{"strings", AnnotatorAgreement(ref, ann)},
				{"codes", AgreementCodes(codeVotes(ref), codeVotes(ann))},
			} {
				g := impl.got
				if g.Kept != c.NKept || g.Agree != c.Agree || g.Disagree != c.Disagree || g.NotApplicable != c.NotApplicable {
					t.Errorf("%s counts: got kept=%d agree=%d disagree=%d na=%d, want %d %d %d %d", impl.name,
						g.Kept, g.Agree, g.Disagree, g.NotApplicable, c.NKept, c.Agree, c.Disagree, c.NotApplicable)
				}
				checkFloat(t, impl.name+" relevance", g.Relevance, c.Relevance, tolDefault)
				checkFloat(t, impl.name+" acc", g.Accuracy, c.Acc, tolDefault)
				checkFloat(t, impl.name+" agreement", g.Agreement, c.Agreement, tolDefault)
				checkFloat(t, impl.name+" kappa_adjusted", g.Kappa, c.KappaAdjusted, tolDefault)
				checkFloat(t, impl.name+" strength", g.Strength, c.Strength, tolDefault)
			}
		})
	}
}

// TestParseVote checks the coding round trip and the fallback for unknown
// strings.
func TestParseVote(t *testing.T) {
	for _, s := range []string{"", "text_a", "text_b", "tie", "invalid"} {
		if got := ParseVote(s).String(); got != s {
			t.Errorf("ParseVote(%q).String() = %q, want %q", s, got, s)
		}
	}
	if got := ParseVote("TEXT_A"); got != VoteInvalid {
		t.Errorf("ParseVote(\"TEXT_A\") = %v, want VoteInvalid", got)
	}
	// Out-of-range codes count as invalid votes: kept (ref is decisive) but
	// neither agreeing nor disagreeing.
	got := AgreementCodes([]Vote{VoteA, VoteB, Vote(9)}, []Vote{Vote(9), Vote(-1), VoteA})
	if got.Kept != 2 || got.Agree != 0 || got.Disagree != 0 || got.NotApplicable != 2 {
		t.Errorf("out-of-range codes: got %+v, want kept 2, not applicable 2", got)
	}
}

// TestAgreementPanics shows that mismatched lengths and inconsistent counts
// are caller bugs that panic.
func TestAgreementPanics(t *testing.T) {
	tests := []struct {
		name string
		f    func()
	}{
		{"AnnotatorAgreement lengths", func() { AnnotatorAgreement([]string{"text_a"}, nil) }},
		{"AgreementCodes lengths", func() { AgreementCodes([]Vote{VoteA}, nil) }},
		{"AgreementFromCounts", func() { AgreementFromCounts(2, 2, 1) }},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			defer func() {
				if recover() == nil {
					t.Error("want a panic")
				}
			}()
			tt.f()
		})
	}
}

// randomVotes returns n votes, mostly decisive, from a seeded generator.
func randomVotes(rng *rand.Rand, n int) []Vote {
	codes := []Vote{VoteA, VoteA, VoteA, VoteB, VoteB, VoteB, VoteTie, VoteInvalid, VoteNone}
	v := make([]Vote, n)
	for i := range v {
		v[i] = codes[rng.IntN(len(codes))]
	}
	return v
}

// BenchmarkAnnotatorAgreement measures the string form on 1M votes.
func BenchmarkAnnotatorAgreement(b *testing.B) {
	rng := rand.New(rand.NewPCG(1, 2))
	const n = 1_000_000
	ref := make([]string, n)
	ann := make([]string, n)
	for i, v := range randomVotes(rng, n) {
		ref[i] = v.String()
	}
	for i, v := range randomVotes(rng, n) {
		ann[i] = v.String()
	}
	for b.Loop() {
		AnnotatorAgreement(ref, ann)
	}
}

// BenchmarkAgreementCodes measures the coded form on 1M votes.
func BenchmarkAgreementCodes(b *testing.B) {
	rng := rand.New(rand.NewPCG(1, 2))
	const n = 1_000_000
	ref, ann := randomVotes(rng, n), randomVotes(rng, n)
	for b.Loop() {
		AgreementCodes(ref, ann)
	}
}
