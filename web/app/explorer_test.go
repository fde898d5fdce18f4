package app

import (
	"context"
	"errors"
	"math"
	"reflect"
	"testing"

	"github.com/auditscope/auditscope/data/model"
)

// fakePairs is one AnnotatedPairs dataset written by hand, six comparisons
// between response models M and N:
//
//	idx      0  1  2  3  4  5
//	models   MN NM MN NM MN MN   (model_a, model_b)
//	h (ref)  a  b  a  b  a  -    decides 0–4: M wins all five
//	p        a  b  b  b  t  a    agrees on 0, 1, 3; disagrees on 2; ties 4
//	q        b  a  b  a  a  b    agrees on 4 only
//	topic    x  x  y  y  x  -
//
// Against h on its five decided comparisons: p agree 3, disagree 1, not
// applicable 1 (strength 0.4, relevance 0.8, accuracy 0.75, agreement
// 0.6); q agree 1, disagree 4 (strength −0.6); model:M agrees on all five
// (strength 1), model:N on none (−1).
type fakePairs struct {
	Reader
	importID      int64
	matrixReads   int
	searchResults []int32
}

var fakeVotes = map[string]string{"h": "aba ba-", "p": "abbbta", "q": "babaab"}

func (f *fakePairs) PairsDataset(_ context.Context, id string) (model.PairsDataset, error) {
	if id != "hand" {
		return model.PairsDataset{}, model.ErrNotFound
	}
	return model.PairsDataset{ID: "hand", Name: "Hand-made", DefaultAnnotator: "h", MetadataKeys: []string{"topic"},
		Comparisons: 6, ImportID: f.importID, Texts: true}, nil
}

func (f *fakePairs) PairsAnnotators(context.Context, string) ([]model.PairsAnnotator, error) {
	return []model.PairsAnnotator{{Idx: 0, ID: "h", Name: "Human", Type: "human"},
		{Idx: 1, ID: "p", Name: "Principle P", Type: "principle"}, {Idx: 2, ID: "q", Name: "Principle Q", Type: "principle"}}, nil
}

func (f *fakePairs) PairsVoteMatrix(context.Context, string) (model.VoteMatrix, error) {
	f.matrixReads++
	code := map[byte]model.Pref{'a': model.PrefA, 'b': model.PrefB, 't': model.PrefTie, '-': model.PrefNone}
	var votes [][]model.Pref
	for _, key := range []string{"h", "p", "q"} {
		var row []model.Pref
		for _, c := range []byte(fakeVotes[key]) {
			if c != ' ' {
				row = append(row, code[c])
			}
		}
		votes = append(votes, row)
	}
	return model.VoteMatrix{N: 6, Votes: votes, Models: []string{"M", "N"},
		ModelA: []int32{0, 1, 0, 1, 0, 0}, ModelB: []int32{1, 0, 1, 0, 1, 1},
		LenA: []int32{10, 20, 10, 20, 10, 10}, LenB: []int32{20, 10, 20, 10, 20, 20}}, nil
}

func (f *fakePairs) PairsMetaValues(_ context.Context, _, key string) (model.MetaValues, error) {
	return model.MetaValues{Key: key, Values: []model.MetaValue{{Value: "x", Count: 3}, {Value: "y", Count: 2}},
		Of: []int32{0, 0, 1, 1, 0, -1}}, nil
}

func (f *fakePairs) PairsSearch(context.Context, string, string) ([]int32, error) {
	return f.searchResults, nil
}

func handPairs(t *testing.T) (*Service, *Pairs, *fakePairs) {
	t.Helper()
	f := &fakePairs{importID: 1}
	s := New(f)
	p, err := s.Pairs(context.Background(), "hand")
	if err != nil {
		t.Fatal(err)
	}
	return s, p, f
}

// near is a == b to rounding, NaN equal to NaN.
func near(a, b float64) bool {
	return a == b || math.Abs(a-b) < 1e-12 || math.IsNaN(a) && math.IsNaN(b)
}

func TestExplorerTable(t *testing.T) {
	s, p, _ := handPairs(t)
	tab, err := s.ExplorerTable(context.Background(), p, ExplorerQuery{Refs: []string{"h"}, Metric: "strength"}, ForPage)
	if err != nil {
		t.Fatal(err)
	}
	if len(tab.Columns) != 1 || tab.Columns[0].Key != "all" || tab.Columns[0].Note != "5 pairs" || tab.Sort != "all" || !tab.Desc {
		t.Fatalf("columns %+v, sort %q desc %v; want one column of 5 pairs, sorted by it descending", tab.Columns, tab.Sort, tab.Desc)
	}
	type want struct {
		key                          string
		kept, agree, disagree, na    int
		strength, relevance, accurcy float64
	}
	wants := []want{
		{"p", 5, 3, 1, 1, 0.4, 0.8, 0.75},
		{"q", 5, 1, 4, 0, -0.6, 1, 0.2},
		{"model:M", 5, 5, 0, 0, 1, 1, 1},
		{"model:N", 5, 0, 5, 0, -1, 1, 0},
	}
	if len(tab.Rows) != len(wants) {
		t.Fatalf("rows %+v; want %d", tab.Rows, len(wants))
	}
	strength, _ := LookupMetric("strength")
	for i, w := range wants {
		c := tab.Stats[0][i]
		g := c.Agreement
		if tab.Rows[i].Key != w.key || g.Kept != w.kept || g.Agree != w.agree || g.Disagree != w.disagree || g.NotApplicable != w.na ||
			!near(g.Strength, w.strength) || !near(g.Relevance, w.relevance) || !near(g.Accuracy, w.accurcy) {
			t.Errorf("row %d: %s %+v; want %+v", i, tab.Rows[i].Key, g, w)
		}
		if v, lo, hi := strength.Value(c); !near(v, w.strength) || !math.IsNaN(lo) || !math.IsNaN(hi) {
			t.Errorf("row %s: strength %v [%v, %v]; want %v without an interval (ci off)", w.key, v, lo, hi, w.strength)
		}
	}
	// Accuracy is shaded around its chance level, counts not at all.
	acc, _ := LookupMetric("accuracy")
	kept, _ := LookupMetric("kept")
	if !near(acc.Shade(0.75), 0.5) || !math.IsNaN(kept.Shade(5)) || !near(strength.Shade(-0.6), -0.6) {
		t.Error("metric shading")
	}
}

func TestExplorerSplit(t *testing.T) {
	s, p, _ := handPairs(t)
	tab, err := s.ExplorerTable(context.Background(), p, ExplorerQuery{Refs: []string{"h"}, Split: "topic", Metric: "strength"}, ForPage)
	if err != nil {
		t.Fatal(err)
	}
	var keys, notes []string
	for _, c := range tab.Columns {
		keys = append(keys, c.Key+" "+c.Note)
	}
	notes = tab.Notes
	if !reflect.DeepEqual(keys, []string{"v:x 3 pairs", "v:y 2 pairs"}) || !reflect.DeepEqual(notes, []string{"1 comparison has no value for topic."}) {
		t.Fatalf("columns %q, notes %q", keys, notes)
	}
	// p on x: agrees on 0 and 1, ties 4 → 2/3; on y: disagrees on 2,
	// agrees on 3 → 0.
	if g := tab.Stats[0][0].Agreement; tab.Rows[0].Key != "p" || g.Kept != 3 || !near(g.Strength, 2.0/3) {
		t.Errorf("p on x: %+v", g)
	}
	if g := tab.Stats[1][0].Agreement; g.Kept != 2 || !near(g.Strength, 0) {
		t.Errorf("p on y: %+v", g)
	}
}

func TestExplorerQueryErrors(t *testing.T) {
	s, p, _ := handPairs(t)
	ctx := context.Background()
	var qe *QueryError
	if _, err := s.ExplorerTable(ctx, p, ExplorerQuery{Refs: []string{"h"}, With: []string{"nope"}, Metric: "strength"}, ForPage); !errors.As(err, &qe) {
		t.Errorf("with an unknown dataset: %v, want a query error", err)
	}
	if _, err := s.ExplorerTable(ctx, p, ExplorerQuery{Refs: []string{"h"}, Metric: "strength", Sort: "v:x"}, ForPage); !errors.As(err, &qe) {
		t.Errorf("sort by a column the table lacks: %v, want a query error", err)
	}
	// Sorting by a column is checked against the table's columns.
	columns := []Column{{Key: "v:t1"}, {Key: "v:t2"}}
	for _, tt := range []struct {
		sort, dir string
		want      string
		desc      bool
	}{
		{"", "", "v:t1", true}, {"", "asc", "v:t1", false}, {"name", "", "name", false}, {"spread", "", "spread", true},
		{"v:t2", "asc", "v:t2", false}, {"name", "desc", "name", true},
	} {
		sort, desc, err := ExplorerQuery{Sort: tt.sort, Dir: tt.dir}.sortOrder(columns)
		if err != nil || sort != tt.want || desc != tt.desc {
			t.Errorf("sort %q dir %q: %q, %v, %v; want %q, %v", tt.sort, tt.dir, sort, desc, err, tt.want, tt.desc)
		}
	}
}

// The strength bootstrap of a column is computed once: the strength figure
// and annotators.csv share it.
func TestPairsBootstrapShared(t *testing.T) {
	s, p, _ := handPairs(t)
	tab, err := s.ExplorerTable(context.Background(), p, ExplorerQuery{Refs: []string{"h"}, Metric: "strength"}, ForStrength)
	if err != nil {
		t.Fatal(err)
	}
	rows, stats, err := p.AnnotatorStats("h")
	if err != nil {
		t.Fatal(err)
	}
	if n := p.entry.boot.Len(); n != 1 {
		t.Errorf("%d bootstraps kept, want 1 shared", n)
	}
	for i := range rows {
		a, b := tab.Stats[0][i].Strength, stats[i].Strength
		if math.IsNaN(a.Lo) || a != b {
			t.Errorf("%s: figure %+v, annotators.csv %+v", rows[i].Key, a, b)
		}
	}
}

// A dataset's votes are read once, and afresh after a re-import.
func TestPairsLoadedOnce(t *testing.T) {
	s, _, f := handPairs(t)
	ctx := context.Background()
	if _, err := s.Pairs(ctx, "hand"); err != nil || f.matrixReads != 1 {
		t.Fatalf("second request: %v, %d reads; want 1", err, f.matrixReads)
	}
	f.importID = 2
	if _, err := s.Pairs(ctx, "hand"); err != nil || f.matrixReads != 2 || s.PairsCached() != 1 {
		t.Errorf("after a re-import: %v, %d reads, %d kept; want 2 reads, the old one dropped", err, f.matrixReads, s.PairsCached())
	}
	if _, err := s.Pairs(ctx, "nope"); !errors.Is(err, model.ErrNotFound) {
		t.Errorf("unknown dataset: %v", err)
	}
}

func TestSelectComparisons(t *testing.T) {
	s, p, f := handPairs(t)
	ctx := context.Background()
	ls, err := s.SelectComparisons(ctx, p, ListQuery{Ref: "h", Ann: "p", Filter: "disagree"})
	if err != nil || !reflect.DeepEqual(ls.Sel, []int32{2}) {
		t.Fatalf("p disagreeing with h: %v, %v; want [2]", ls.Sel, err)
	}
	if ref, ann := ls.Votes(2); ref != "text_a" || ann != "text_b" {
		t.Errorf("votes on 2: %q, %q", ref, ann)
	}
	f.searchResults = []int32{1, 5}
	ls, err = s.SelectComparisons(ctx, p, ListQuery{Ref: "h", Filter: FilterAll, Text: "anything"})
	if err != nil || !reflect.DeepEqual(ls.Sel, []int32{1, 5}) {
		t.Fatalf("search: %v, %v", ls.Sel, err)
	}
	if ref, ann := ls.Votes(5); ref != "no vote" || ann != "" {
		t.Errorf("votes on 5: %q, %q; want no vote and no annotator", ref, ann)
	}
	ls, err = s.SelectComparisons(ctx, p, ListQuery{Ref: "h", Filter: FilterAll, Split: "topic", Value: "y", Models: []string{"N"}})
	if err != nil || !reflect.DeepEqual(ls.Sel, []int32{2, 3}) {
		t.Errorf("topic y with N: %v, %v", ls.Sel, err)
	}
}

func TestModelWinsAndPaired(t *testing.T) {
	_, p, _ := handPairs(t)
	mw := p.ModelWins("h")
	if mw.Pairs != 5 || !reflect.DeepEqual(mw.G.IDs, []string{"M", "N"}) {
		t.Fatalf("model wins %+v", mw)
	}
	if w, l, rate := mw.Record(0); w != 5 || l != 0 || rate.Value != 1 {
		t.Errorf("M: %d–%d, rate %+v", w, l, rate)
	}
	// Agreement with h: p on 0, 1, 3; q on 4. Exact McNemar on 3 against
	// 1: p = 2·P(X ≤ 1 | n = 4) = 2·5/16.
	pc, rows, err := p.ComparePaired("h", "p", "q")
	if err != nil {
		t.Fatal(err)
	}
	r := rows[0]
	if pc.Kept != 5 || r.N != 5 || r.OnlyA != 3 || r.OnlyB != 1 || !near(r.A.Value, 0.6) || !near(r.B.Value, 0.2) ||
		!near(r.Diff.Value, 0.4) || !near(r.P, 0.625) {
		t.Errorf("agreement row %+v", r)
	}
	if rows[2].Metric != "strength" || !near(rows[2].A.Value, 0.4) || !near(rows[2].B.Value, -0.6) {
		t.Errorf("strength row %+v", rows[2])
	}
	o := p.LengthOverview("h")
	if o.Pairs != 5 || !near(o.AvgLenPreferred, 10) {
		t.Errorf("length overview %+v: the preferred response (M's) is 10 characters in all five", o)
	}
}
