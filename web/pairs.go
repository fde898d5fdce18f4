package web

import (
	"context"
	"errors"
	"fmt"
	"hash/fnv"
	"math"
	"net/http"
	"net/url"
	"slices"
	"strconv"
	"strings"

	"github.com/a-h/templ"
	"github.com/labstack/echo/v4"

	"github.com/auditscope/auditscope/analysis"
	"github.com/auditscope/auditscope/analysis/explorer"
	"github.com/auditscope/auditscope/data"
	"github.com/auditscope/auditscope/views"
)

// The AnnotatedPairs pages: each handler loads the dataset's cached votes,
// parses its page's query into one validated struct (explorerQuery,
// modelsQuery, listQuery, comparisonQuery; refQuery for the exports that
// read only the reference), calls package explorer for every number, and
// maps the result to the views' types.

// The pages' fixed settings; the statistical ones are explorer's.
const (
	pairsPageSize = 50  // comparisons per page of the viewer
	pairsMaxQuery = 500 // longest search text accepted
)

// pairsMetric is one metric the explorer can show.
type pairsMetric struct {
	key, label string
	integer    bool
}

// pairsMetrics is the whitelist of the metric parameter, in menu order.
var pairsMetrics = []pairsMetric{
	{key: "strength", label: "Strength"},
	{key: "relevance", label: "Relevance"},
	{key: "accuracy", label: "Accuracy"},
	{key: "agreement", label: "Agreement"},
	{key: "kappa", label: "Cohen's kappa (adjusted)"},
	{key: "kappa_unadjusted", label: "Cohen's kappa (unadjusted)"},
	{key: "kept", label: "Kept pairs", integer: true},
	{key: "agree", label: "Agreeing votes", integer: true},
	{key: "disagree", label: "Disagreeing votes", integer: true},
	{key: "not_applicable", label: "Not applicable votes", integer: true},
}

func lookupMetric(key string) (pairsMetric, bool) {
	for _, m := range pairsMetrics {
		if m.key == key {
			return m, true
		}
	}
	return pairsMetric{}, false
}

// pairsCell is one row's statistics in one column, or why the cell is
// empty.
type pairsCell struct {
	absent string // the row is not in the column's dataset, or is its reference
	explorer.Stats
}

// value returns the metric of st with its interval (NaN when there is none).
func (m pairsMetric) value(st pairsCell) (v, lo, hi float64) {
	nan := math.NaN()
	if st.absent != "" {
		return nan, nan, nan
	}
	g := st.Agreement
	switch m.key {
	case "strength":
		return g.Strength, st.Strength.Lo, st.Strength.Hi
	case "relevance":
		return g.Relevance, st.Relevance.Lo, st.Relevance.Hi
	case "accuracy":
		return g.Accuracy, st.Accuracy.Lo, st.Accuracy.Hi
	case "agreement":
		return g.Agreement, nan, nan
	case "kappa":
		return g.Kappa, nan, nan
	case "kappa_unadjusted":
		return st.KappaUnadjusted, nan, nan
	case "kept":
		return float64(g.Kept), nan, nan
	case "agree":
		return float64(g.Agree), nan, nan
	case "disagree":
		return float64(g.Disagree), nan, nan
	default: // not_applicable
		return float64(g.NotApplicable), nan, nan
	}
}

// shade places a metric value on the diverging colour scale [-1, 1]:
// kappa-like metrics as they are, accuracy around its chance level 0.5,
// shares from 0 up; counts are not shaded.
func (m pairsMetric) shade(v float64) float64 {
	switch m.key {
	case "strength", "kappa", "kappa_unadjusted", "relevance", "agreement":
		return v
	case "accuracy":
		return 2 * (v - 0.5)
	default:
		return math.NaN()
	}
}

// pairsReq is what every AnnotatedPairs handler starts from: the dataset,
// its cached votes, and the reference models its query chose.
type pairsReq struct {
	ds        data.PairsDataset
	d         *explorer.Dataset
	entry     *pairsEntry
	refModels []string // chosen reference models; nil means all
	refMask   []bool   // refMask[m]: model m is a reference model; nil means all
}

// pairsRequest loads the dataset of the route and its votes; the handler
// then parses its query (a missing dataset is a 404 whatever the query).
func (s *Server) pairsRequest(c echo.Context) (*pairsReq, error) {
	ctx := c.Request().Context()
	ds, err := s.store.PairsDataset(ctx, c.Param("dataset"))
	if err != nil {
		return nil, err
	}
	d, entry, err := s.pairs.get(ctx, s.store, ds)
	if err != nil {
		return nil, err
	}
	return &pairsReq{ds: ds, d: d, entry: entry}, nil
}

// useRefModels restricts model annotators to comparisons against the named
// models; names that are not models of r's dataset are left out.
func (r *pairsReq) useRefModels(names []string) {
	r.refMask, r.refModels = r.d.RefMask(names)
}

// votesOf is the annotator's votes with r's reference models.
func (r *pairsReq) votesOf(a explorer.Annotator) []analysis.Vote {
	return r.d.VotesOf(a, r.refMask)
}

// lookup resolves a validated annotator key.
func (r *pairsReq) lookup(key string) explorer.Annotator {
	a, _ := r.d.Lookup(key)
	return a
}

// vocab is what r's queries are validated against.
func (s *Server) vocab(ctx context.Context, r *pairsReq) pairsVocab {
	return pairsVocab{dataset: r.ds.ID, d: r.d, defaultAnnotator: r.ds.DefaultAnnotator, metaKeys: r.ds.MetadataKeys,
		metaValues: func(key string) (data.MetaValues, error) { return r.entry.metaValues(ctx, s.store, key) }}
}

// otherRequest opens another dataset for a side-by-side column, with the
// reference models of r that are response models there.
func (s *Server) otherRequest(ctx context.Context, r *pairsReq, id string) (*pairsReq, error) {
	ds, err := s.store.PairsDataset(ctx, id)
	if err != nil {
		if errors.Is(err, data.ErrNotFound) {
			return nil, badRequestf("with: %q is not an AnnotatedPairs dataset", id)
		}
		return nil, err
	}
	d, entry, err := s.pairs.get(ctx, s.store, ds)
	if err != nil {
		return nil, err
	}
	o := &pairsReq{ds: ds, d: d, entry: entry}
	o.useRefModels(r.refModels)
	return o, nil
}

// base returns the query every link of the dataset's pages carries.
func (r *pairsReq) base() url.Values {
	q := url.Values{}
	setList(q, "refmodels", r.refModels)
	return q
}

// datasetView is the header every page shows.
func (r *pairsReq) datasetView() views.PairsDataset {
	return views.PairsDataset{ID: r.ds.ID, Name: r.ds.Name, Description: r.ds.Description, Synthetic: r.ds.Synthetic, NoTexts: !r.ds.Texts,
		Comparisons: r.ds.Comparisons, ExplorerURL: views.Path("pairs", r.ds.ID),
		ComparisonsURL: views.PathQuery(r.base(), "pairs", r.ds.ID, "comparisons")}
}

// parseList reads a list parameter given as comma-separated values, as
// repeated parameters, or both. A whole entry that is a known value is kept
// as it is, so values containing commas survive repeated parameters.
func parseList(raw []string, known func(string) bool) []string {
	var out []string
	add := func(v string) {
		if v != "" && !slices.Contains(out, v) {
			out = append(out, v)
		}
	}
	for _, entry := range raw {
		if known(entry) {
			add(entry)
			continue
		}
		for _, v := range strings.Split(entry, ",") {
			add(strings.TrimSpace(v))
		}
	}
	return out
}

// setList writes a list parameter comma-separated, or as repeated
// parameters when a value contains a comma.
func setList(q url.Values, key string, vals []string) {
	if len(vals) == 0 {
		return
	}
	for _, v := range vals {
		if strings.Contains(v, ",") {
			q[key] = slices.Clone(vals)
			return
		}
	}
	q.Set(key, strings.Join(vals, ","))
}

// pairsVocab is what a pairs query is validated against: the dataset's
// annotators and response models, its metadata keys, and a key's values
// (loaded on demand, so only a query with a split pays for them).
type pairsVocab struct {
	dataset          string // the dataset's id, for messages
	d                *explorer.Dataset
	defaultAnnotator string
	metaKeys         []string
	metaValues       func(key string) (data.MetaValues, error)
}

// unknownAnnotator is the 400 of a key that names no annotator: the
// parameter, the value and the nearest annotator keys.
func (v pairsVocab) unknownAnnotator(param, key string) error {
	var keys []string
	for _, a := range v.d.Annotators() {
		keys = append(keys, a.Key)
	}
	for _, a := range v.d.ModelAnnotators() {
		keys = append(keys, a.Key)
	}
	return unknownValue(param, key, keys)
}

func (v pairsVocab) isAnnotator(key string) bool {
	_, ok := v.d.Lookup(key)
	return ok
}

// parseRefModels reads refmodels: response models of the dataset.
func (v pairsVocab) parseRefModels(q url.Values) ([]string, error) {
	names := parseList(q["refmodels"], v.d.IsModel)
	for _, m := range names {
		if !v.d.IsModel(m) {
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
		return nil, badRequestf("dataset %s has no annotators and no response models to use as the reference", v.dataset)
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
	if a, ok := v.d.Default(v.defaultAnnotator); ok {
		return []string{a.Key}
	}
	return nil
}

// splitValues validates a metadata key and loads its values.
func (v pairsVocab) splitValues(key string) (data.MetaValues, error) {
	if !slices.Contains(v.metaKeys, key) {
		return data.MetaValues{}, badRequestf("split: %q is not a metadata key of this dataset (keys: %s)", key, strings.Join(v.metaKeys, ", "))
	}
	return v.metaValues(key)
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

// refRequest loads the dataset and parses the reference part of the query.
func (s *Server) refRequest(c echo.Context) (*pairsReq, explorer.Annotator, error) {
	r, err := s.pairsRequest(c)
	if err != nil {
		return nil, explorer.Annotator{}, err
	}
	rq, err := parseRefQuery(c.QueryParams(), s.vocab(c.Request().Context(), r))
	if err != nil {
		return nil, explorer.Annotator{}, err
	}
	r.useRefModels(rq.RefModels)
	return r, r.lookup(rq.Ref), nil
}

// explorerQuery is the explorer's validated query; its figures and
// table.csv read the same one.
type explorerQuery struct {
	RefModels []string
	Models    bool // mode=models: traits against each model annotator
	// Refs are the reference keys, a column each when several. In model
	// analysis, which has no reference, a bad ref falls back to the
	// default (only the form shows it).
	Refs []string
	// With are other datasets shown side by side; they are checked when
	// the table is built, which loads them. Split is a metadata key and
	// Values its chosen values (none: the largest, explorer.DefaultSplitValues).
	// Model analysis neither checks nor uses With and Split: the page only
	// says they apply to the feedback view.
	With   []string
	Split  string
	Values []string
	Metric string // a key of pairsMetrics
	CI     bool
	// Sort is a column key, "name" or "spread", checked against the
	// table's columns once they are laid out; "" sorts by the first
	// column. Dir is "", "asc" or "desc".
	Sort, Dir string
}

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
	if _, ok := lookupMetric(e.Metric); !ok {
		keys := make([]string, len(pairsMetrics))
		for i, m := range pairsMetrics {
			keys[i] = m.key
		}
		return e, badRequestf("metric: %q is not one of %s", e.Metric, strings.Join(keys, ", "))
	}
	switch ci := q.Get("ci"); ci {
	case "", "0":
	case "1":
		e.CI = true
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
	if e.CI {
		q.Set("ci", "1")
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
	r.useRefModels(q.RefModels)
	return r, q, nil
}

// listQuery is the comparison viewer's validated query.
type listQuery struct {
	refQuery
	Ann    string          // an annotator key compared with the reference; "" for none
	Filter explorer.Filter // FilterAll unless Ann is set
	// Split is a metadata key and Value one of its values; both "" for
	// every comparison.
	Split, Value string
	Models       []string // one response model, or two
	Text         string   // searched text, trimmed; "" for none
	Page         int      // as asked; the handler caps it to the pages there are
}

func parseListQuery(q url.Values, v pairsVocab) (listQuery, error) {
	var l listQuery
	var err error
	if l.refQuery, err = parseRefQuery(q, v); err != nil {
		return l, err
	}
	if l.Ann = q.Get("ann"); l.Ann != "" && !v.isAnnotator(l.Ann) {
		return l, v.unknownAnnotator("ann", l.Ann)
	}
	if l.Filter = explorer.Filter(q.Get("filter")); l.Filter == "" {
		l.Filter = explorer.FilterAll
	}
	if !slices.Contains(explorer.Filters, l.Filter) {
		return l, badRequestf("filter: %q is not one of all, agree, disagree, one, neither", l.Filter)
	}
	if l.Filter != explorer.FilterAll && l.Ann == "" {
		return l, badRequestf("filter: %s compares an annotator with the reference; choose ann", l.Filter)
	}
	l.Split, l.Value = q.Get("split"), q.Get("value")
	if l.Split != "" {
		mv, err := v.splitValues(l.Split)
		if err != nil {
			return l, err
		}
		if !slices.ContainsFunc(mv.Values, func(m data.MetaValue) bool { return m.Value == l.Value }) {
			return l, badRequestf("value: %q is not a value of %s in this dataset", l.Value, l.Split)
		}
	} else if l.Value != "" {
		return l, badRequestf("value: choose a split key first")
	}
	l.Models = parseList(q["models"], v.d.IsModel)
	if len(l.Models) > 2 {
		return l, badRequestf("models: choose one response model or a pair, not %d", len(l.Models))
	}
	for _, m := range l.Models {
		if !v.d.IsModel(m) {
			return l, badRequestf("models: %q is not a response model of this dataset", m)
		}
	}
	if l.Text = strings.TrimSpace(q.Get("q")); len(l.Text) > pairsMaxQuery {
		return l, badRequestf("q: the search text is longer than %d bytes", pairsMaxQuery)
	}
	l.Page = 1
	if raw := q.Get("page"); raw != "" {
		if l.Page, err = strconv.Atoi(raw); err != nil {
			return l, badRequestf("page: %q is not a whole number", raw)
		}
	}
	return l, nil
}

// values is the query that parses back to l.
func (l listQuery) values() url.Values {
	q := l.refQuery.values()
	if l.Ann != "" {
		q.Set("ann", l.Ann)
	}
	if l.Filter != explorer.FilterAll {
		q.Set("filter", string(l.Filter))
	}
	if l.Split != "" {
		q.Set("split", l.Split)
		q.Set("value", l.Value)
	}
	setList(q, "models", l.Models)
	if l.Text != "" {
		q.Set("q", l.Text)
	}
	if l.Page != 1 {
		q.Set("page", strconv.Itoa(l.Page))
	}
	return q
}

// comparisonQuery is the comparison page's query: it reads no query
// parameters, only its path's dataset and comparison id, given here as
// values. An unknown id is the store's 404.
type comparisonQuery struct {
	Dataset, ID string
}

func parseComparisonQuery(path url.Values) comparisonQuery {
	return comparisonQuery{Dataset: path.Get("dataset"), ID: path.Get("id")}
}

func (q comparisonQuery) values() url.Values {
	return url.Values{"dataset": {q.Dataset}, "id": {q.ID}}
}

// pairsColumn is one column of the explorer table: a reference and the
// kept comparisons it is compared on.
type pairsColumn struct {
	key, label, note string
	ref              explorer.Annotator
	refVotes         []analysis.Vote
	keep             []int32
	split, value     string    // the split value, for links
	r                *pairsReq // the column's dataset; nil means the request's own
}

// req is the column's dataset request.
func (c pairsColumn) req(r *pairsReq) *pairsReq {
	if c.r != nil {
		return c.r
	}
	return r
}

// newColumn is a column comparing with ref on the comparisons ref decides.
func newColumn(key, label string, ref explorer.Annotator, votes []analysis.Vote) pairsColumn {
	keep := explorer.Decisive(votes)
	return pairsColumn{key: key, label: label, note: fmt.Sprintf("%d pairs", len(keep)), ref: ref, refVotes: votes, keep: keep}
}

// tableView is how the table is shown: the metric, whether intervals are,
// and the order of the rows.
type tableView struct {
	metric pairsMetric
	ci     bool
	sort   string // a column key, "name" or "spread"
	desc   bool
}

// explorerTable is the explorer's table before display: the query, what it
// resolved to, the columns and rows, and every row's statistics per column.
type explorerTable struct {
	q    explorerQuery
	view tableView
	ref  explorer.Annotator   // the first reference: overall statistics, annotators.csv
	refs []explorer.Annotator // every reference; several make a column each
	// The feedback view's split and other datasets (none in model analysis).
	split  string
	with   []string
	values []string // the split values shown: the chosen ones or the largest
	mv     data.MetaValues
	notes  []string

	columns []pairsColumn
	rows    []explorer.Annotator
	stats   [][]pairsCell // stats[column][row]
}

// explorerTable lays out and computes the explorer's table for a parsed
// query; the explorer page, table.csv and the figures share it. need says
// which costlier numbers to compute.
func (s *Server) explorerTable(ctx context.Context, r *pairsReq, q explorerQuery, need func(explorerQuery) explorer.Needs) (explorerTable, error) {
	t := explorerTable{q: q}
	t.view.metric, _ = lookupMetric(q.Metric)
	t.view.ci = q.CI
	for _, key := range q.Refs {
		t.refs = append(t.refs, r.lookup(key))
	}
	if len(t.refs) > 0 {
		t.ref = t.refs[0]
	}
	var err error
	switch {
	case q.Models:
		t.modelsLayout(r)
	case q.Split != "":
		t.split = q.Split
		err = t.splitLayout(ctx, s, r)
	case len(t.refs) > 1 || len(q.With) > 0:
		t.with = q.With
		err = t.multiLayout(ctx, s, r)
	default:
		c := newColumn("all", "All", t.ref, r.votesOf(t.ref))
		t.noteUndecided(c.keep)
		t.columns, t.rows = []pairsColumn{c}, r.d.FeedbackRows(t.ref.Key)
	}
	if err != nil {
		return t, err
	}
	if t.view.sort, t.view.desc, err = q.sortOrder(t.columns); err != nil {
		return t, err
	}
	needs := need(q)
	t.stats = make([][]pairsCell, len(t.columns))
	for j, col := range t.columns {
		if t.stats[j], err = columnStats(r, q.Models, col, t.rows, needs); err != nil {
			return t, err
		}
	}
	return t, nil
}

// noteUndecided says when the first reference decides no comparison
// (keep is where it votes text_a or text_b).
func (t *explorerTable) noteUndecided(keep []int32) {
	if len(keep) == 0 {
		t.notes = append(t.notes, t.ref.Name+" has no text_a or text_b vote, so every metric is undefined.")
	}
}

// modelsLayout is model analysis: the traits against each model annotator.
func (t *explorerTable) modelsLayout(r *pairsReq) {
	for _, ref := range r.d.ModelAnnotators() {
		t.columns = append(t.columns, newColumn(ref.Key, ref.Name, ref, r.votesOf(ref)))
	}
	if len(r.d.Models) == 0 {
		t.notes = append(t.notes, "No response names its model, so there are no model annotators to compare with.")
	}
	// A link or form from the feedback view may carry its fields; say
	// they change nothing here rather than fail. (The form always sends
	// a reference, so that one goes unmentioned.)
	if len(t.q.With) > 0 || t.q.Split != "" {
		t.notes = append(t.notes, "Model analysis compares every trait with each model of this dataset; other datasets (with) and splits (split) apply to the feedback view.")
	}
	t.rows = r.d.TraitRows()
}

// splitLayout is a column per chosen value of the split key (by default
// the values with the most comparisons).
func (t *explorerTable) splitLayout(ctx context.Context, s *Server, r *pairsReq) error {
	mv, err := r.entry.metaValues(ctx, s.store, t.split)
	if err != nil {
		return err
	}
	t.mv = mv
	index := make(map[string]int32, len(mv.Values))
	for i, v := range mv.Values {
		index[v.Value] = int32(i)
	}
	t.values = t.q.Values
	if len(t.values) == 0 {
		for _, v := range mv.Values[:min(explorer.DefaultSplitValues, len(mv.Values))] {
			t.values = append(t.values, v.Value)
		}
	}
	idx := make([]int32, len(t.values))
	for k, v := range t.values {
		idx[k] = index[v]
	}
	refVotes := r.votesOf(t.ref)
	t.noteUndecided(explorer.Decisive(refVotes))
	for k, keep := range explorer.Split(refVotes, mv.Of, idx) {
		v := t.values[k]
		t.columns = append(t.columns, pairsColumn{key: "v:" + v, label: v, note: fmt.Sprintf("%d pairs", len(keep)),
			ref: t.ref, refVotes: refVotes, keep: keep, split: t.split, value: v})
	}
	if len(mv.Values) == 0 {
		t.notes = append(t.notes, fmt.Sprintf("No comparison has a value for %s.", t.split))
	} else if missing := explorer.Unvalued(mv.Of); missing > 0 {
		t.notes = append(t.notes, fmt.Sprintf("%d comparisons have no value for %s.", missing, t.split))
	}
	t.rows = r.d.FeedbackRows(t.ref.Key)
	return nil
}

// multiLayout is the feedback table with a column per reference (when
// there are several) and a column per other dataset. With several
// references the rows are every annotator, a row's cell empty in the column
// of its own reference; other datasets add their annotators after the
// request's own, matched by key.
func (t *explorerTable) multiLayout(ctx context.Context, s *Server, r *pairsReq) error {
	first := newColumn("all", r.ds.ID, t.ref, r.votesOf(t.ref))
	t.noteUndecided(first.keep)
	if len(t.refs) > 1 {
		t.rows = r.d.FeedbackRows("")
		for _, ref := range t.refs {
			t.columns = append(t.columns, newColumn("ref:"+ref.Key, ref.Name, ref, r.votesOf(ref)))
		}
	} else {
		t.rows = r.d.FeedbackRows(t.ref.Key)
		first.note += " · " + t.ref.Name
		t.columns = append(t.columns, first)
	}
	seen := make(map[string]bool, len(t.rows))
	for _, a := range t.rows {
		seen[a.Key] = true
	}
	for _, id := range t.with {
		o, err := s.otherRequest(ctx, r, id)
		if err != nil {
			return err
		}
		ref, ok := o.d.Lookup(t.ref.Key)
		if !ok {
			if ref, ok = o.d.Default(o.ds.DefaultAnnotator); !ok {
				return badRequestf("with: dataset %s has no annotators and no response models to use as the reference", o.ds.ID)
			}
		}
		c := newColumn("ds:"+o.ds.ID, o.ds.ID, ref, o.votesOf(ref))
		c.note += " · " + ref.Name
		c.r = o
		t.columns = append(t.columns, c)
		for _, a := range o.d.FeedbackRows(ref.Key) {
			if !seen[a.Key] {
				seen[a.Key] = true
				t.rows = append(t.rows, a.Foreign()) // looked up per column
			}
		}
	}
	return nil
}

// sortOrder checks sort and dir against the table's columns. The default
// is the first column, descending.
func (e explorerQuery) sortOrder(columns []pairsColumn) (sort string, desc bool, err error) {
	sort = e.Sort
	if sort == "" {
		sort = "name"
		if len(columns) > 0 {
			sort = columns[0].key
		}
	} else if sort != "name" && sort != "spread" && !slices.ContainsFunc(columns, func(c pairsColumn) bool { return c.key == sort }) {
		return "", false, badRequestf("sort: %q is not name, spread or a column of this table", sort)
	}
	switch e.Dir {
	case "":
		desc = sort != "name"
	case "desc":
		desc = true
	}
	return sort, desc, nil
}

// bootKey names a column's comparisons and rows for the bootstrap cache.
func bootKey(models bool, r *pairsReq, col pairsColumn) string {
	rows := "annotators"
	if models {
		rows = "traits"
	}
	return strings.Join([]string{rows, col.ref.Key, strings.Join(r.refModels, "\x1f"), col.split, col.value}, "\x1e")
}

// bootMemo caches a column's strength bootstrap in the dataset's entry.
func bootMemo(e *pairsEntry, key string) explorer.Memo {
	return func(compute func() ([]analysis.Estimate, error)) ([]analysis.Estimate, error) {
		return e.bootstrap(key, compute)
	}
}

// columnStats compares every row with the column's reference on the
// column's dataset; a row absent there, or that is the reference itself,
// gets an empty cell.
func columnStats(r *pairsReq, models bool, col pairsColumn, rows []explorer.Annotator, needs explorer.Needs) ([]pairsCell, error) {
	cr := col.req(r)
	out := make([]pairsCell, len(rows))
	var present []int
	var votes [][]analysis.Vote
	for i, a := range rows {
		if a.IsForeign() || cr != r {
			var ok bool
			if a, ok = cr.d.Lookup(a.Key); !ok {
				out[i].absent = "not in dataset " + cr.ds.ID
				continue
			}
		}
		if a.Key == col.ref.Key {
			out[i].absent = a.Name + " is this column's reference"
			continue
		}
		present = append(present, i)
		votes = append(votes, cr.votesOf(a))
	}
	key := bootKey(models, cr, col)
	if len(present) != len(rows) || cr != r {
		h := fnv.New64a()
		for _, i := range present {
			h.Write([]byte(rows[i].Key))
			h.Write([]byte{0})
		}
		key += fmt.Sprintf("\x1erows:%x", h.Sum64())
	}
	st, err := explorer.Compare(col.refVotes, col.keep, votes, needs, bootMemo(cr.entry, key))
	if err != nil {
		return nil, err
	}
	for k, i := range present {
		out[i].Stats = st[k]
	}
	return out, nil
}

// pageNeeds are the numbers the explorer page shows: the unadjusted kappa
// when it is the metric, and the chosen metric's interval when asked for.
func pageNeeds(q explorerQuery) explorer.Needs {
	return explorer.Needs{KappaUnadjusted: q.Metric == "kappa_unadjusted",
		StrengthCI: q.CI && q.Metric == "strength",
		Wilson:     q.CI && (q.Metric == "accuracy" || q.Metric == "relevance")}
}

// state is the canonical query of the view, without sorting: the links'
// base.
func (t explorerTable) state(r *pairsReq) url.Values {
	q := r.base()
	if t.q.Models {
		q.Set("mode", "models")
	} else {
		keys := make([]string, len(t.refs))
		for i, a := range t.refs {
			keys[i] = a.Key
		}
		setList(q, "ref", keys)
		setList(q, "with", t.with)
		if t.split != "" {
			q.Set("split", t.split)
			setList(q, "values", t.q.Values)
		}
	}
	if t.view.metric.key != "strength" {
		q.Set("metric", t.view.metric.key)
	}
	if t.view.ci {
		q.Set("ci", "1")
	}
	return q
}

// query is the view's canonical query with its sorting, when the request
// chose one.
func (t explorerTable) query(r *pairsReq) url.Values {
	q := t.state(r)
	if t.q.Sort != "" || t.q.Dir != "" {
		q.Set("sort", t.view.sort)
		q.Set("dir", map[bool]string{true: "desc", false: "asc"}[t.view.desc])
	}
	return q
}

// viewRows are the table's rows as shown, in display order.
func (t explorerTable) viewRows(r *pairsReq) []views.PairsRow {
	return t.rowsAs(r, t.view)
}

// rowsAs are the table's rows shown as v says, in v's order.
func (t explorerTable) rowsAs(r *pairsReq, v tableView) []views.PairsRow {
	out := make([]views.PairsRow, 0, len(t.rows))
	for i, a := range t.rows {
		out = append(out, explorerRow(r, v, a, t.columns, t.stats, i))
	}
	sortRows(out, t.columns, v)
	return out
}

func (s *Server) showPairs(c echo.Context) error {
	r, q, err := s.explorerRequest(c)
	if err != nil {
		return err
	}
	t, err := s.explorerTable(c.Request().Context(), r, q, pageNeeds)
	if err != nil {
		return err
	}
	datasets, err := s.store.DatasetList(c.Request().Context())
	if err != nil {
		return err
	}
	v := t.view
	e := views.PairsExplorer{Dataset: r.datasetView(), ModelsMode: q.Models, RefName: t.ref.Name, MetricLabel: v.metric.label,
		CI: v.ci, Notes: t.notes, Form: explorerForm(r, t, datasets)}
	e.Rows = t.viewRows(r)
	state := t.state(r)
	sortLink := func(key, label, note string) views.PairsColumn {
		desc := key != "name"
		if key == v.sort {
			desc = !v.desc
		}
		q := cloneValues(state)
		q.Set("sort", key)
		q.Set("dir", map[bool]string{true: "desc", false: "asc"}[desc])
		return views.PairsColumn{Key: key, Label: label, Note: note, SortURL: views.PathQuery(q, "pairs", r.ds.ID),
			Sorted: key == v.sort, Desc: v.desc}
	}
	e.Corner = sortLink("name", "Annotator", "")
	if q.Models {
		e.Corner.Label = "Trait"
	}
	for _, col := range t.columns {
		e.Columns = append(e.Columns, sortLink(col.key, col.label, col.note))
	}
	e.SpreadSort = sortLink("spread", "Spread", "")
	refQ := r.base() // the links that take the reference alone
	if !q.Models {
		o := r.lengthOverview(r.votesOf(t.ref))
		e.Overview = views.PairsOverview{Pairs: o.Pairs, PropA: o.PropA, AvgLenA: o.AvgLenA, AvgLenB: o.AvgLenB,
			AvgLenPreferred: o.AvgLenPreferred, AvgLenRejected: o.AvgLenRejected, PropLonger: o.PropLonger, NoTexts: !r.ds.Texts}
		refQ.Set("ref", t.ref.Key)
	}
	tableQ := t.query(r)
	e.Downloads = []views.PairsLink{
		{Label: "table.csv", TestID: "table-csv", URL: views.PathQuery(tableQ, "pairs", r.ds.ID, "table.csv")},
		{Label: "annotators.csv", TestID: "annotators-csv", URL: views.PathQuery(refQ, "pairs", r.ds.ID, "annotators.csv")},
		{Label: "overview.csv", TestID: "overview-csv", URL: views.PathQuery(refQ, "pairs", r.ds.ID, "overview.csv")},
	}
	e.Figures = explorerFigures(r, t)
	e.ModelsURL = views.PathQuery(refQ, "pairs", r.ds.ID, "models")
	return render(c, http.StatusOK, views.PairsExplorerPage(e))
}

// explorerRow is row i of the table: the chosen metric per column, each
// cell linking to its comparisons, and the spread across columns.
func explorerRow(r *pairsReq, v tableView, a explorer.Annotator, columns []pairsColumn, stats [][]pairsCell, i int) views.PairsRow {
	row := views.PairsRow{Key: a.Key, Name: a.Name, Kind: a.Kind, Description: a.Description}
	values := make([]float64, len(columns))
	for j, col := range columns {
		val, clo, chi := v.metric.value(stats[j][i])
		values[j] = val
		if !v.ci {
			clo, chi = math.NaN(), math.NaN()
		}
		if why := stats[j][i].absent; why != "" {
			row.Cells = append(row.Cells, views.PairsCell{Value: val, Integer: v.metric.integer, Lo: clo, Hi: chi, Shade: math.NaN(), Title: why})
			continue
		}
		cr := col.req(r)
		q := cr.base()
		q.Set("ann", a.Key)
		q.Set("ref", col.ref.Key)
		if col.split != "" {
			q.Set("split", col.split)
			q.Set("value", col.value)
		}
		g := stats[j][i].Agreement
		row.Cells = append(row.Cells, views.PairsCell{Value: val, Integer: v.metric.integer, Lo: clo, Hi: chi,
			Shade: v.metric.shade(val), URL: views.PathQuery(q, "pairs", cr.ds.ID, "comparisons"),
			Title: cellTitle(g), Thin: !v.metric.integer && g.Agree+g.Disagree < views.PairsThinMin})
	}
	// An empty cell's value is NaN, so the spread is over the filled ones.
	row.Spread = explorer.Spread(values)
	return row
}

func cellTitle(g analysis.Agreement) string {
	return fmt.Sprintf("%d kept pairs: %d agree, %d disagree, %d not applicable", g.Kept, g.Agree, g.Disagree, g.NotApplicable)
}

func cloneValues(q url.Values) url.Values {
	out := make(url.Values, len(q))
	for k, v := range q {
		out[k] = slices.Clone(v)
	}
	return out
}

// sortRows orders the table rows; undefined values go last in either
// direction, and ties keep the annotator order.
func sortRows(rows []views.PairsRow, columns []pairsColumn, v tableView) {
	if v.sort == "name" {
		slices.SortStableFunc(rows, func(a, b views.PairsRow) int {
			c := strings.Compare(strings.ToLower(a.Name), strings.ToLower(b.Name))
			if v.desc {
				c = -c
			}
			return c
		})
		return
	}
	col := slices.IndexFunc(columns, func(c pairsColumn) bool { return c.key == v.sort })
	key := func(r views.PairsRow) float64 {
		if col < 0 {
			return r.Spread
		}
		return r.Cells[col].Value
	}
	slices.SortStableFunc(rows, func(a, b views.PairsRow) int { return cmpNaNLast(key(a), key(b), v.desc) })
}

// annotatorOptions lists every dataset annotator and model annotator.
func annotatorOptions(d *explorer.Dataset, selected string) []views.PairsOption {
	var out []views.PairsOption
	for _, a := range d.Annotators() {
		label := a.Name
		if a.Name != a.Key {
			label += " (" + a.Key + ")"
		}
		out = append(out, views.PairsOption{Value: a.Key, Label: label + " · " + a.Kind, Selected: a.Key == selected})
	}
	for _, a := range d.ModelAnnotators() {
		out = append(out, views.PairsOption{Value: a.Key, Label: a.Key, Selected: a.Key == selected})
	}
	return out
}

func splitOptions(keys []string, selected string) []views.PairsOption {
	out := []views.PairsOption{{Value: "", Label: "(no split)", Selected: selected == ""}}
	for _, k := range keys {
		out = append(out, views.PairsOption{Value: k, Label: k, Selected: k == selected})
	}
	return out
}

// maxValueOptions is the most split values the explorer's form offers in a
// select; a key with more (an index, free text) takes them typed.
const maxValueOptions = 200

// maxValueTags is the most split values listed under the form.
const maxValueTags = 40

func explorerForm(r *pairsReq, t explorerTable, datasets []data.DatasetSummary) views.PairsExplorerForm {
	f := views.PairsExplorerForm{Action: views.Path("pairs", r.ds.ID), CI: t.view.ci, ModelsMode: t.q.Models,
		Modes: []views.PairsOption{
			{Value: "", Label: "Feedback analysis: annotators against a reference", Selected: !t.q.Models},
			{Value: "models", Label: "Model analysis: traits against each model", Selected: t.q.Models},
		},
		Refs:   annotatorOptions(r.d, t.ref.Key),
		Splits: splitOptions(r.ds.MetadataKeys, t.split),
		Split:  t.split,
		Models: r.d.Models,
	}
	for _, d := range datasets {
		if d.ID != r.ds.ID {
			f.Datasets = append(f.Datasets, views.PairsOption{Value: d.ID, Label: d.ID, Selected: slices.Contains(t.with, d.ID)})
		}
	}
	for _, m := range r.d.Models {
		f.ModelOptions = append(f.ModelOptions, views.PairsOption{Value: m, Label: m, Selected: slices.Contains(r.refModels, m)})
	}
	for i := range f.Refs {
		f.Refs[i].Selected = slices.ContainsFunc(t.refs, func(a explorer.Annotator) bool { return a.Key == f.Refs[i].Value })
	}
	for _, m := range pairsMetrics {
		f.Metrics = append(f.Metrics, views.PairsOption{Value: m.key, Label: m.label, Selected: m.key == t.view.metric.key})
	}
	explicit := len(t.q.Values) > 0
	mv := t.mv
	if len(mv.Values) <= maxValueOptions {
		for _, v := range mv.Values {
			// Only values the URL chose are selected: the defaults (the
			// largest) are marked in the list below, and a browser without
			// script would otherwise send them with another split.
			f.ValueOptions = append(f.ValueOptions, views.PairsOption{Value: v.Value, Label: fmt.Sprintf("%s (%d)", v.Value, v.Count),
				Selected: explicit && slices.Contains(t.values, v.Value)})
		}
	} else if explicit {
		f.Values = strings.Join(t.values, ",")
	}
	// The values with their counts, chosen ones marked; a key with
	// thousands of values lists the largest.
	for _, v := range mv.Values[:min(len(mv.Values), maxValueTags)] {
		f.SplitValues = append(f.SplitValues, views.PairsSplitValue{Value: v.Value, Count: v.Count, Chosen: slices.Contains(t.values, v.Value)})
	}
	f.MoreValues = len(mv.Values) - len(f.SplitValues)
	return f
}

// The vote filters of the comparison viewer, in explorer.Filters' order.
var pairsFilters = []views.PairsOption{
	{Value: string(explorer.FilterAll), Label: "all comparisons"},
	{Value: string(explorer.FilterAgree), Label: "annotator agrees with the reference"},
	{Value: string(explorer.FilterDisagree), Label: "annotator disagrees with the reference"},
	{Value: string(explorer.FilterOne), Label: "only one of the two votes is text_a/text_b"},
	{Value: string(explorer.FilterNeither), Label: "neither vote is text_a/text_b"},
}

// paginate caps page to the pages total items fill (at least one page)
// and returns the range [from, to) of its items.
func paginate(total, size, page int) (capped, pages, from, to int) {
	pages = max(1, (total+size-1)/size)
	capped = min(max(page, 1), pages)
	from = (capped - 1) * size
	return capped, pages, from, min(from+size, total)
}

// listSelection is what the list query selects: the reference's and the
// annotator's votes and the comparisons shown, in order.
type listSelection struct {
	ref, ann           explorer.Annotator
	refVotes, annVotes []analysis.Vote // annVotes nil without ann
	sel                []int32
}

func (s *Server) selectComparisons(ctx context.Context, r *pairsReq, q listQuery) (listSelection, error) {
	ls := listSelection{ref: r.lookup(q.Ref)}
	ls.refVotes = r.votesOf(ls.ref)
	if q.Ann != "" {
		ls.ann = r.lookup(q.Ann)
		ls.annVotes = r.votesOf(ls.ann)
	}
	sel := explorer.Selection{Value: -1, Filter: q.Filter, Ref: ls.refVotes, Ann: ls.annVotes}
	if q.Split != "" {
		mv, err := r.entry.metaValues(ctx, s.store, q.Split)
		if err != nil {
			return ls, err
		}
		sel.Of = mv.Of
		sel.Value = int32(slices.IndexFunc(mv.Values, func(v data.MetaValue) bool { return v.Value == q.Value }))
	}
	for _, m := range q.Models {
		i, _ := r.d.ModelIndex(m)
		sel.Models = append(sel.Models, i)
	}
	var candidates []int32
	if q.Text != "" {
		var err error
		if candidates, err = s.store.PairsSearch(ctx, r.ds.ID, q.Text); err != nil {
			return ls, err
		}
	} else {
		candidates = make([]int32, r.d.N)
		for i := range candidates {
			candidates[i] = int32(i)
		}
	}
	ls.sel = r.d.Select(candidates, sel)
	return ls, nil
}

func (s *Server) listPairComparisons(c echo.Context) error {
	ctx := c.Request().Context()
	r, err := s.pairsRequest(c)
	if err != nil {
		return err
	}
	q, err := parseListQuery(c.QueryParams(), s.vocab(ctx, r))
	if err != nil {
		return err
	}
	r.useRefModels(q.RefModels)
	ls, err := s.selectComparisons(ctx, r, q)
	if err != nil {
		return err
	}
	if past, err := pastLastPage(c, string(views.Path("pairs", r.ds.ID, "comparisons")), q.values(), q.Page, len(ls.sel), pairsPageSize); past {
		return err
	}
	page, pages, from, to := paginate(len(ls.sel), pairsPageSize, q.Page)
	comps, err := s.store.PairsComparisons(ctx, r.ds.ID, ls.sel[from:to])
	if err != nil {
		return err
	}
	state := q.values()
	state.Del("page")
	pageURL := func(n int) templ.SafeURL {
		q := cloneValues(state)
		if n > 1 {
			q.Set("page", strconv.Itoa(n))
		}
		return views.PathQuery(q, "pairs", r.ds.ID, "comparisons")
	}
	hasAnn := q.Ann != ""
	l := views.PairsComparisonList{Dataset: r.datasetView(), Total: len(ls.sel), Page: page, Pages: pages,
		RefName: ls.ref.Name, AnnName: ls.ann.Name, Describe: describeSelection(ls.ann, ls.ref, q)}
	if page > 1 {
		l.PrevURL = pageURL(page - 1)
	}
	if page < pages {
		l.NextURL = pageURL(page + 1)
	}
	l.Form = views.PairsListForm{Action: views.Path("pairs", r.ds.ID, "comparisons"),
		Anns:      append([]views.PairsOption{{Value: "", Label: "(none)", Selected: !hasAnn}}, annotatorOptions(r.d, q.Ann)...),
		Refs:      annotatorOptions(r.d, ls.ref.Key),
		Splits:    splitOptions(r.ds.MetadataKeys, q.Split),
		Value:     q.Value,
		Models:    strings.Join(q.Models, ","),
		Q:         q.Text,
		RefModels: strings.Join(r.refModels, ","),
	}
	for _, o := range pairsFilters {
		o.Selected = o.Value == string(q.Filter)
		l.Form.Filters = append(l.Form.Filters, o)
	}
	for _, cmp := range comps {
		it := views.PairsListItem{ID: cmp.ID, Prompt: cmp.Prompt, HasPrompt: cmp.HasPrompt,
			URL:   views.PathQuery(r.base(), "pairs", r.ds.ID, "comparisons", cmp.ID),
			TextA: cmp.TextA, TextB: cmp.TextB, ModelA: cmp.ModelA, ModelB: cmp.ModelB,
			RefVote: voteText(ls.refVotes[cmp.Idx], ls.ref)}
		if hasAnn {
			it.AnnVote = voteText(ls.annVotes[cmp.Idx], ls.ann)
		}
		l.Items = append(l.Items, it)
	}
	return render(c, http.StatusOK, views.PairsComparisonListPage(l))
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

// describeSelection says in words what the viewer's filters select.
func describeSelection(ann, ref explorer.Annotator, q listQuery) string {
	var parts []string
	switch len(q.Models) {
	case 1:
		parts = append(parts, "with a response by "+q.Models[0])
	case 2:
		parts = append(parts, "between "+q.Models[0]+" and "+q.Models[1])
	}
	switch q.Filter {
	case explorer.FilterAgree:
		parts = append(parts, "where "+ann.Name+" agrees with "+ref.Name)
	case explorer.FilterDisagree:
		parts = append(parts, "where "+ann.Name+" disagrees with "+ref.Name)
	case explorer.FilterOne:
		parts = append(parts, "where only one of "+ann.Name+" and "+ref.Name+" votes text_a or text_b")
	case explorer.FilterNeither:
		parts = append(parts, "where neither "+ann.Name+" nor "+ref.Name+" votes text_a or text_b")
	}
	if q.Split != "" {
		parts = append(parts, "with "+q.Split+" = "+q.Value)
	}
	if q.Text != "" {
		parts = append(parts, "containing “"+q.Text+"”")
	}
	return strings.Join(parts, ", ")
}

func (s *Server) showPairComparison(c echo.Context) error {
	ctx := c.Request().Context()
	q := parseComparisonQuery(url.Values{"dataset": {c.Param("dataset")}, "id": {c.Param("id")}})
	ds, err := s.store.PairsDataset(ctx, q.Dataset)
	if err != nil {
		return err
	}
	cmp, err := s.store.PairsComparisonByID(ctx, ds.ID, q.ID)
	if err != nil {
		return err
	}
	r := &pairsReq{ds: ds}
	d := views.PairsComparisonDetail{Dataset: r.datasetView(), ID: cmp.ID, Prompt: cmp.Prompt, HasPrompt: cmp.HasPrompt,
		A:       views.PairsResponse{Label: "Response A (text_a)", Model: cmp.ModelA, Text: cmp.TextA, Length: cmp.LenA, Attrs: kvs(cmp.AttrsA)},
		B:       views.PairsResponse{Label: "Response B (text_b)", Model: cmp.ModelB, Text: cmp.TextB, Length: cmp.LenB, Attrs: kvs(cmp.AttrsB)},
		ListURL: views.Path("pairs", ds.ID, "comparisons"), Metadata: kvs(cmp.Metadata)}
	for _, v := range cmp.Votes {
		vote := v.Pref
		if v.Null {
			vote = "no preference"
		}
		d.Votes = append(d.Votes, views.PairsVoteRow{Annotator: v.Annotator.Name, AnnotatorID: v.Annotator.ID, Type: v.Annotator.Type,
			Vote: vote, Reason: v.Reason, URL: views.PathQuery(url.Values{"ann": {v.Annotator.ID}}, "pairs", ds.ID, "comparisons")})
	}
	return render(c, http.StatusOK, views.PairsComparisonPage(d))
}

func kvs(in []data.KeyValue) []views.PairsKV {
	out := make([]views.PairsKV, len(in))
	for i, kv := range in {
		out[i] = views.PairsKV{Key: kv.Key, Value: kv.Value}
	}
	return out
}

// lengthOverview is the overview of a reference's votes. A dataset without
// texts has no lengths: they are undefined (shown as –), never 0.
func (r *pairsReq) lengthOverview(votes []analysis.Vote) explorer.Overview {
	o := explorer.LengthOverview(votes, r.d.LenA, r.d.LenB)
	if !r.ds.Texts {
		nan := math.NaN()
		o.AvgLenA, o.AvgLenB, o.AvgLenPreferred, o.AvgLenRejected, o.PropLonger = nan, nan, nan, nan, nan
	}
	return o
}
