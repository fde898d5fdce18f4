package web

import (
	"context"
	"fmt"
	"net/http"
	"net/url"
	"regexp"
	"slices"
	"strconv"
	"strings"

	"github.com/labstack/echo/v4"

	"github.com/auditscope/auditscope/data"
	"github.com/auditscope/auditscope/data/model"
	"github.com/auditscope/auditscope/views"
)

const (
	defaultPerPage = 50
	maxPerPage     = 500
	maxPage        = 1_000_000
	maxQueryText   = 500
)

// auditQueryKeys are the query parameters of the audit browser's state: the
// filter, the score columns and the page. The audit page carries them along
// for previous/next links and for the link back to the same list page.
var auditQueryKeys = []string{"exp", "auditor", "run", "epoch", "eval", "behavior", "split", "target", "outcome", "score", "q", "sort", "dir", "cols", "page", "per"}

// Names are judge dimensions and Inspect scorers (scorer.key for a
// dictionary score, package/name for a registered scorer).
var scoreCondRe = regexp.MustCompile(`^([A-Za-z0-9_./-]+?)\s*(>=|<=|>|<|=)\s*(-?[0-9]+(?:\.[0-9]+)?)$`)

// parseAuditFilter reads the audit browser's filter from a query.
func parseAuditFilter(q url.Values) (data.AuditFilter, error) {
	f := data.AuditFilter{
		Experiment: q.Get("exp"), Auditor: q.Get("auditor"), Run: q.Get("run"), Eval: q.Get("eval"),
		Behavior: q.Get("behavior"), Split: q.Get("split"), Target: q.Get("target"), Outcome: q.Get("outcome"),
		Text: q.Get("q"), Sort: q.Get("sort"),
	}
	if len(f.Text) > maxQueryText {
		return f, badRequestf("q: search text longer than %d characters", maxQueryText)
	}
	if e := q.Get("epoch"); e != "" {
		n, err := strconv.Atoi(e)
		if err != nil {
			return f, badRequestf("epoch: want a number, found %q", e)
		}
		f.Epoch = &n
	}
	switch f.Split {
	case "", "train", "heldout", "benign":
	default:
		return f, badRequestf("split: want train, heldout or benign, found %q", f.Split)
	}
	for _, raw := range q["score"] {
		if raw == "" {
			continue
		}
		m := scoreCondRe.FindStringSubmatch(strings.TrimSpace(raw))
		if m == nil {
			return f, badRequestf("score: want a score threshold such as concerning>=7 (a judge dimension or a scorer), found %q", raw)
		}
		v, _ := strconv.ParseFloat(m[3], 64)
		f.Scores = append(f.Scores, data.ScoreCond{Dimension: m[1], Op: m[2], Value: v})
	}
	if len(f.Scores) > 10 {
		return f, badRequestf("score: at most 10 thresholds")
	}
	// A sort key that is not a column is a judge dimension (sort=concerning);
	// the list checks it names one.
	if _, col := data.AuditSortColumns[f.Sort]; f.Sort != "" && !col && !strings.HasPrefix(f.Sort, "score:") {
		f.Sort = "score:" + f.Sort
	}
	switch q.Get("dir") {
	case "", "asc":
	case "desc":
		f.Desc = true
	default:
		return f, badRequestf("dir: want asc or desc, found %q", q.Get("dir"))
	}
	// What turns into SQL is the store's to say: one validator for the
	// browser and the store.
	if err := data.ValidateAuditFilter(f); err != nil {
		return f, badRequestf("%s", err.Error())
	}
	return f, nil
}

// defaultScoreCols are the judge dimensions the audit list shows when the
// URL names none: the judge's headline verdicts.
var defaultScoreCols = []string{"concerning", "needs_attention", "disappointing"}

// scoreColumns reads cols= (judge dimensions, comma-separated or repeated)
// against the dimensions the selection has; without it, the default ones
// it has (else its first three).
func scoreColumns(q url.Values, dims []string) ([]string, error) {
	have := map[string]bool{}
	for _, d := range dims {
		have[d] = true
	}
	var cols []string
	for _, v := range q["cols"] {
		for _, d := range strings.Split(v, ",") {
			if d = strings.TrimSpace(d); d == "" {
				continue
			}
			if !have[d] {
				return nil, unknownValue("cols", d, dims)
			}
			if !slices.Contains(cols, d) {
				cols = append(cols, d)
			}
		}
	}
	if len(q["cols"]) > 0 {
		return cols, nil
	}
	for _, d := range defaultScoreCols {
		if have[d] {
			cols = append(cols, d)
		}
	}
	if len(cols) == 0 {
		cols = dims[:min(3, len(dims))]
	}
	return cols, nil
}

// resolveChoices checks the id filters against what the selection has. A
// display name given for an id (auditor=Claude Opus 4.6, as the page shows
// it) is taken for that id; anything else unknown is a 400 with the nearest
// choices.
func resolveChoices(f *data.AuditFilter, c model.AuditChoices) error {
	for _, x := range []struct {
		param string
		value *string
		have  []model.Choice
	}{
		{"auditor", &f.Auditor, c.Auditors}, {"run", &f.Run, c.Runs}, {"behavior", &f.Behavior, c.Behaviors}, {"target", &f.Target, c.Targets},
		{"eval", &f.Eval, c.Evals},
	} {
		if *x.value == "" {
			continue
		}
		var ids []string
		var byName []string
		for _, ch := range x.have {
			if ch.Value == *x.value {
				byName = nil
				ids = nil
				break
			}
			ids = append(ids, ch.Value)
			if strings.EqualFold(ch.Label, *x.value) {
				byName = append(byName, ch.Value)
			}
		}
		switch {
		case ids == nil && len(x.have) > 0:
			// found by id
		case len(byName) == 1:
			*x.value = byName[0]
		default:
			return unknownValue(x.param, *x.value, ids)
		}
	}
	return nil
}

// checkExperiment refuses an experiment id that is not loaded.
func checkExperiment(id string, exps []data.ExperimentSummary) error {
	if id == "" {
		return nil
	}
	ids := make([]string, len(exps))
	for i, e := range exps {
		if e.ID == id {
			return nil
		}
		ids[i] = e.ID
	}
	return unknownValue("exp", id, ids)
}

// checkDimensions refuses score thresholds and a score sort on a judge
// dimension the selection does not have.
func checkDimensions(f data.AuditFilter, dims []string) error {
	for _, c := range f.Scores {
		if !slices.Contains(dims, c.Dimension) {
			return unknownValue("score", c.Dimension, dims)
		}
	}
	if d, ok := strings.CutPrefix(f.Sort, "score:"); ok && !slices.Contains(dims, d) {
		return unknownValue("sort", d, dims)
	}
	return nil
}

// unknownValue is the 400 of a value that names nothing: it names the
// parameter and the value, and lists the valid choices (the closest first
// when there are many).
func unknownValue(param, value string, choices []string) error {
	if len(choices) == 0 {
		return badRequestf("%s: unknown value %q (there is nothing to choose from here)", param, value)
	}
	sorted := slices.Clone(choices)
	if len(sorted) > 12 {
		slices.SortStableFunc(sorted, func(a, b string) int { return editDistance(value, a) - editDistance(value, b) })
		return badRequestf("%s: unknown value %q; the nearest are %s (of %d)", param, value, strings.Join(sorted[:5], ", "), len(sorted))
	}
	return badRequestf("%s: unknown value %q; choose one of %s", param, value, strings.Join(sorted, ", "))
}

// editDistance is the Levenshtein distance between a and b, for "the
// nearest" suggestions.
func editDistance(a, b string) int {
	ra, rb := []rune(a), []rune(b)
	prev := make([]int, len(rb)+1)
	for j := range prev {
		prev[j] = j
	}
	for i := 1; i <= len(ra); i++ {
		cur := make([]int, len(rb)+1)
		cur[0] = i
		for j := 1; j <= len(rb); j++ {
			cost := 1
			if ra[i-1] == rb[j-1] {
				cost = 0
			}
			cur[j] = min(prev[j]+1, cur[j-1]+1, prev[j-1]+cost)
		}
		prev = cur
	}
	return prev[len(rb)]
}

// auditFilterValues renders a filter back as the query parseAuditFilter
// reads, without defaults.
func auditFilterValues(f data.AuditFilter) url.Values {
	v := url.Values{}
	for k, s := range map[string]string{"exp": f.Experiment, "auditor": f.Auditor, "run": f.Run, "eval": f.Eval,
		"behavior": f.Behavior, "split": f.Split, "target": f.Target, "outcome": f.Outcome, "q": f.Text, "sort": f.Sort} {
		if s != "" {
			v.Set(k, s)
		}
	}
	if f.Epoch != nil {
		v.Set("epoch", strconv.Itoa(*f.Epoch))
	}
	for _, c := range f.Scores {
		v.Add("score", c.Dimension+c.Op+strconv.FormatFloat(c.Value, 'f', -1, 64))
	}
	if f.Desc {
		v.Set("dir", "desc")
	}
	return v
}

// auditsQuery is the audit browser's state: its filter and page.
type auditsQuery struct {
	Filter    data.AuditFilter
	Page, Per int
}

func parseAuditsQuery(q url.Values) (auditsQuery, error) {
	f, err := parseAuditFilter(q)
	if err != nil {
		return auditsQuery{}, err
	}
	page, per, err := parsePage(q)
	return auditsQuery{Filter: f, Page: page, Per: per}, err
}

// values renders the query back, without defaults.
func (a auditsQuery) values() url.Values {
	v := auditFilterValues(a.Filter)
	if a.Page != 1 {
		v.Set("page", strconv.Itoa(a.Page))
	}
	if a.Per != defaultPerPage {
		v.Set("per", strconv.Itoa(a.Per))
	}
	return v
}

// filterQuery keeps only the filter's keys of a query.
func filterQuery(q url.Values) url.Values {
	out := url.Values{}
	for _, k := range auditQueryKeys {
		for _, v := range q[k] {
			if v != "" {
				out.Add(k, v)
			}
		}
	}
	return out
}

func parsePage(q url.Values) (page, per int, err error) {
	page, per = 1, defaultPerPage
	if p := q.Get("page"); p != "" {
		if page, err = strconv.Atoi(p); err != nil || page < 1 || page > maxPage {
			return 0, 0, badRequestf("page: want a number from 1 to %d, found %q", maxPage, p)
		}
	}
	if p := q.Get("per"); p != "" {
		if per, err = strconv.Atoi(p); err != nil || per < 1 || per > maxPerPage {
			return 0, 0, badRequestf("per: want a page size from 1 to %d, found %q", maxPerPage, p)
		}
	}
	return page, per, nil
}

// resolveFilter checks the filter's experiment and turns display names
// into ids, for the list and its CSV alike; it returns what it read.
func (s *Server) resolveFilter(ctx context.Context, f *data.AuditFilter) ([]data.ExperimentSummary, model.AuditChoices, error) {
	exps, err := s.store.ExperimentList(ctx)
	if err != nil {
		return nil, model.AuditChoices{}, err
	}
	if err := checkExperiment(f.Experiment, exps); err != nil {
		return nil, model.AuditChoices{}, err
	}
	choices, err := s.store.AuditChoices(ctx, f.Experiment)
	if err != nil {
		return nil, model.AuditChoices{}, err
	}
	return exps, choices, resolveChoices(f, choices)
}

func (s *Server) listAudits(c echo.Context) error {
	ctx := c.Request().Context()
	q := c.QueryParams()
	aq, err := parseAuditsQuery(q)
	if err != nil {
		return err
	}
	f, page, per := aq.Filter, aq.Page, aq.Per
	exps, choices, err := s.resolveFilter(ctx, &f)
	if err != nil {
		return err
	}
	dims, err := s.store.ScoreDimensions(ctx, f.Experiment)
	if err != nil {
		return err
	}
	cols, err := scoreColumns(q, dims)
	if err != nil {
		return err
	}
	if err := checkDimensions(f, dims); err != nil {
		return err
	}
	rows, total, err := s.store.ListAuditsPage(ctx, f, (page-1)*per, per)
	if err != nil {
		return err
	}
	if past, err := pastLastPage(c, c.Request().URL.Path, c.Request().URL.Query(), page, total, per); past {
		return err
	}
	keys := make([]string, len(rows))
	for i, r := range rows {
		keys[i] = r.Key
	}
	scores, err := s.store.AuditScores(ctx, keys)
	if err != nil {
		return err
	}
	fq := filterQuery(q)
	// Links carry ids, not the display names a user may have typed: the
	// audit page's neighbours and the CSV read the filter from them.
	for k, v := range map[string]string{"auditor": f.Auditor, "run": f.Run, "behavior": f.Behavior, "target": f.Target} {
		if v != "" {
			fq.Set(k, v)
		}
	}
	vm := views.AuditListView{Query: fq, Evals: model.Evals, Rows: rows, Total: total, Page: page, Per: per, Dimensions: dims,
		Filter: f, Scores: q["score"], Experiments: exps, ScoreCols: cols, RowScores: scores, Choices: choices}
	for _, e := range exps {
		if e.Synthetic && (f.Experiment == "" || f.Experiment == e.ID) {
			vm.Synthetic = true
		}
		if f.Experiment == e.ID && e.Format == "inspect" {
			audits, err := s.store.HasAudits(ctx, e.ID)
			if err != nil {
				return err
			}
			vm.Plain = !audits
		}
	}
	if per != defaultPerPage {
		vm.Query.Set("per", strconv.Itoa(per))
	}
	return render(c, http.StatusOK, views.AuditList(vm))
}

// auditsCSVChunk is how many audits auditsCSV reads per query: the export
// holds one chunk in memory (about 14 MB of rows), not the whole result.
// Each query sorts the whole selection again to skip to its offset, so
// smaller chunks cost more: on the demo's 62,445 audits the queries take
// 0.98 s in chunks of 5,000, 0.41 s in chunks of 20,000 and 0.28 s in one.
var auditsCSVChunk = 20000

var auditsCSVHeader = []string{"experiment", "id", "auditor", "eval", "behavior", "split", "seed", "target", "turns", "messages", "detected", "false_positive", "quality", "production_value", "strategy", "summary", "url"}

// auditsCSV exports every audit the filter selects (not one page). It pages
// through the store and writes each chunk as it is read, flushing it to the
// client, so memory stays bounded however many audits match (a 100,000-audit
// export is tens of MB). The filter's order ends in experiment and ordinal,
// a unique key, so consecutive pages neither repeat nor skip an audit.
func (s *Server) auditsCSV(c echo.Context) error {
	f, err := parseAuditFilter(c.QueryParams())
	if err != nil {
		return err
	}
	ctx := c.Request().Context()
	if _, _, err := s.resolveFilter(ctx, &f); err != nil {
		return err
	}
	// One column per judge dimension of the selection, after the fixed ones.
	dims, err := s.store.ScoreDimensions(ctx, f.Experiment)
	if err != nil {
		return err
	}
	if err := checkDimensions(f, dims); err != nil {
		return err
	}
	names, err := s.auditNames(ctx, f.Experiment)
	if err != nil {
		return err
	}
	header := append(slices.Clone(auditsCSVHeader), "auditor_name", "run", "run_name", "behavior_description")
	for _, d := range dims {
		header = append(header, "score:"+d)
	}
	// The first chunk is read before anything is sent, so a failing query
	// still gets an error page.
	rows, err := s.store.ListAudits(ctx, f, 0, auditsCSVChunk)
	if err != nil {
		return err
	}
	resp := c.Response()
	resp.Header().Set("Content-Disposition", `attachment; filename="audits.csv"`)
	resp.Header().Set(echo.HeaderContentType, "text/csv; charset=utf-8")
	resp.WriteHeader(http.StatusOK)
	w := newCSVWriter(resp)
	if err := w.Write(header); err != nil {
		return err
	}
	for offset := 0; ; {
		keys := make([]string, len(rows))
		for i, r := range rows {
			keys[i] = r.Key
		}
		scores, err := s.store.AuditScores(ctx, keys)
		if err != nil {
			return &streamError{err: err}
		}
		for _, r := range rows {
			run := names.run[r.Experiment+"\x00"+r.Auditor]
			rec := append(auditCSVRecord(r), r.AuditorName, run, names.runName[r.Experiment+"\x00"+run], names.behavior[r.Experiment+"\x00"+r.Behavior])
			for _, d := range dims {
				v, ok := scores[r.Key][d]
				rec = append(rec, map[bool]string{true: csvFloat(v)}[ok])
			}
			if err := w.Write(rec); err != nil {
				return err // the client went away
			}
		}
		w.Flush()
		if err := w.Error(); err != nil {
			return err
		}
		resp.Flush()
		if len(rows) < auditsCSVChunk {
			return nil
		}
		offset += len(rows)
		if rows, err = s.store.ListAudits(ctx, f, offset, auditsCSVChunk); err != nil {
			return &streamError{err: err}
		}
	}
}

// auditNames are the display names an audit export adds to its ids, keyed
// by experiment and id: an auditor's run, a run's name, a behavior's
// description.
type auditNames struct{ run, runName, behavior map[string]string }

func (s *Server) auditNames(ctx context.Context, exp string) (auditNames, error) {
	n := auditNames{run: map[string]string{}, runName: map[string]string{}, behavior: map[string]string{}}
	exps := []string{exp}
	if exp == "" {
		list, err := s.store.ExperimentList(ctx)
		if err != nil {
			return n, err
		}
		exps = exps[:0]
		for _, e := range list {
			exps = append(exps, e.ID)
		}
	}
	for _, e := range exps {
		auditors, err := s.store.Auditors(ctx, e)
		if err != nil {
			return n, err
		}
		for _, a := range auditors {
			n.run[e+"\x00"+a.ID] = a.Run
		}
		runs, err := s.store.Runs(ctx, e)
		if err != nil {
			return n, err
		}
		for _, r := range runs {
			n.runName[e+"\x00"+r.ID] = r.Name
		}
		choices, err := s.store.AuditChoices(ctx, e)
		if err != nil {
			return n, err
		}
		for _, b := range choices.Behaviors {
			n.behavior[e+"\x00"+b.Value] = b.Label
		}
	}
	return n, nil
}

func auditCSVRecord(r data.AuditRow) []string {
	return []string{r.Experiment, r.ID, r.Auditor, r.Eval, r.Behavior, r.Split, r.Seed, r.Target, strconv.Itoa(r.Turns), strconv.Itoa(r.Messages),
		nullBool(r.Detected), nullBool(r.FalsePositive), nullFloat(r.Quality), nullFloat(r.ProductionValue),
		r.Strategy, r.Summary, string(views.Path("audits", r.Key))}
}

func nullBool(v *bool) string {
	if v == nil {
		return ""
	}
	return fmt.Sprint(*v)
}

func nullFloat(v *float64) string {
	if v == nil {
		return ""
	}
	return csvFloat(*v)
}
