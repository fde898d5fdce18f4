package app

import (
	"context"
	"slices"

	"github.com/auditscope/auditscope/analysis"
	"github.com/auditscope/auditscope/analysis/explorer"
	"github.com/auditscope/auditscope/data/model"
)

// The comparison viewer: which comparisons a query selects, and the votes
// shown beside them.

// The comparison viewer's vote filters, in the order the form lists them.
var Filters = func() []string {
	out := make([]string, len(explorer.Filters))
	for i, f := range explorer.Filters {
		out[i] = string(f)
	}
	return out
}()

// FilterAll keeps every comparison; the other filters compare an annotator
// with the reference.
const FilterAll = string(explorer.FilterAll)

// ListQuery is what the comparison viewer selects: the reference, an
// annotator compared with it through a filter, a metadata value, one or two
// response models and a searched text. Its keys are validated.
type ListQuery struct {
	Ref, Ann     string // Ann "" for none
	Filter       string // one of Filters
	Split, Value string // a metadata key and one of its values; both "" for every comparison
	Models       []string
	Text         string // "" for none
}

// Selection is what a ListQuery selects: the comparisons in order, and the
// two annotators' votes to show beside them.
type Selection struct {
	Ref, Ann           explorer.Annotator
	refVotes, annVotes []analysis.Vote // annVotes nil without Ann
	Sel                []int32
}

// SelectComparisons lists the comparisons q selects, searching the texts
// through the store when q has a text.
func (s *Service) SelectComparisons(ctx context.Context, p *Pairs, q ListQuery) (Selection, error) {
	ls := Selection{Ref: p.lookup(q.Ref)}
	ls.refVotes = p.votesOf(ls.Ref)
	if q.Ann != "" {
		ls.Ann = p.lookup(q.Ann)
		ls.annVotes = p.votesOf(ls.Ann)
	}
	sel := explorer.Selection{Value: -1, Filter: explorer.Filter(q.Filter), Ref: ls.refVotes, Ann: ls.annVotes}
	if q.Split != "" {
		mv, err := p.MetaValues(ctx, q.Split)
		if err != nil {
			return ls, err
		}
		sel.Of = mv.Of
		sel.Value = int32(slices.IndexFunc(mv.Values, func(v model.MetaValue) bool { return v.Value == q.Value }))
	}
	for _, m := range q.Models {
		i, _ := p.d.ModelIndex(m)
		sel.Models = append(sel.Models, i)
	}
	var candidates []int32
	if q.Text != "" {
		var err error
		if candidates, err = s.r.PairsSearch(ctx, p.DS.ID, q.Text); err != nil {
			return ls, err
		}
	} else {
		candidates = make([]int32, p.d.N)
		for i := range candidates {
			candidates[i] = int32(i)
		}
	}
	ls.Sel = p.d.Select(candidates, sel)
	return ls, nil
}

// Votes are the reference's and the annotator's votes on comparison idx
// in words ("" for the annotator when there is none).
func (ls Selection) Votes(idx int) (ref, ann string) {
	ref = voteText(ls.refVotes[idx], ls.Ref)
	if ls.annVotes != nil {
		ann = voteText(ls.annVotes[idx], ls.Ann)
	}
	return ref, ann
}

// voteText shows a coded vote.
func voteText(v analysis.Vote, a explorer.Annotator) string {
	if v == analysis.VoteNone {
		if a.IsModel() {
			return "not applicable"
		}
		return "no vote"
	}
	return v.String()
}
