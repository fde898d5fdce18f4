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
	"github.com/auditscope/auditscope/analysis"
	"github.com/auditscope/auditscope/data"
	"github.com/auditscope/auditscope/views"
	"github.com/labstack/echo/v4"
)

// The explorer's fixed settings.
const (
	pairsPageSize      = 50       // comparisons per page of the viewer
	pairsResamples     = 1000     // bootstrap resamples for the strength interval
	pairsSeed          = 1        // bootstrap seed, so intervals are reproducible
	pairsConfidence    = 0.95     // every interval's level
	pairsDefaultValues = 4        // split values shown when none are chosen
	pairsMaxQuery      = 500      // longest search text accepted
	modelPrefix        = "model:" // key prefix of a model-identity annotator
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

// value returns the metric of st with its interval (NaN when there is none).
func (m pairsMetric) value(st annStats) (v, lo, hi float64) {
	nan := math.NaN()
	if st.absent != "" {
		return nan, nan, nan
	}
	g := st.g
	switch m.key {
	case "strength":
		return g.Strength, st.strength.Lo, st.strength.Hi
	case "relevance":
		return g.Relevance, st.relevance.Lo, st.relevance.Hi
	case "accuracy":
		return g.Accuracy, st.accuracy.Lo, st.accuracy.Hi
	case "agreement":
		return g.Agreement, nan, nan
	case "kappa":
		return g.Kappa, nan, nan
	case "kappa_unadjusted":
		return st.kappaU, nan, nan
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

// pairsAnn is an annotator the explorer can compare: one of the dataset's,
// or a model-identity annotator "model:M" that prefers model M's response.
type pairsAnn struct {
	key, name, kind, description string
	idx                          int   // vote row of a dataset annotator; -1 for a model annotator
	model                        int32 // the model of a model annotator
}

func (a pairsAnn) isModel() bool { return a.idx < 0 }

func (d *pairsData) datasetAnn(i int) pairsAnn {
	a := d.annotators[i]
	return pairsAnn{key: a.ID, name: a.Name, kind: a.Type, description: a.Description, idx: a.Idx}
}

func (d *pairsData) modelAnn(m int32) pairsAnn {
	name := d.models[m]
	return pairsAnn{key: modelPrefix + name, name: name, kind: "model", idx: -1, model: m,
		description: "Prefers the response written by " + name + " when the other response is from another (reference) model"}
}

// lookup finds an annotator by key; dataset annotators win over model
// annotators of the same spelling.
func (d *pairsData) lookup(key string) (pairsAnn, bool) {
	if i, ok := d.byID[key]; ok {
		return d.datasetAnn(i), true
	}
	if name, ok := strings.CutPrefix(key, modelPrefix); ok {
		if m, ok := d.modelIndex[name]; ok {
			return d.modelAnn(m), true
		}
	}
	return pairsAnn{}, false
}

// defaultRef is the dataset's default annotator, else its first human or
// unknown-typed annotator, else its first annotator, else the first model
// annotator. ok is false when the dataset has none of these.
func (d *pairsData) defaultRef(ds data.PairsDataset) (pairsAnn, bool) {
	if ds.DefaultAnnotator != "" {
		if i, ok := d.byID[ds.DefaultAnnotator]; ok {
			return d.datasetAnn(i), true
		}
	}
	for i, a := range d.annotators {
		if a.Type == "human" || a.Type == "unknown" {
			return d.datasetAnn(i), true
		}
	}
	if len(d.annotators) > 0 {
		return d.datasetAnn(0), true
	}
	if len(d.models) > 0 {
		return d.modelAnn(0), true
	}
	return pairsAnn{}, false
}

// votesOf returns an annotator's votes. A model annotator for model M votes
// text_a when response A is M's and response B is another model's (one of
// refs, when refs is not nil), text_b in the mirror case, and nothing
// otherwise: when a model is missing, or both responses are M's.
func (d *pairsData) votesOf(a pairsAnn, refs []bool) []analysis.Vote {
	if !a.isModel() {
		return d.votes[a.idx]
	}
	out := make([]analysis.Vote, d.n)
	m := a.model
	for i := range out {
		ma, mb := d.modelA[i], d.modelB[i]
		if ma < 0 || mb < 0 || ma == mb {
			continue
		}
		switch {
		case ma == m && (refs == nil || refs[mb]):
			out[i] = analysis.VoteA
		case mb == m && (refs == nil || refs[ma]):
			out[i] = analysis.VoteB
		}
	}
	return out
}

// pairsReq is what every AnnotatedPairs handler starts from: the dataset,
// its cached votes, and the parameters all of them share.
type pairsReq struct {
	ds        data.PairsDataset
	d         *pairsData
	entry     *pairsEntry
	q         url.Values
	refModels []string // chosen reference models; nil means all
	refMask   []bool   // refMask[m]: model m is a reference model; nil means all
}

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
	r := &pairsReq{ds: ds, d: d, entry: entry, q: c.QueryParams()}
	if raw := r.q["refmodels"]; len(raw) > 0 {
		r.refModels = parseList(raw, func(v string) bool { _, ok := d.modelIndex[v]; return ok })
		if len(r.refModels) > 0 {
			r.refMask = make([]bool, len(d.models))
			for _, m := range r.refModels {
				i, ok := d.modelIndex[m]
				if !ok {
					return nil, badRequestf("refmodels: %q is not a response model of this dataset", m)
				}
				r.refMask[i] = true
			}
		}
	}
	return r, nil
}

// ref resolves the first reference of the ref parameter (the default
// reference when empty).
func (r *pairsReq) ref() (pairsAnn, error) {
	refs, err := r.refs()
	if err != nil {
		return pairsAnn{}, err
	}
	return refs[0], nil
}

// refs resolves the ref parameter, which may repeat or be comma-separated,
// to one or more references (the default reference when empty).
func (r *pairsReq) refs() ([]pairsAnn, error) {
	keys := parseList(r.q["ref"], func(v string) bool { _, ok := r.d.lookup(v); return ok })
	if len(keys) == 0 {
		if a, ok := r.d.defaultRef(r.ds); ok {
			return []pairsAnn{a}, nil
		}
		return nil, badRequestf("dataset %s has no annotators and no response models to use as the reference", r.ds.ID)
	}
	out := make([]pairsAnn, 0, len(keys))
	for _, key := range keys {
		a, ok := r.d.lookup(key)
		if !ok {
			return nil, badRequestf("ref: %q is neither an annotator of this dataset nor model:M for one of its response models", key)
		}
		out = append(out, a)
	}
	return out, nil
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
	o := &pairsReq{ds: ds, d: d, entry: entry, q: url.Values{}}
	if len(r.refModels) > 0 {
		o.refMask = make([]bool, len(d.models))
		for _, m := range r.refModels {
			if i, ok := d.modelIndex[m]; ok {
				o.refModels = append(o.refModels, m)
				o.refMask[i] = true
			}
		}
	}
	return o, nil
}

// splitValues validates a metadata key and loads its values.
func (r *pairsReq) splitValues(ctx context.Context, store *data.Store, key string) (data.MetaValues, error) {
	if !slices.Contains(r.ds.MetadataKeys, key) {
		return data.MetaValues{}, badRequestf("split: %q is not a metadata key of this dataset (keys: %s)", key, strings.Join(r.ds.MetadataKeys, ", "))
	}
	return r.entry.metaValues(ctx, store, key)
}

// base returns the query every link of the dataset's pages carries.
func (r *pairsReq) base() url.Values {
	q := url.Values{}
	setList(q, "refmodels", r.refModels)
	return q
}

// datasetView is the header every page shows.
func (r *pairsReq) datasetView() views.PairsDataset {
	return views.PairsDataset{ID: r.ds.ID, Name: r.ds.Name, Description: r.ds.Description, Synthetic: r.ds.Synthetic,
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

// annStats is one annotator's agreement with a reference.
type annStats struct {
	absent string // why the cell is empty: the row is not in the column's dataset, or is its reference
	g      analysis.Agreement
	kappaU float64 // Cohen's kappa (scikit-learn), NaN unless asked for
	// Intervals, NaN unless asked for.
	strength, relevance, accuracy analysis.Estimate
}

// statsNeeds says which of the costlier numbers to compute.
type statsNeeds struct {
	kappaU     bool // unadjusted kappa
	strengthCI bool // paired bootstrap of strength
	wilson     bool // Wilson intervals of relevance and accuracy
}

// agreementStats compares every row annotator with the reference on the
// comparisons in keep, which must be the positions where ref is text_a or
// text_b (those where it is not are dropped by every metric anyway). The
// strength bootstrap, the costly part, is cached in e under bootKey when e
// is not nil; bootKey must name everything that determines ref, keep and
// rows.
func (e *pairsEntry) agreementStats(ref []analysis.Vote, keep []int32, rows [][]analysis.Vote, need statsNeeds, bootKey string) ([]annStats, error) {
	refK := gather(ref, keep)
	rowsK := make([][]analysis.Vote, len(rows))
	out := make([]annStats, len(rows))
	nan := analysis.Estimate{Value: math.NaN(), Lo: math.NaN(), Hi: math.NaN()}
	for i, row := range rows {
		rowsK[i] = gather(row, keep)
		st := annStats{g: analysis.AgreementCodes(refK, rowsK[i]), kappaU: math.NaN(), strength: nan, relevance: nan, accuracy: nan}
		if need.kappaU {
			st.kappaU = kappaUnadjusted(refK, rowsK[i])
		}
		if need.wilson && st.g.Kept > 0 {
			valid := st.g.Agree + st.g.Disagree
			if e, err := analysis.Wilson(float64(valid), st.g.Kept, pairsConfidence); err == nil {
				st.relevance = e
			}
			if valid > 0 {
				if e, err := analysis.Wilson(float64(st.g.Agree), valid, pairsConfidence); err == nil {
					st.accuracy = e
				}
			}
		}
		out[i] = st
	}
	if need.strengthCI && len(rows) > 0 {
		est, err := e.bootstrap(bootKey, func() ([]analysis.Estimate, error) {
			return analysis.StrengthBootstrap(refK, rowsK, pairsResamples, pairsConfidence, pairsSeed)
		})
		if err != nil {
			return nil, err
		}
		for i := range out {
			out[i].strength = est[i]
		}
	}
	return out, nil
}

func gather(v []analysis.Vote, idx []int32) []analysis.Vote {
	out := make([]analysis.Vote, len(idx))
	for k, i := range idx {
		out[k] = v[i]
	}
	return out
}

// decisive returns the positions where v is text_a or text_b and in (nil:
// every position) accepts.
func decisive(v []analysis.Vote, in func(i int) bool) []int32 {
	var out []int32
	for i, x := range v {
		if (x == analysis.VoteA || x == analysis.VoteB) && (in == nil || in(i)) {
			out = append(out, int32(i))
		}
	}
	return out
}

// kappaUnadjusted is scikit-learn's cohen_kappa_score(ann, ref,
// labels=[text_a, text_b]): pairs in which either vote is not text_a or
// text_b are dropped, and on the rest kappa = 1 - observed/expected
// disagreement; NaN when no pair is left or chance disagreement is 0. It
// repeats analysis.CohenKappa's arithmetic, in the same order, on the 2×2
// confusion counts, so no vote has to become a string (the tests check the
// two agree exactly).
func kappaUnadjusted(ref, ann []analysis.Vote) float64 {
	var conf [2][2]float64 // [ann's label][ref's label], text_a = 0
	used := 0
	for i, r := range ref {
		x := ann[i]
		if (r != analysis.VoteA && r != analysis.VoteB) || (x != analysis.VoteA && x != analysis.VoteB) {
			continue
		}
		conf[x-analysis.VoteA][r-analysis.VoteA]++
		used++
	}
	if used == 0 {
		return math.NaN()
	}
	n := float64(used)
	annSum := [2]float64{conf[0][0] + conf[0][1], conf[1][0] + conf[1][1]}
	refSum := [2]float64{conf[0][0] + conf[1][0], conf[0][1] + conf[1][1]}
	var observed, expected float64
	observed += conf[0][1]
	expected += refSum[0] * annSum[1] / n
	observed += conf[1][0]
	expected += refSum[1] * annSum[0] / n
	if expected == 0 {
		return math.NaN()
	}
	return 1 - observed/expected
}

// pairsOverview holds the overall statistics of comparisons whose reference
// vote is text_a or text_b, as Feedback Forensics computes them.
type pairsOverview struct {
	pairs                                                      int
	propA, avgLenA, avgLenB, avgLenPref, avgLenRej, propLonger float64
}

// overview computes the overall statistics. The longer response is text_a
// when len_a > len_b and text_b otherwise, so equal lengths count as text_b.
// Ratios are NaN when no comparison is kept.
func (d *pairsData) overview(ref []analysis.Vote) pairsOverview {
	var o pairsOverview
	var nA, longer int
	var sumA, sumB, sumPref, sumRej float64
	for i, r := range ref {
		if r != analysis.VoteA && r != analysis.VoteB {
			continue
		}
		o.pairs++
		la, lb := float64(d.lenA[i]), float64(d.lenB[i])
		sumA += la
		sumB += lb
		longerVote := analysis.VoteB
		if la > lb {
			longerVote = analysis.VoteA
		}
		if r == longerVote {
			longer++
		}
		if r == analysis.VoteA {
			nA++
			sumPref += la
			sumRej += lb
		} else {
			sumPref += lb
			sumRej += la
		}
	}
	if o.pairs == 0 {
		nan := math.NaN()
		o.propA, o.avgLenA, o.avgLenB, o.avgLenPref, o.avgLenRej, o.propLonger = nan, nan, nan, nan, nan, nan
		return o
	}
	n := float64(o.pairs)
	o.propA = float64(nA) / n
	o.avgLenA, o.avgLenB = sumA/n, sumB/n
	o.avgLenPref, o.avgLenRej = sumPref/n, sumRej/n
	o.propLonger = float64(longer) / n
	return o
}

// feedbackRows lists the annotators compared with ref: every dataset
// annotator but ref, then a model annotator per response model but ref.
func (d *pairsData) feedbackRows(ref pairsAnn) []pairsAnn {
	var out []pairsAnn
	for i := range d.annotators {
		if a := d.datasetAnn(i); a.key != ref.key {
			out = append(out, a)
		}
	}
	for m := range d.models {
		if a := d.modelAnn(int32(m)); a.key != ref.key {
			out = append(out, a)
		}
	}
	return out
}

// traitRows lists the principle annotators (traits), or every dataset
// annotator when none is typed principle.
func (d *pairsData) traitRows() []pairsAnn {
	var out []pairsAnn
	for i, a := range d.annotators {
		if a.Type == "principle" {
			out = append(out, d.datasetAnn(i))
		}
	}
	if len(out) == 0 {
		for i := range d.annotators {
			out = append(out, d.datasetAnn(i))
		}
	}
	return out
}

// pairsColumn is one column of the explorer table: a reference and the
// kept comparisons it is compared on.
type pairsColumn struct {
	key, label, note string
	ref              pairsAnn
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

// explorerParams are the explorer's validated query parameters.
type explorerParams struct {
	models   bool
	ref      pairsAnn   // the first reference: overall statistics, annotators.csv
	refs     []pairsAnn // every reference; several make a column each
	with     []string   // other datasets shown side by side
	split    string
	values   []string // chosen split values
	explicit bool     // values were given in the URL
	metric   pairsMetric
	sort     string
	desc     bool
	ci       bool
}

// state is the canonical query of the view, without sorting.
func (p explorerParams) state(r *pairsReq) url.Values {
	q := r.base()
	if p.models {
		q.Set("mode", "models")
	} else {
		keys := make([]string, len(p.refs))
		for i, a := range p.refs {
			keys[i] = a.key
		}
		if len(keys) == 0 {
			keys = []string{p.ref.key}
		}
		setList(q, "ref", keys)
		setList(q, "with", p.with)
		if p.split != "" {
			q.Set("split", p.split)
			if p.explicit {
				setList(q, "values", p.values)
			}
		}
	}
	if p.metric.key != "strength" {
		q.Set("metric", p.metric.key)
	}
	if p.ci {
		q.Set("ci", "1")
	}
	return q
}

// bootKey names a column's comparisons and rows for the bootstrap cache.
func (p explorerParams) bootKey(r *pairsReq, col pairsColumn) string {
	rows := "annotators"
	if p.models {
		rows = "traits"
	}
	return strings.Join([]string{rows, col.ref.key, strings.Join(r.refModels, "\x1f"), col.split, col.value}, "\x1e")
}

// explorerParams validates the explorer's query, all but sorting.
func (r *pairsReq) explorerParams() (explorerParams, error) {
	var p explorerParams
	switch mode := r.q.Get("mode"); mode {
	case "", "feedback":
	case "models":
		p.models = true
	default:
		return p, badRequestf("mode: %q is not one of feedback, models", mode)
	}
	var err error
	if p.refs, err = r.refs(); err != nil && !p.models {
		return p, err
	}
	if len(p.refs) > 0 {
		p.ref = p.refs[0]
	}
	metric := r.q.Get("metric")
	if metric == "" {
		metric = "strength"
	}
	var ok bool
	if p.metric, ok = lookupMetric(metric); !ok {
		keys := make([]string, len(pairsMetrics))
		for i, m := range pairsMetrics {
			keys[i] = m.key
		}
		return p, badRequestf("metric: %q is not one of %s", metric, strings.Join(keys, ", "))
	}
	switch ci := r.q.Get("ci"); ci {
	case "", "0":
	case "1":
		p.ci = true
	default:
		return p, badRequestf("ci: %q is not 0 or 1", ci)
	}
	if !p.models {
		p.split = r.q.Get("split")
		if p.split == "" && len(r.q["values"]) > 0 {
			return p, badRequestf("values: choose a split key first")
		}
		p.with = parseList(r.q["with"], func(string) bool { return false })
		if p.split != "" && (len(p.refs) > 1 || len(p.with) > 0) {
			return p, badRequestf("split: choose one of split, several references, or other datasets")
		}
	}
	return p, nil
}

// sortParams validates sort and dir against the table's columns. The
// default is the first column, descending.
func (p *explorerParams) sortParams(q url.Values, columns []pairsColumn) error {
	p.sort = q.Get("sort")
	if p.sort == "" {
		p.sort = "name"
		if len(columns) > 0 {
			p.sort = columns[0].key
		}
	} else if p.sort != "name" && p.sort != "spread" && !slices.ContainsFunc(columns, func(c pairsColumn) bool { return c.key == p.sort }) {
		return badRequestf("sort: %q is not name, spread or a column of this table", p.sort)
	}
	switch dir := q.Get("dir"); dir {
	case "":
		p.desc = p.sort != "name"
	case "asc":
		p.desc = false
	case "desc":
		p.desc = true
	default:
		return badRequestf("dir: %q is not asc or desc", dir)
	}
	return nil
}

// explorerLayout returns the table's columns and rows, and notes on the
// data. In feedback mode the rows are the annotators and the columns the
// split values (or one column of all comparisons); in model mode the rows
// are the traits and the columns the model annotators as references.
func (s *Server) explorerLayout(ctx context.Context, r *pairsReq, p *explorerParams) ([]pairsColumn, []pairsAnn, data.MetaValues, []string, error) {
	var columns []pairsColumn
	var notes []string
	var mv data.MetaValues
	if p.models {
		for m := range r.d.models {
			ref := r.d.modelAnn(int32(m))
			votes := r.d.votesOf(ref, r.refMask)
			keep := decisive(votes, nil)
			columns = append(columns, pairsColumn{key: ref.key, label: ref.name, note: fmt.Sprintf("%d pairs", len(keep)),
				ref: ref, refVotes: votes, keep: keep})
		}
		if len(r.d.models) == 0 {
			notes = append(notes, "No response names its model, so there are no model annotators to compare with.")
		}
		// A link or form from the feedback view may carry its fields; say
		// they change nothing here rather than fail. (The form always sends
		// a reference, so that one goes unmentioned.)
		if r.q.Get("with") != "" || r.q.Get("split") != "" {
			notes = append(notes, "Model analysis compares every trait with each model of this dataset; other datasets (with) and splits (split) apply to the feedback view.")
		}
		return columns, r.d.traitRows(), mv, notes, nil
	}

	refVotes := r.d.votesOf(p.ref, r.refMask)
	if len(decisive(refVotes, nil)) == 0 {
		notes = append(notes, p.ref.name+" has no text_a or text_b vote, so every metric is undefined.")
	}
	if p.split == "" && len(p.refs) <= 1 && len(p.with) == 0 {
		keep := decisive(refVotes, nil)
		columns = append(columns, pairsColumn{key: "all", label: "All", note: fmt.Sprintf("%d pairs", len(keep)),
			ref: p.ref, refVotes: refVotes, keep: keep})
		return columns, r.d.feedbackRows(p.ref), mv, notes, nil
	}
	if p.split == "" {
		columns, rows, err := s.multiLayout(ctx, r, p, refVotes)
		return columns, rows, mv, notes, err
	}
	mv, err := r.splitValues(ctx, s.store, p.split)
	if err != nil {
		return nil, nil, mv, nil, err
	}
	index := make(map[string]int32, len(mv.Values))
	for i, v := range mv.Values {
		index[v.Value] = int32(i)
	}
	if raw := r.q["values"]; len(raw) > 0 {
		p.values = parseList(raw, func(v string) bool { _, ok := index[v]; return ok })
		p.explicit = len(p.values) > 0
		for _, v := range p.values {
			if _, ok := index[v]; !ok {
				return nil, nil, mv, nil, badRequestf("values: %q is not a value of %s in this dataset", v, p.split)
			}
		}
	}
	if len(p.values) == 0 {
		for _, v := range mv.Values[:min(pairsDefaultValues, len(mv.Values))] {
			p.values = append(p.values, v.Value)
		}
	}
	for _, v := range p.values {
		vi := index[v]
		keep := decisive(refVotes, func(i int) bool { return mv.Of[i] == vi })
		columns = append(columns, pairsColumn{key: "v:" + v, label: v, note: fmt.Sprintf("%d pairs", len(keep)),
			ref: p.ref, refVotes: refVotes, keep: keep, split: p.split, value: v})
	}
	if len(mv.Values) == 0 {
		notes = append(notes, fmt.Sprintf("No comparison has a value for %s.", p.split))
	} else if missing := countOf(mv.Of, -1); missing > 0 {
		notes = append(notes, fmt.Sprintf("%d comparisons have no value for %s.", missing, p.split))
	}
	return columns, r.d.feedbackRows(p.ref), mv, notes, nil
}

// multiLayout is the feedback table with a column per reference (when
// there are several) and a column per other dataset. With several
// references the rows are every annotator, a row's cell empty in the column
// of its own reference; other datasets add their annotators after the
// request's own, matched by id.
func (s *Server) multiLayout(ctx context.Context, r *pairsReq, p *explorerParams, refVotes []analysis.Vote) ([]pairsColumn, []pairsAnn, error) {
	var columns []pairsColumn
	var rows []pairsAnn
	if len(p.refs) > 1 {
		rows = r.d.feedbackRows(pairsAnn{idx: -1, model: -1})
		for _, ref := range p.refs {
			votes := r.d.votesOf(ref, r.refMask)
			keep := decisive(votes, nil)
			columns = append(columns, pairsColumn{key: "ref:" + ref.key, label: ref.name, note: fmt.Sprintf("%d pairs", len(keep)),
				ref: ref, refVotes: votes, keep: keep})
		}
	} else {
		rows = r.d.feedbackRows(p.ref)
		keep := decisive(refVotes, nil)
		columns = append(columns, pairsColumn{key: "all", label: r.ds.ID, note: fmt.Sprintf("%d pairs · %s", len(keep), p.ref.name),
			ref: p.ref, refVotes: refVotes, keep: keep})
	}
	seen := make(map[string]bool, len(rows))
	for _, a := range rows {
		seen[a.key] = true
	}
	for _, id := range p.with {
		o, err := s.otherRequest(ctx, r, id)
		if err != nil {
			return nil, nil, err
		}
		ref, ok := o.d.lookup(p.ref.key)
		if !ok {
			if ref, ok = o.d.defaultRef(o.ds); !ok {
				return nil, nil, badRequestf("with: dataset %s has no annotators and no response models to use as the reference", o.ds.ID)
			}
		}
		votes := o.d.votesOf(ref, o.refMask)
		keep := decisive(votes, nil)
		columns = append(columns, pairsColumn{key: "ds:" + o.ds.ID, label: o.ds.ID, note: fmt.Sprintf("%d pairs · %s", len(keep), ref.name),
			ref: ref, refVotes: votes, keep: keep, r: o})
		for _, a := range o.d.feedbackRows(ref) {
			if !seen[a.key] {
				seen[a.key] = true
				a.idx, a.model = -2, -2 // not of the request's dataset: looked up per column
				rows = append(rows, a)
			}
		}
	}
	return columns, rows, nil
}

// countOf counts the positions of of holding v.
func countOf(of []int32, v int32) int {
	n := 0
	for _, x := range of {
		if x == v {
			n++
		}
	}
	return n
}

// explorerTable is the explorer's table before display: the validated
// parameters, the columns and rows, and every row's statistics per column.
type explorerTable struct {
	p       explorerParams
	columns []pairsColumn
	rows    []pairsAnn
	mv      data.MetaValues
	notes   []string
	stats   [][]annStats // stats[column][row]
}

// explorerTable validates the explorer's query and computes its table; the
// explorer page and its figures share it. need says which costlier numbers
// to compute, given the parameters.
func (s *Server) explorerTable(ctx context.Context, r *pairsReq, need func(explorerParams) statsNeeds) (explorerTable, error) {
	var t explorerTable
	p, err := r.explorerParams()
	if err != nil {
		return t, err
	}
	columns, rows, mv, notes, err := s.explorerLayout(ctx, r, &p)
	if err != nil {
		return t, err
	}
	if err := p.sortParams(r.q, columns); err != nil {
		return t, err
	}
	needs := need(p)
	stats := make([][]annStats, len(columns))
	for j, col := range columns {
		if stats[j], err = columnStats(r, p, col, rows, needs); err != nil {
			return t, err
		}
	}
	return explorerTable{p: p, columns: columns, rows: rows, mv: mv, notes: notes, stats: stats}, nil
}

// columnStats compares every row with the column's reference on the
// column's dataset; a row absent there, or that is the reference itself,
// gets an empty cell.
func columnStats(r *pairsReq, p explorerParams, col pairsColumn, rows []pairsAnn, needs statsNeeds) ([]annStats, error) {
	cr := col.req(r)
	out := make([]annStats, len(rows))
	var present []int
	var votes [][]analysis.Vote
	for i, a := range rows {
		if a.idx == -2 || cr != r {
			var ok bool
			if a, ok = cr.d.lookup(a.key); !ok {
				out[i].absent = "not in dataset " + cr.ds.ID
				continue
			}
		}
		if a.key == col.ref.key {
			out[i].absent = a.name + " is this column's reference"
			continue
		}
		present = append(present, i)
		votes = append(votes, cr.d.votesOf(a, cr.refMask))
	}
	key := p.bootKey(cr, col)
	if len(present) != len(rows) || cr != r {
		h := fnv.New64a()
		for _, i := range present {
			h.Write([]byte(rows[i].key))
			h.Write([]byte{0})
		}
		key += fmt.Sprintf("\x1erows:%x", h.Sum64())
	}
	st, err := cr.entry.agreementStats(col.refVotes, col.keep, votes, needs, key)
	if err != nil {
		return nil, err
	}
	for k, i := range present {
		out[i] = st[k]
	}
	return out, nil
}

// pageNeeds are the numbers the explorer page shows: the unadjusted kappa
// when it is the metric, and the chosen metric's interval when asked for.
func pageNeeds(p explorerParams) statsNeeds {
	return statsNeeds{kappaU: p.metric.key == "kappa_unadjusted",
		strengthCI: p.ci && p.metric.key == "strength",
		wilson:     p.ci && (p.metric.key == "accuracy" || p.metric.key == "relevance")}
}

// query is the view's canonical query with its sorting, when the request
// chose one.
func (t explorerTable) query(r *pairsReq) url.Values {
	q := t.p.state(r)
	if r.q.Get("sort") != "" || r.q.Get("dir") != "" {
		q.Set("sort", t.p.sort)
		q.Set("dir", map[bool]string{true: "desc", false: "asc"}[t.p.desc])
	}
	return q
}

// viewRows are the table's rows as shown, in display order.
func (t explorerTable) viewRows(r *pairsReq) []views.PairsRow {
	out := make([]views.PairsRow, 0, len(t.rows))
	for i, a := range t.rows {
		out = append(out, explorerRow(r, t.p, a, t.columns, t.stats, i))
	}
	sortRows(out, t.columns, t.p)
	return out
}

func (s *Server) showPairs(c echo.Context) error {
	r, err := s.pairsRequest(c)
	if err != nil {
		return err
	}
	t, err := s.explorerTable(c.Request().Context(), r, pageNeeds)
	if err != nil {
		return err
	}
	p, columns, notes, mv := t.p, t.columns, t.notes, t.mv
	datasets, err := s.store.DatasetList(c.Request().Context())
	if err != nil {
		return err
	}

	e := views.PairsExplorer{Dataset: r.datasetView(), ModelsMode: p.models, RefName: p.ref.name, MetricLabel: p.metric.label,
		CI: p.ci, Notes: notes, Form: explorerForm(r, p, mv, datasets)}
	e.Rows = t.viewRows(r)
	state := p.state(r)
	sortLink := func(key, label, note string) views.PairsColumn {
		desc := key != "name"
		if key == p.sort {
			desc = !p.desc
		}
		q := cloneValues(state)
		q.Set("sort", key)
		q.Set("dir", map[bool]string{true: "desc", false: "asc"}[desc])
		return views.PairsColumn{Key: key, Label: label, Note: note, SortURL: views.PathQuery(q, "pairs", r.ds.ID),
			Sorted: key == p.sort, Desc: p.desc}
	}
	e.Corner = sortLink("name", "Annotator", "")
	if p.models {
		e.Corner.Label = "Trait"
	}
	for _, col := range columns {
		e.Columns = append(e.Columns, sortLink(col.key, col.label, col.note))
	}
	e.SpreadSort = sortLink("spread", "Spread", "")
	if !p.models {
		o := r.d.overview(r.d.votesOf(p.ref, r.refMask))
		e.Overview = views.PairsOverview{Pairs: o.pairs, PropA: o.propA, AvgLenA: o.avgLenA, AvgLenB: o.avgLenB,
			AvgLenPreferred: o.avgLenPref, AvgLenRejected: o.avgLenRej, PropLonger: o.propLonger}
	}
	csvQ := r.base()
	if !p.models {
		csvQ.Set("ref", p.ref.key)
	}
	tableQ := t.query(r)
	e.Downloads = []views.PairsLink{
		{Label: "table.csv", TestID: "table-csv", URL: views.PathQuery(tableQ, "pairs", r.ds.ID, "table.csv")},
		{Label: "annotators.csv", TestID: "annotators-csv", URL: views.PathQuery(csvQ, "pairs", r.ds.ID, "annotators.csv")},
		{Label: "overview.csv", TestID: "overview-csv", URL: views.PathQuery(csvQ, "pairs", r.ds.ID, "overview.csv")},
	}
	e.Figures = explorerFigures(r, t)
	modelsQ := r.base()
	if !p.models {
		modelsQ.Set("ref", p.ref.key)
	}
	e.ModelsURL = views.PathQuery(modelsQ, "pairs", r.ds.ID, "models")
	return render(c, http.StatusOK, views.PairsExplorerPage(e))
}

// explorerRow is row i of the table: the chosen metric per column, each
// cell linking to its comparisons, and the spread across columns.
func explorerRow(r *pairsReq, p explorerParams, a pairsAnn, columns []pairsColumn, stats [][]annStats, i int) views.PairsRow {
	row := views.PairsRow{Key: a.key, Name: a.name, Kind: a.kind, Description: a.description}
	lo, hi := math.Inf(1), math.Inf(-1)
	for j, col := range columns {
		v, clo, chi := p.metric.value(stats[j][i])
		if !p.ci {
			clo, chi = math.NaN(), math.NaN()
		}
		if why := stats[j][i].absent; why != "" {
			row.Cells = append(row.Cells, views.PairsCell{Value: v, Integer: p.metric.integer, Lo: clo, Hi: chi, Shade: math.NaN(), Title: why})
			continue
		}
		cr := col.req(r)
		q := cr.base()
		q.Set("ann", a.key)
		q.Set("ref", col.ref.key)
		if col.split != "" {
			q.Set("split", col.split)
			q.Set("value", col.value)
		}
		row.Cells = append(row.Cells, views.PairsCell{Value: v, Integer: p.metric.integer, Lo: clo, Hi: chi,
			Shade: p.metric.shade(v), URL: views.PathQuery(q, "pairs", cr.ds.ID, "comparisons"),
			Title: cellTitle(stats[j][i].g)})
		if !math.IsNaN(v) {
			lo, hi = min(lo, v), max(hi, v)
		}
	}
	row.Spread = math.NaN()
	if lo <= hi {
		row.Spread = hi - lo
	}
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
func sortRows(rows []views.PairsRow, columns []pairsColumn, p explorerParams) {
	if p.sort == "name" {
		slices.SortStableFunc(rows, func(a, b views.PairsRow) int {
			c := strings.Compare(strings.ToLower(a.Name), strings.ToLower(b.Name))
			if p.desc {
				c = -c
			}
			return c
		})
		return
	}
	col := slices.IndexFunc(columns, func(c pairsColumn) bool { return c.key == p.sort })
	key := func(r views.PairsRow) float64 {
		if col < 0 {
			return r.Spread
		}
		return r.Cells[col].Value
	}
	slices.SortStableFunc(rows, func(a, b views.PairsRow) int {
		x, y := key(a), key(b)
		switch {
		case math.IsNaN(x) && math.IsNaN(y):
			return 0
		case math.IsNaN(x):
			return 1
		case math.IsNaN(y):
			return -1
		}
		c := 0
		if x < y {
			c = -1
		} else if x > y {
			c = 1
		}
		if p.desc {
			c = -c
		}
		return c
	})
}

// annotatorOptions lists every dataset annotator and model annotator.
func annotatorOptions(d *pairsData, selected string) []views.PairsOption {
	var out []views.PairsOption
	for i := range d.annotators {
		a := d.datasetAnn(i)
		label := a.name
		if a.name != a.key {
			label += " (" + a.key + ")"
		}
		out = append(out, views.PairsOption{Value: a.key, Label: label + " · " + a.kind, Selected: a.key == selected})
	}
	for m := range d.models {
		a := d.modelAnn(int32(m))
		out = append(out, views.PairsOption{Value: a.key, Label: a.key, Selected: a.key == selected})
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

func explorerForm(r *pairsReq, p explorerParams, mv data.MetaValues, datasets []data.DatasetSummary) views.PairsExplorerForm {
	f := views.PairsExplorerForm{Action: views.Path("pairs", r.ds.ID), CI: p.ci, ModelsMode: p.models,
		Modes: []views.PairsOption{
			{Value: "", Label: "Feedback analysis: annotators against a reference", Selected: !p.models},
			{Value: "models", Label: "Model analysis: traits against each model", Selected: p.models},
		},
		Refs:   annotatorOptions(r.d, p.ref.key),
		Splits: splitOptions(r.ds.MetadataKeys, p.split),
		Split:  p.split,
		Models: r.d.models,
	}
	for _, d := range datasets {
		if d.ID != r.ds.ID {
			f.Datasets = append(f.Datasets, views.PairsOption{Value: d.ID, Label: d.ID, Selected: slices.Contains(p.with, d.ID)})
		}
	}
	for _, m := range r.d.models {
		f.ModelOptions = append(f.ModelOptions, views.PairsOption{Value: m, Label: m, Selected: slices.Contains(r.refModels, m)})
	}
	for i := range f.Refs {
		f.Refs[i].Selected = slices.ContainsFunc(p.refs, func(a pairsAnn) bool { return a.key == f.Refs[i].Value })
	}
	for _, m := range pairsMetrics {
		f.Metrics = append(f.Metrics, views.PairsOption{Value: m.key, Label: m.label, Selected: m.key == p.metric.key})
	}
	if len(mv.Values) <= maxValueOptions {
		for _, v := range mv.Values {
			// Only values the URL chose are selected: the defaults (the
			// largest) are marked in the list below, and a browser without
			// script would otherwise send them with another split.
			f.ValueOptions = append(f.ValueOptions, views.PairsOption{Value: v.Value, Label: fmt.Sprintf("%s (%d)", v.Value, v.Count),
				Selected: p.explicit && slices.Contains(p.values, v.Value)})
		}
	} else if p.explicit {
		f.Values = strings.Join(p.values, ",")
	}
	// The values with their counts, chosen ones marked; a key with
	// thousands of values lists the largest.
	for _, v := range mv.Values[:min(len(mv.Values), maxValueTags)] {
		f.SplitValues = append(f.SplitValues, views.PairsSplitValue{Value: v.Value, Count: v.Count, Chosen: slices.Contains(p.values, v.Value)})
	}
	f.MoreValues = len(mv.Values) - len(f.SplitValues)
	return f
}

// The vote filters of the comparison viewer.
var pairsFilters = []views.PairsOption{
	{Value: "all", Label: "all comparisons"},
	{Value: "agree", Label: "annotator agrees with the reference"},
	{Value: "disagree", Label: "annotator disagrees with the reference"},
	{Value: "one", Label: "only one of the two votes is text_a/text_b"},
	{Value: "neither", Label: "neither vote is text_a/text_b"},
}

func (s *Server) listPairComparisons(c echo.Context) error {
	ctx := c.Request().Context()
	r, err := s.pairsRequest(c)
	if err != nil {
		return err
	}
	ref, err := r.ref()
	if err != nil {
		return err
	}
	var ann pairsAnn
	hasAnn := false
	if key := r.q.Get("ann"); key != "" {
		if ann, hasAnn = r.d.lookup(key); !hasAnn {
			return notFound(fmt.Sprintf("annotator %q in dataset %s", key, r.ds.ID))
		}
	}
	filter := r.q.Get("filter")
	if filter == "" {
		filter = "all"
	}
	if !slices.ContainsFunc(pairsFilters, func(o views.PairsOption) bool { return o.Value == filter }) {
		return badRequestf("filter: %q is not one of all, agree, disagree, one, neither", filter)
	}
	if filter != "all" && !hasAnn {
		return badRequestf("filter: %s compares an annotator with the reference; choose ann", filter)
	}
	split, value := r.q.Get("split"), r.q.Get("value")
	var mv data.MetaValues
	valueIdx := int32(-1)
	if split != "" {
		if mv, err = r.splitValues(ctx, s.store, split); err != nil {
			return err
		}
		i := slices.IndexFunc(mv.Values, func(v data.MetaValue) bool { return v.Value == value })
		if i < 0 {
			return badRequestf("value: %q is not a value of %s in this dataset", value, split)
		}
		valueIdx = int32(i)
	} else if value != "" {
		return badRequestf("value: choose a split key first")
	}
	models, err := r.modelsFilter()
	if err != nil {
		return err
	}
	text := strings.TrimSpace(r.q.Get("q"))
	if len(text) > pairsMaxQuery {
		return badRequestf("q: the search text is longer than %d bytes", pairsMaxQuery)
	}
	page := 1
	if raw := r.q.Get("page"); raw != "" {
		if page, err = strconv.Atoi(raw); err != nil {
			return badRequestf("page: %q is not a whole number", raw)
		}
	}

	refVotes := r.d.votesOf(ref, r.refMask)
	var annVotes []analysis.Vote
	if hasAnn {
		annVotes = r.d.votesOf(ann, r.refMask)
	}
	var candidates []int32
	if text != "" {
		if candidates, err = s.store.PairsSearch(ctx, r.ds.ID, text); err != nil {
			return err
		}
	} else {
		candidates = make([]int32, r.d.n)
		for i := range candidates {
			candidates[i] = int32(i)
		}
	}
	sel := candidates[:0:0]
	for _, i := range candidates {
		if int(i) >= r.d.n || (valueIdx >= 0 && mv.Of[i] != valueIdx) || !models.match(r.d.modelA[i], r.d.modelB[i]) {
			continue
		}
		if filter != "all" {
			rv, av := refVotes[i], annVotes[i]
			rd := rv == analysis.VoteA || rv == analysis.VoteB
			ad := av == analysis.VoteA || av == analysis.VoteB
			var keep bool
			switch filter {
			case "agree":
				keep = rd && ad && rv == av
			case "disagree":
				keep = rd && ad && rv != av
			case "one":
				keep = rd != ad
			case "neither":
				keep = !rd && !ad
			}
			if !keep {
				continue
			}
		}
		sel = append(sel, i)
	}
	pages := max(1, (len(sel)+pairsPageSize-1)/pairsPageSize)
	page = min(max(page, 1), pages)
	from := (page - 1) * pairsPageSize
	comps, err := s.store.PairsComparisons(ctx, r.ds.ID, sel[from:min(from+pairsPageSize, len(sel))])
	if err != nil {
		return err
	}

	state := r.base()
	if hasAnn {
		state.Set("ann", ann.key)
	}
	state.Set("ref", ref.key)
	if filter != "all" {
		state.Set("filter", filter)
	}
	if split != "" {
		state.Set("split", split)
		state.Set("value", value)
	}
	setList(state, "models", models.names)
	if text != "" {
		state.Set("q", text)
	}
	pageURL := func(n int) templ.SafeURL {
		q := cloneValues(state)
		if n > 1 {
			q.Set("page", strconv.Itoa(n))
		}
		return views.PathQuery(q, "pairs", r.ds.ID, "comparisons")
	}
	l := views.PairsComparisonList{Dataset: r.datasetView(), Total: len(sel), Page: page, Pages: pages,
		RefName: ref.name, Describe: describeSelection(ann, hasAnn, ref, filter, split, value, text, models.names)}
	if hasAnn {
		l.AnnName = ann.name
	}
	if page > 1 {
		l.PrevURL = pageURL(page - 1)
	}
	if page < pages {
		l.NextURL = pageURL(page + 1)
	}
	annSel := ""
	if hasAnn {
		annSel = ann.key
	}
	l.Form = views.PairsListForm{Action: views.Path("pairs", r.ds.ID, "comparisons"),
		Anns:      append([]views.PairsOption{{Value: "", Label: "(none)", Selected: !hasAnn}}, annotatorOptions(r.d, annSel)...),
		Refs:      annotatorOptions(r.d, ref.key),
		Splits:    splitOptions(r.ds.MetadataKeys, split),
		Value:     value,
		Models:    strings.Join(models.names, ","),
		Q:         text,
		RefModels: strings.Join(r.refModels, ","),
	}
	for _, o := range pairsFilters {
		o.Selected = o.Value == filter
		l.Form.Filters = append(l.Form.Filters, o)
	}
	for _, cmp := range comps {
		it := views.PairsListItem{ID: cmp.ID, Prompt: cmp.Prompt, HasPrompt: cmp.HasPrompt,
			URL:   views.PathQuery(r.base(), "pairs", r.ds.ID, "comparisons", cmp.ID),
			TextA: cmp.TextA, TextB: cmp.TextB, ModelA: cmp.ModelA, ModelB: cmp.ModelB,
			RefVote: voteText(refVotes[cmp.Idx], ref)}
		if hasAnn {
			it.AnnVote = voteText(annVotes[cmp.Idx], ann)
		}
		l.Items = append(l.Items, it)
	}
	return render(c, http.StatusOK, views.PairsComparisonListPage(l))
}

// voteText shows a coded vote.
func voteText(v analysis.Vote, a pairsAnn) string {
	if v == analysis.VoteNone {
		if a.isModel() {
			return "not applicable"
		}
		return "no vote"
	}
	return v.String()
}

// describeSelection says in words what the viewer's filters select.
func describeSelection(ann pairsAnn, hasAnn bool, ref pairsAnn, filter, split, value, text string, models []string) string {
	var parts []string
	switch len(models) {
	case 1:
		parts = append(parts, "with a response by "+models[0])
	case 2:
		parts = append(parts, "between "+models[0]+" and "+models[1])
	}
	switch filter {
	case "agree":
		parts = append(parts, "where "+ann.name+" agrees with "+ref.name)
	case "disagree":
		parts = append(parts, "where "+ann.name+" disagrees with "+ref.name)
	case "one":
		parts = append(parts, "where only one of "+ann.name+" and "+ref.name+" votes text_a or text_b")
	case "neither":
		parts = append(parts, "where neither "+ann.name+" nor "+ref.name+" votes text_a or text_b")
	}
	if split != "" {
		parts = append(parts, "with "+split+" = "+value)
	}
	if text != "" {
		parts = append(parts, "containing “"+text+"”")
	}
	return strings.Join(parts, ", ")
}

func (s *Server) showPairComparison(c echo.Context) error {
	ctx := c.Request().Context()
	ds, err := s.store.PairsDataset(ctx, c.Param("dataset"))
	if err != nil {
		return err
	}
	id := c.Param("id")
	cmp, err := s.store.PairsComparisonByID(ctx, ds.ID, id)
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
