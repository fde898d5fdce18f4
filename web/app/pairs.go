package app

import (
	"context"
	"fmt"
	"math"

	"github.com/auditscope/auditscope/analysis"
	"github.com/auditscope/auditscope/analysis/explorer"
	"github.com/auditscope/auditscope/data/model"
)

// The AnnotatedPairs side of the service: a dataset's votes, loaded once
// into the explorer's form and kept in a memo with what is derived from
// them, so changing a control recomputes a table in milliseconds instead
// of rescanning the votes.

// pairsDerivedSize bounds the values derived from one dataset's votes that
// its entry keeps: metadata keys' values, and strength bootstraps by column.
const pairsDerivedSize = 64

// pairsCacheSize is how many datasets' vote matrices are kept in memory (a
// 50,000 × 52 matrix is about 3 MB).
const pairsCacheSize = 4

// pairsKey names a dataset's votes: a re-imported dataset is loaded afresh.
type pairsKey struct {
	dataset  string
	importID int64
}

// pairsEntry is one dataset's votes with the results derived from them.
type pairsEntry struct {
	dataset string
	d       *explorer.Dataset
	meta    *Memo[string, model.MetaValues]
	boot    *Memo[string, []analysis.Estimate] // strength bootstraps by column, see columnStats
}

func newPairsEntry(dataset string, d *explorer.Dataset) *pairsEntry {
	return &pairsEntry{dataset: dataset, d: d, meta: NewMemo[string, model.MetaValues](pairsDerivedSize),
		boot: NewMemo[string, []analysis.Estimate](pairsDerivedSize)}
}

// bootstrap returns the estimates kept under key, or computes and keeps
// them. An empty key computes without keeping. Callers must not modify the
// returned slice.
func (e *pairsEntry) bootstrap(key string, compute func() ([]analysis.Estimate, error)) ([]analysis.Estimate, error) {
	if key == "" {
		return compute()
	}
	// compute is a pure function of the votes: it needs no context.
	return e.boot.Get(context.Background(), key, func(context.Context) ([]analysis.Estimate, error) { return compute() })
}

// Pairs is one AnnotatedPairs dataset as a request sees it: its header,
// its votes, and the reference models the request chose. Each request gets
// its own (the votes are shared), so choosing reference models changes no
// other request.
type Pairs struct {
	DS        model.PairsDataset
	d         *explorer.Dataset
	entry     *pairsEntry
	meta      metaSource // the metadata values, loaded on demand
	refModels []string   // chosen reference models; nil means all
	refMask   []bool     // refMask[m]: model m is a reference model; nil means all
}

// Pairs loads a dataset's header and its votes (once, however many
// requests ask at the same time); a missing dataset is model.ErrNotFound.
func (s *Service) Pairs(ctx context.Context, id string) (*Pairs, error) {
	ds, err := s.r.PairsDataset(ctx, id)
	if err != nil {
		return nil, err
	}
	// An older import of the same dataset will not be asked for again.
	s.pairs.RemoveFunc(func(k pairsKey) bool { return k.dataset == ds.ID && k.importID != ds.ImportID })
	e, err := s.pairs.Get(ctx, pairsKey{ds.ID, ds.ImportID}, func(ctx context.Context) (*pairsEntry, error) {
		anns, err := s.r.PairsAnnotators(ctx, ds.ID)
		if err != nil {
			return nil, err
		}
		m, err := s.r.PairsVoteMatrix(ctx, ds.ID)
		if err != nil {
			return nil, err
		}
		d, err := newDataset(ds.ID, anns, m)
		if err != nil {
			return nil, err
		}
		return newPairsEntry(ds.ID, d), nil
	})
	if err != nil {
		return nil, err
	}
	return &Pairs{DS: ds, d: e.d, entry: e, meta: s.r}, nil
}

// PairsCached is the number of datasets whose votes are kept.
func (s *Service) PairsCached() int { return s.pairs.Len() }

// NewPairs builds a dataset from its parts, as Service.Pairs does from the
// store's; for tests of what reads a dataset (query parsing), without a
// Reader. Its metadata values come from meta.
func NewPairs(ds model.PairsDataset, anns []model.PairsAnnotator, m model.VoteMatrix, meta func(key string) (model.MetaValues, error)) (*Pairs, error) {
	d, err := newDataset(ds.ID, anns, m)
	if err != nil {
		return nil, err
	}
	return &Pairs{DS: ds, d: d, entry: newPairsEntry(ds.ID, d), meta: metaFunc(meta)}, nil
}

// newDataset puts a dataset's annotators and vote matrix in the explorer's
// form.
func newDataset(id string, anns []model.PairsAnnotator, m model.VoteMatrix) (*explorer.Dataset, error) {
	annotators := make([]explorer.Annotator, len(anns))
	for i, a := range anns {
		annotators[i] = explorer.Annotator{Key: a.ID, Name: a.Name, Kind: a.Type, Description: a.Description, Row: a.Idx}
	}
	d, err := explorer.NewDataset(explorer.Matrix{N: m.N, Votes: votesOf(m.Votes, m.N), Models: m.Models,
		ModelA: m.ModelA, ModelB: m.ModelB, LenA: m.LenA, LenB: m.LenB}, annotators)
	if err != nil {
		return nil, fmt.Errorf("pairs %s: %w", id, err)
	}
	return d, nil
}

// prefVotes maps the store's coding of a vote to the statistics'.
var prefVotes = [...]analysis.Vote{
	model.PrefNone: analysis.VoteNone, model.PrefA: analysis.VoteA, model.PrefB: analysis.VoteB,
	model.PrefTie: analysis.VoteTie, model.PrefInvalid: analysis.VoteInvalid,
}

// votesOf recodes a vote matrix of n comparisons per annotator, in one
// allocation: a byte per vote, about 2.6 MB for 50,000 comparisons × 52
// annotators, done once per dataset load.
func votesOf(prefs [][]model.Pref, n int) [][]analysis.Vote {
	votes := make([][]analysis.Vote, len(prefs))
	backing := make([]analysis.Vote, len(prefs)*n)
	for a, row := range prefs {
		votes[a] = backing[a*n : (a+1)*n : (a+1)*n]
		for i, p := range row {
			votes[a][i] = prefVotes[p]
		}
	}
	return votes
}

// UseRefModels restricts model annotators to comparisons against the named
// models; names that are not models of the dataset are left out.
func (p *Pairs) UseRefModels(names []string) {
	p.refMask, p.refModels = p.d.RefMask(names)
}

// RefModels are the chosen reference models; nil means all.
func (p *Pairs) RefModels() []string { return p.refModels }

// votesOf is the annotator's votes with p's reference models.
func (p *Pairs) votesOf(a explorer.Annotator) []analysis.Vote {
	return p.d.VotesOf(a, p.refMask)
}

// Annotator resolves an annotator key: one of the dataset's annotators or
// a model annotator ("model:NAME").
func (p *Pairs) Annotator(key string) (explorer.Annotator, bool) { return p.d.Lookup(key) }

// lookup resolves a validated annotator key.
func (p *Pairs) lookup(key string) explorer.Annotator {
	a, _ := p.d.Lookup(key)
	return a
}

// Annotators are the dataset's annotators in display order.
func (p *Pairs) Annotators() []explorer.Annotator { return p.d.Annotators() }

// ModelAnnotators are the dataset's model annotators, one per response
// model.
func (p *Pairs) ModelAnnotators() []explorer.Annotator { return p.d.ModelAnnotators() }

// Models are the response models, sorted.
func (p *Pairs) Models() []string { return p.d.Models }

// IsModel says whether name is a response model of the dataset.
func (p *Pairs) IsModel(name string) bool { return p.d.IsModel(name) }

// DefaultRef is the default reference's key: the file's default
// annotator, or the dataset's first; false when there is none.
func (p *Pairs) DefaultRef() (string, bool) {
	a, ok := p.d.Default(p.DS.DefaultAnnotator)
	return a.Key, ok
}

// N is the number of comparisons.
func (p *Pairs) N() int { return p.d.N }

// MetaValues returns a metadata key's values, kept with the dataset's
// votes.
func (p *Pairs) MetaValues(ctx context.Context, key string) (model.MetaValues, error) {
	return p.entry.meta.Get(ctx, key, func(ctx context.Context) (model.MetaValues, error) {
		return p.meta.PairsMetaValues(ctx, p.DS.ID, key)
	})
}

// LengthOverview is the overview of the reference's votes. A dataset
// without texts has no lengths: they are undefined (NaN), never 0.
func (p *Pairs) LengthOverview(ref string) explorer.Overview {
	o := explorer.LengthOverview(p.votesOf(p.lookup(ref)), p.d.LenA, p.d.LenB)
	if !p.DS.Texts {
		nan := math.NaN()
		o.AvgLenA, o.AvgLenB, o.AvgLenPreferred, o.AvgLenRejected, o.PropLonger = nan, nan, nan, nan, nan
	}
	return o
}

// LengthBias is every comparison the reference decides as (rejected
// length, preferred length), with the overview whose share of longer
// preferred responses the figure's title gives.
func (p *Pairs) LengthBias(ref string) (explorer.LengthBias, explorer.Overview) {
	votes := p.votesOf(p.lookup(ref))
	return explorer.LengthBiasOf(votes, p.d.LenA, p.d.LenB), p.LengthOverview(ref)
}

// AnnotatorStats compares every annotator with the reference on the
// comparisons it decides, with every number annotators.csv exports
// (strength with its bootstrap interval).
func (p *Pairs) AnnotatorStats(refKey string) ([]explorer.Annotator, []explorer.Stats, error) {
	ref := p.lookup(refKey)
	rows := p.d.FeedbackRows(ref.Key)
	rowVotes := make([][]analysis.Vote, len(rows))
	for i, a := range rows {
		rowVotes[i] = p.votesOf(a)
	}
	refVotes := p.votesOf(ref)
	// The bootstrap key matches the explorer's single column for the same
	// reference, so the two share the cached bootstrap.
	key := bootKey(false, p, Column{Ref: ref})
	stats, err := explorer.Compare(refVotes, explorer.Decisive(refVotes), rowVotes,
		explorer.Needs{KappaUnadjusted: true, StrengthCI: true}, p.bootMemo(key))
	return rows, stats, err
}

// bootMemo caches a column's strength bootstrap in the dataset's entry.
func (p *Pairs) bootMemo(key string) explorer.Memo {
	return func(compute func() ([]analysis.Estimate, error)) ([]analysis.Estimate, error) {
		return p.entry.bootstrap(key, compute)
	}
}

// ModelWins is who beats whom among the response models by a reference's
// votes: the win matrix, and the same as the cycles code takes it.
type ModelWins struct {
	Ref   explorer.Annotator
	wins  explorer.WinMatrix
	G     WinMatrix // the models that are in a counted comparison, by id
	Pairs int       // comparisons counted
}

// ModelWins counts the reference's majority preferences between the
// response models (explorer.ModelWins).
func (p *Pairs) ModelWins(ref string) ModelWins {
	mw := ModelWins{Ref: p.lookup(ref)}
	mw.wins = p.d.ModelWins(p.votesOf(mw.Ref))
	mw.G.Wins, mw.Pairs = mw.wins.Wins, mw.wins.Pairs
	for _, m := range mw.wins.Models {
		mw.G.IDs = append(mw.G.IDs, p.d.Models[m])
		mw.G.Labels = append(mw.G.Labels, p.d.Models[m])
	}
	return mw
}

// Record is model i's wins and losses over all others, with the win rate
// and its Wilson interval (NaN without a decided comparison).
func (mw ModelWins) Record(i int) (wins, losses int, rate analysis.Estimate) {
	wins, losses = mw.wins.Record(i)
	return wins, losses, explorer.WinRate(wins, losses)
}

// PairedRow is one measure of a paired comparison of two annotators against
// one reference: both levels, their difference with its interval, the test
// and its p-value, on the same N comparisons.
type PairedRow struct {
	Metric, Definition, Method string
	N, OnlyA, OnlyB            int
	A, B, Diff                 analysis.Estimate
	P                          float64
}

// ComparePaired compares annotators a and b against ref on the same
// comparisons (explorer.ComparePaired): agreement rate, accuracy and
// strength, with the discordant counts the McNemar rows rest on.
func (p *Pairs) ComparePaired(ref, a, b string) (explorer.PairedAnnotators, []PairedRow, error) {
	pc, err := explorer.ComparePaired(p.votesOf(p.lookup(ref)), p.votesOf(p.lookup(a)), p.votesOf(p.lookup(b)))
	if err != nil {
		return pc, nil, err
	}
	mcnemar := func(onlyA, onlyB, n int, set string) string {
		return fmt.Sprintf("%s, on the %d %s (A only %d, B only %d)", analysis.PairedRateMethod, n, set, onlyA, onlyB)
	}
	return pc, []PairedRow{
		{Metric: "agreement rate", Definition: "agree ÷ kept", Method: mcnemar(pc.OnlyA, pc.OnlyB, pc.Kept, "kept comparisons"),
			N: pc.Kept, OnlyA: pc.OnlyA, OnlyB: pc.OnlyB, A: pc.AgreementA, B: pc.AgreementB, Diff: pc.Agreement, P: pc.AgreementP},
		{Metric: "accuracy", Definition: "agree ÷ valid votes, where both voted",
			Method: mcnemar(pc.AccuracyOnlyA, pc.AccuracyOnlyB, pc.BothValid, "kept comparisons both voted on"),
			N:      pc.BothValid, OnlyA: pc.AccuracyOnlyA, OnlyB: pc.AccuracyOnlyB, A: pc.AccuracyA, B: pc.AccuracyB, Diff: pc.Accuracy, P: pc.AccuracyP},
		{Metric: "strength", Definition: "(agree − disagree) ÷ kept",
			Method: fmt.Sprintf("paired t on the %d kept comparisons' scores (+1 agree, −1 disagree, 0 no valid vote)", pc.Kept),
			N:      pc.Kept, A: pc.StrengthA, B: pc.StrengthB, Diff: pc.Strength, P: pc.StrengthP},
	}, nil
}

// metaSource is where a dataset's metadata values are read: the Reader,
// or for NewPairs a function.
type metaSource interface {
	PairsMetaValues(ctx context.Context, dataset, key string) (model.MetaValues, error)
}

type metaFunc func(key string) (model.MetaValues, error)

func (m metaFunc) PairsMetaValues(_ context.Context, _, key string) (model.MetaValues, error) {
	return m(key)
}

// Datasets lists the AnnotatedPairs datasets.
func (s *Service) Datasets(ctx context.Context) ([]model.DatasetSummary, error) {
	return s.r.DatasetList(ctx)
}

// PairsComparisons reads the comparisons at the given positions (one page
// of a Selection), in order.
func (s *Service) PairsComparisons(ctx context.Context, dataset string, idxs []int32) ([]model.PairsComparison, error) {
	return s.r.PairsComparisons(ctx, dataset, idxs)
}

// PairsComparison reads one comparison by id with every vote on it, and its
// dataset's header; either missing is model.ErrNotFound.
func (s *Service) PairsComparison(ctx context.Context, dataset, id string) (model.PairsDataset, model.PairsComparison, error) {
	ds, err := s.r.PairsDataset(ctx, dataset)
	if err != nil {
		return ds, model.PairsComparison{}, err
	}
	cmp, err := s.r.PairsComparisonByID(ctx, ds.ID, id)
	return ds, cmp, err
}
