package explorer

import (
	"encoding/json"
	"math"
	"os"
	"path/filepath"
	"testing"

	"github.com/auditscope/auditscope/analysis"
)

// The hand-worked dataset of web/pairs_test.go (handDoc), as a matrix.
// Responses (length, model), votes and topic:
//
//	i  id  A      B      h    p1       p2    g   topic
//	0  c1  4 X    2 Y    a    a        b     a   t1
//	1  c2  1 Y    3 X    b    b        b     -   t1
//	2  c3  2 X    2 Z    a    b        -     -   t2
//	3  c4  3 Z    1 Y    b    b        a     -   t2
//	4  c5  5 X    2 X    tie  a        a     -   t1
//	5  c6  1 -    6 Y    b    tie      b     -   t3
//	6  c7  2 Y    4 Z    b    invalid  b     b   t1
//
// The reference h votes text_a or text_b on all but c5: 6 comparisons kept.
const (
	none = analysis.VoteNone
	va   = analysis.VoteA
	vb   = analysis.VoteB
	tie  = analysis.VoteTie
	inv  = analysis.VoteInvalid
)

const (
	mX, mY, mZ = int32(0), int32(1), int32(2)
	noModel    = int32(-1)
)

// topicOf is each comparison's topic: t1 = 0, t2 = 1, t3 = 2.
var topicOf = []int32{0, 0, 1, 1, 0, 2, 0}

func handMatrix() Matrix {
	return Matrix{
		N: 7,
		Votes: [][]analysis.Vote{
			{va, vb, va, vb, tie, vb, vb},          // h
			{va, vb, vb, vb, va, tie, inv},         // p1
			{vb, vb, none, va, va, vb, vb},         // p2
			{va, none, none, none, none, none, vb}, // g
		},
		Models: []string{"X", "Y", "Z"},
		ModelA: []int32{mX, mY, mX, mZ, mX, noModel, mY},
		ModelB: []int32{mY, mX, mZ, mY, mX, mY, mZ},
		LenA:   []int32{4, 1, 2, 3, 5, 1, 2},
		LenB:   []int32{2, 3, 2, 1, 2, 6, 4},
	}
}

func handAnnotators() []Annotator {
	return []Annotator{
		{Key: "h", Name: "Human", Kind: "human", Row: 0},
		{Key: "p1", Name: "is more concise", Kind: "principle", Row: 1},
		{Key: "p2", Name: "Friendly", Kind: "principle", Row: 2},
		{Key: "g", Name: "g", Kind: "unknown", Row: 3},
	}
}

func handDataset(t testing.TB) *Dataset {
	t.Helper()
	d, err := NewDataset(handMatrix(), handAnnotators())
	if err != nil {
		t.Fatal(err)
	}
	return d
}

// mustLookup returns the annotator keyed key.
func mustLookup(t testing.TB, d *Dataset, key string) Annotator {
	t.Helper()
	a, ok := d.Lookup(key)
	if !ok {
		t.Fatalf("no annotator %s", key)
	}
	return a
}

// near reports |got - want| <= 1e-12, NaN matching NaN.
func near(got, want float64) bool {
	if math.IsNaN(want) {
		return math.IsNaN(got)
	}
	return math.Abs(got-want) <= 1e-12
}

// tolDefault is testdata/stats/README.md's default tolerance.
func tolDefault(got, want float64) bool {
	return math.Abs(got-want) <= 1e-9*math.Abs(want)+1e-12
}

// loadRef decodes the cases of a reference file in the repository's
// testdata/stats (its README explains each file).
func loadRef[C any](t testing.TB, name string) []C {
	t.Helper()
	raw, err := os.ReadFile(filepath.Join("..", "..", "testdata", "stats", name))
	if err != nil {
		t.Fatal(err)
	}
	var f struct {
		Cases []C `json:"cases"`
	}
	if err := json.Unmarshal(raw, &f); err != nil {
		t.Fatal(err)
	}
	if len(f.Cases) == 0 {
		t.Fatalf("%s has no cases", name)
	}
	return f.Cases
}

// voteOf codes a reference file's vote; JSON null is no vote.
func voteOf(s *string) analysis.Vote {
	if s == nil {
		return analysis.VoteNone
	}
	return analysis.ParseVote(*s)
}

func votesOf(ss []*string) []analysis.Vote {
	out := make([]analysis.Vote, len(ss))
	for i, s := range ss {
		out[i] = voteOf(s)
	}
	return out
}
