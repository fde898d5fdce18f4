package web

import (
	"context"
	"fmt"

	"github.com/auditscope/auditscope/analysis"
	"github.com/auditscope/auditscope/analysis/explorer"
	"github.com/auditscope/auditscope/data"
	"github.com/auditscope/auditscope/web/app"
)

// pairsDerivedSize bounds the values derived from one dataset's votes that
// its entry keeps: metadata keys' values, and strength bootstraps by column.
const pairsDerivedSize = 64

// pairsCacheSize is how many datasets' vote matrices the explorer keeps in
// memory (a 50,000 × 52 matrix is about 3 MB).
const pairsCacheSize = 4

// pairsCache keeps the vote matrices of recently viewed AnnotatedPairs
// datasets, so changing a control recomputes the table in milliseconds
// instead of rescanning the votes. An entry is keyed by dataset id and
// import id, so a re-imported dataset is loaded afresh.
type pairsCache struct {
	m *app.Memo[pairsKey, *pairsEntry]
}

type pairsKey struct {
	dataset  string
	importID int64
}

func newPairsCache() pairsCache {
	return pairsCache{m: app.NewMemo[pairsKey, *pairsEntry](pairsCacheSize)}
}

// pairsEntry is one dataset's votes with the results derived from them.
type pairsEntry struct {
	dataset string
	data    *explorer.Dataset

	meta *app.Memo[string, data.MetaValues]
	boot *app.Memo[string, []analysis.Estimate] // strength bootstraps by column, see columnStats
}

// get returns the dataset's data, loading it once however many requests
// ask at the same time.
func (c pairsCache) get(ctx context.Context, store *data.Store, ds data.PairsDataset) (*explorer.Dataset, *pairsEntry, error) {
	// An older import of the same dataset will not be asked for again.
	c.m.RemoveFunc(func(k pairsKey) bool { return k.dataset == ds.ID && k.importID != ds.ImportID })
	e, err := c.m.Get(ctx, pairsKey{ds.ID, ds.ImportID}, func(ctx context.Context) (*pairsEntry, error) {
		d, err := loadPairsData(ctx, store, ds.ID)
		if err != nil {
			return nil, err
		}
		return &pairsEntry{dataset: ds.ID, data: d, meta: app.NewMemo[string, data.MetaValues](pairsDerivedSize),
			boot: app.NewMemo[string, []analysis.Estimate](pairsDerivedSize)}, nil
	})
	if err != nil {
		return nil, nil, err
	}
	return e.data, e, nil
}

// len is the number of datasets kept.
func (c pairsCache) len() int { return c.m.Len() }

// metaValues returns a metadata key's values, kept with the entry.
func (e *pairsEntry) metaValues(ctx context.Context, store *data.Store, key string) (data.MetaValues, error) {
	return e.meta.Get(ctx, key, func(ctx context.Context) (data.MetaValues, error) {
		return store.PairsMetaValues(ctx, e.dataset, key)
	})
}

// bootstrap returns the estimates kept under key, or computes and keeps
// them. A nil entry or an empty key computes without keeping. Callers must
// not modify the returned slice.
func (e *pairsEntry) bootstrap(key string, compute func() ([]analysis.Estimate, error)) ([]analysis.Estimate, error) {
	if e == nil || key == "" {
		return compute()
	}
	// compute is a pure function of the votes: it needs no context.
	return e.boot.Get(context.Background(), key, func(context.Context) ([]analysis.Estimate, error) { return compute() })
}

// loadPairsData reads a dataset's annotators and vote matrix into the
// explorer's form.
func loadPairsData(ctx context.Context, store *data.Store, dataset string) (*explorer.Dataset, error) {
	anns, err := store.PairsAnnotators(ctx, dataset)
	if err != nil {
		return nil, err
	}
	m, err := store.PairsVoteMatrix(ctx, dataset)
	if err != nil {
		return nil, err
	}
	annotators := make([]explorer.Annotator, len(anns))
	for i, a := range anns {
		annotators[i] = explorer.Annotator{Key: a.ID, Name: a.Name, Kind: a.Type, Description: a.Description, Row: a.Idx}
	}
	d, err := explorer.NewDataset(explorer.Matrix{N: m.N, Votes: votesOf(m.Votes, m.N), Models: m.Models,
		ModelA: m.ModelA, ModelB: m.ModelB, LenA: m.LenA, LenB: m.LenB}, annotators)
	if err != nil {
		return nil, fmt.Errorf("pairs %s: %w", dataset, err)
	}
	return d, nil
}

// prefVotes maps the store's coding of a vote to the statistics'.
var prefVotes = [...]analysis.Vote{
	data.PrefNone: analysis.VoteNone, data.PrefA: analysis.VoteA, data.PrefB: analysis.VoteB,
	data.PrefTie: analysis.VoteTie, data.PrefInvalid: analysis.VoteInvalid,
}

// votesOf recodes a vote matrix of n comparisons per annotator, in one
// allocation: a byte per vote, about 2.6 MB for 50,000 comparisons × 52
// annotators, done once per dataset load.
func votesOf(prefs [][]data.Pref, n int) [][]analysis.Vote {
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
