package web

import (
	"context"
	"net/url"
	"slices"
	"strings"

	"github.com/labstack/echo/v4"

	"github.com/auditscope/auditscope/data/model"
	"github.com/auditscope/auditscope/views"
	"github.com/auditscope/auditscope/views/links"
	"github.com/auditscope/auditscope/web/app"
)

// The AnnotatedPairs pages: each handler loads the dataset (its votes kept
// by the application layer), parses its page's query into one validated
// struct (explorerQuery, modelsQuery, listQuery, comparisonQuery; refQuery
// for the exports that read only the reference), makes one call into the
// service, and maps the result to the views' types. This file holds the
// request and the queries; pairs_explorer.go, pairs_list.go,
// pairs_models.go, pairs_compare.go, pairs_csv.go and pairs_figures.go the
// pages.

// The pages' fixed settings; the statistical ones are explorer's.
const (
	pairsPageSize = 50  // comparisons per page of the viewer
	pairsMaxQuery = 500 // longest search text accepted
)

// pairsReq is what every AnnotatedPairs handler starts from: the dataset
// with its votes, and the reference models its query chose.
type pairsReq struct{ *app.Pairs }

// pairsRequest loads the dataset of the route and its votes; the handler
// then parses its query (a missing dataset is a 404 whatever the query).
func (s *Server) pairsRequest(c echo.Context) (*pairsReq, error) {
	p, err := s.pairs.Pairs(c.Request().Context(), c.Param("dataset"))
	if err != nil {
		return nil, err
	}
	return &pairsReq{p}, nil
}

// vocab is what r's queries are validated against.
func (s *Server) vocab(ctx context.Context, r *pairsReq) pairsVocab {
	return pairsVocab{ctx: ctx, p: r.Pairs}
}

// base returns the query every link of the dataset's pages carries.
func (r *pairsReq) base() url.Values {
	q := url.Values{}
	setList(q, "refmodels", r.RefModels())
	return q
}

// datasetView is the header every page shows.
func (r *pairsReq) datasetView() views.PairsDataset {
	return datasetView(r.DS, r.base())
}

func datasetView(ds model.PairsDataset, base url.Values) views.PairsDataset {
	return views.PairsDataset{ID: ds.ID, Name: ds.Name, Description: ds.Description, Synthetic: ds.Synthetic, NoTexts: !ds.Texts,
		Comparisons: ds.Comparisons, ExplorerURL: links.Pairs(ds.ID, links.Explorer, nil),
		ComparisonsURL: links.Pairs(ds.ID, links.Comparisons, base)}
}

// pairsVocab is what a pairs query is validated against: the dataset's
// annotators and response models, its metadata keys, and a key's values
// (loaded on demand, so only a query with a split pays for them).
type pairsVocab struct {
	ctx context.Context
	p   *app.Pairs
}

// unknownAnnotator is the 400 of a key that names no annotator: the
// parameter, the value and the nearest annotator keys.
func (v pairsVocab) unknownAnnotator(param, key string) error {
	var keys []string
	for _, a := range v.p.Annotators() {
		keys = append(keys, a.Key)
	}
	for _, a := range v.p.ModelAnnotators() {
		keys = append(keys, a.Key)
	}
	return app.UnknownValue(param, key, keys)
}

func (v pairsVocab) isAnnotator(key string) bool {
	_, ok := v.p.Annotator(key)
	return ok
}

// parseRefModels reads refmodels: response models of the dataset.
func (v pairsVocab) parseRefModels(q url.Values) ([]string, error) {
	names := parseList(q["refmodels"], v.p.IsModel)
	for _, m := range names {
		if !v.p.IsModel(m) {
			return nil, badRequestf("refmodels: %q is not a response model of this dataset", m)
		}
	}
	return names, nil
}

// parseRefs reads ref, which may repeat or be comma-separated, as one or
// more annotator keys; the default reference when empty.
func (v pairsVocab) parseRefs(q url.Values) ([]string, error) {
	keys := parseList(q["ref"], v.isAnnotator)
	if len(keys) == 0 {
		if def := v.defaultRefs(); def != nil {
			return def, nil
		}
		return nil, badRequestf("dataset %s has no annotators and no response models to use as the reference", v.p.DS.ID)
	}
	for _, key := range keys {
		if !v.isAnnotator(key) {
			return nil, v.unknownAnnotator("ref", key)
		}
	}
	return keys, nil
}

// defaultRefs is the default reference's key, nil when there is none.
func (v pairsVocab) defaultRefs() []string {
	if key, ok := v.p.DefaultRef(); ok {
		return []string{key}
	}
	return nil
}

// splitValues validates a metadata key and loads its values.
func (v pairsVocab) splitValues(key string) (model.MetaValues, error) {
	if keys := v.p.DS.MetadataKeys; !slices.Contains(keys, key) {
		return model.MetaValues{}, badRequestf("split: %q is not a metadata key of this dataset (keys: %s)", key, strings.Join(keys, ", "))
	}
	return v.p.MetaValues(v.ctx, key)
}

// refQuery is the part of every page's query that names the reference: the
// reference models (refmodels) and the reference (ref; the first one when
// several are given). The exports that read nothing else (annotators.csv,
// overview.csv, the length figure) parse it alone.
type refQuery struct {
	RefModels []string
	Ref       string // an annotator key; the default reference when ref is not given
}

func parseRefQuery(q url.Values, v pairsVocab) (refQuery, error) {
	var rq refQuery
	var err error
	if rq.RefModels, err = v.parseRefModels(q); err != nil {
		return rq, err
	}
	refs, err := v.parseRefs(q)
	if err != nil {
		return rq, err
	}
	rq.Ref = refs[0]
	return rq, nil
}

func (rq refQuery) values() url.Values {
	q := url.Values{}
	setList(q, "refmodels", rq.RefModels)
	if rq.Ref != "" {
		q.Set("ref", rq.Ref)
	}
	return q
}

// refRequest loads the dataset and parses the reference part of the query;
// it returns the reference's key.
func (s *Server) refRequest(c echo.Context) (*pairsReq, string, error) {
	r, err := s.pairsRequest(c)
	if err != nil {
		return nil, "", err
	}
	rq, err := parseRefQuery(c.QueryParams(), s.vocab(c.Request().Context(), r))
	if err != nil {
		return nil, "", err
	}
	r.UseRefModels(rq.RefModels)
	return r, rq.Ref, nil
}

// explorerQuery is the explorer's validated query (app.ExplorerQuery, with
// its URL form here).
type explorerQuery app.ExplorerQuery

func parseExplorerQuery(q url.Values, v pairsVocab) (explorerQuery, error) {
	var e explorerQuery
	var err error
	if e.RefModels, err = v.parseRefModels(q); err != nil {
		return e, err
	}
	switch mode := q.Get("mode"); mode {
	case "", "feedback":
	case "models":
		e.Models = true
	default:
		return e, badRequestf("mode: %q is not one of feedback, models", mode)
	}
	if e.Refs, err = v.parseRefs(q); err != nil {
		if !e.Models {
			return e, err
		}
		e.Refs = v.defaultRefs()
	}
	if e.Metric = q.Get("metric"); e.Metric == "" {
		e.Metric = "strength"
	}
	if _, ok := app.LookupMetric(e.Metric); !ok {
		keys := make([]string, len(app.Metrics))
		for i, m := range app.Metrics {
			keys[i] = m.Key
		}
		return e, badRequestf("metric: %q is not one of %s", e.Metric, strings.Join(keys, ", "))
	}
	// Intervals are on unless ci=0: a rate without its interval invites
	// reading noise as a difference.
	switch ci := q.Get("ci"); ci {
	case "", "1":
		e.CI = true
	case "0":
	default:
		return e, badRequestf("ci: %q is not 0 or 1", ci)
	}
	e.Split = q.Get("split")
	e.With = parseList(q["with"], func(string) bool { return false })
	if !e.Models {
		if e.Values, err = parseSplitValues(q, v, e); err != nil {
			return e, err
		}
	}
	e.Sort, e.Dir = q.Get("sort"), q.Get("dir")
	if e.Dir != "" && e.Dir != "asc" && e.Dir != "desc" {
		return e, badRequestf("dir: %q is not asc or desc", e.Dir)
	}
	return e, nil
}

// parseSplitValues checks the feedback view's split against its other
// choices and reads the chosen values of the split key.
func parseSplitValues(q url.Values, v pairsVocab, e explorerQuery) ([]string, error) {
	if e.Split == "" {
		if len(q["values"]) > 0 {
			return nil, badRequestf("values: choose a split key first")
		}
		return nil, nil
	}
	if len(e.Refs) > 1 || len(e.With) > 0 {
		return nil, badRequestf("split: choose one of split, several references, or other datasets")
	}
	mv, err := v.splitValues(e.Split)
	if err != nil {
		return nil, err
	}
	index := make(map[string]bool, len(mv.Values))
	for _, m := range mv.Values {
		index[m.Value] = true
	}
	known := func(s string) bool { return index[s] }
	values := parseList(q["values"], known)
	for _, s := range values {
		if !known(s) {
			return nil, badRequestf("values: %q is not a value of %s in this dataset", s, e.Split)
		}
	}
	return values, nil
}

// values is the query that parses back to e.
func (e explorerQuery) values() url.Values {
	q := url.Values{}
	setList(q, "refmodels", e.RefModels)
	if e.Models {
		q.Set("mode", "models")
	}
	setList(q, "ref", e.Refs)
	setList(q, "with", e.With)
	if e.Split != "" {
		q.Set("split", e.Split)
	}
	setList(q, "values", e.Values)
	if e.Metric != "strength" {
		q.Set("metric", e.Metric)
	}
	if !e.CI {
		q.Set("ci", "0")
	}
	if e.Sort != "" {
		q.Set("sort", e.Sort)
	}
	if e.Dir != "" {
		q.Set("dir", e.Dir)
	}
	return q
}

// explorerRequest loads the dataset and parses the explorer's query.
func (s *Server) explorerRequest(c echo.Context) (*pairsReq, explorerQuery, error) {
	r, err := s.pairsRequest(c)
	if err != nil {
		return nil, explorerQuery{}, err
	}
	q, err := parseExplorerQuery(c.QueryParams(), s.vocab(c.Request().Context(), r))
	if err != nil {
		return nil, q, err
	}
	r.UseRefModels(q.RefModels)
	return r, q, nil
}
