package web

import (
	"context"
	"errors"
	"net/http"
	"net/url"
	"regexp"
	"slices"
	"strconv"
	"strings"

	"github.com/labstack/echo/v4"

	"github.com/auditscope/auditscope/data/model"
	"github.com/auditscope/auditscope/views"
	"github.com/auditscope/auditscope/web/app"
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
var auditQueryKeys = []string{"exp", "auditor", "run", "epoch", "eval", "behavior", "split", "target", "outcome", "task", "log", "sample_epoch",
	"score", "q", "sort", "dir", "cols", "page", "per", "judge"}

// Names are judge dimensions and Inspect scorers (scorer.key for a
// dictionary score, package/name for a registered scorer).
var scoreCondRe = regexp.MustCompile(`^([A-Za-z0-9_./-]+?)\s*(>=|<=|>|<|=)\s*(-?[0-9]+(?:\.[0-9]+)?)$`)

// parseAuditFilter reads the audit browser's filter from a query.
func parseAuditFilter(q url.Values) (model.AuditFilter, error) {
	f := model.AuditFilter{
		Experiment: q.Get("exp"), Auditor: q.Get("auditor"), Run: q.Get("run"), Eval: q.Get("eval"),
		Behavior: q.Get("behavior"), Split: q.Get("split"), Target: q.Get("target"), Outcome: q.Get("outcome"),
		Text: q.Get("q"), Sort: q.Get("sort"), Task: q.Get("task"), Log: q.Get("log"), Judge: q.Get("judge"),
	}
	if len(f.Text) > maxQueryText {
		return f, badRequestf("q: search text longer than %d characters", maxQueryText)
	}
	var err error
	if f.Epoch, err = optInt(q, "epoch"); err != nil {
		return f, err
	}
	if f.SampleEpoch, err = optInt(q, "sample_epoch"); err != nil {
		return f, err
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
		f.Scores = append(f.Scores, model.ScoreCond{Dimension: m[1], Op: m[2], Value: v})
	}
	if len(f.Scores) > 10 {
		return f, badRequestf("score: at most 10 thresholds")
	}
	// A sort key that is not a column is a judge dimension (sort=concerning);
	// the list checks it names one.
	if f.Sort != "" && !slices.Contains(model.AuditSortKeys, f.Sort) && !strings.HasPrefix(f.Sort, "score:") {
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
	if err := f.Validate(); err != nil {
		return f, badRequestf("%s", err.Error())
	}
	return f, nil
}

// optInt reads an optional whole number; nil when absent.
func optInt(q url.Values, name string) (*int, error) {
	e := q.Get(name)
	if e == "" {
		return nil, nil
	}
	n, err := strconv.Atoi(e)
	if err != nil {
		return nil, badRequestf("%s: want a number, found %q", name, e)
	}
	return &n, nil
}

// defaultScoreCols are the judge dimensions the audit list shows when the
// URL names none: the judge's headline verdicts.
var defaultScoreCols = []string{"concerning", "needs_attention", "disappointing"}

// scoreColumns reads cols= (judge dimensions, comma-separated or repeated)
// against the dimensions the selection has; without it, the default ones
// it has (else its first three). The dimension the list is sorted by and
// those it is filtered by are always shown: a triage by a score sees it.
func scoreColumns(q url.Values, dims []string, f model.AuditFilter) ([]string, error) {
	have := map[string]bool{}
	for _, d := range dims {
		have[d] = true
	}
	var cols []string
	add := func(d string) {
		if !slices.Contains(cols, d) {
			cols = append(cols, d)
		}
	}
	for _, v := range q["cols"] {
		for _, d := range strings.Split(v, ",") {
			if d = strings.TrimSpace(d); d == "" {
				continue
			}
			if !have[d] {
				return nil, app.UnknownValue("cols", d, dims)
			}
			add(d)
		}
	}
	if len(q["cols"]) == 0 {
		for _, d := range defaultScoreCols {
			if have[d] {
				add(d)
			}
		}
		if len(cols) == 0 {
			for _, d := range dims[:min(3, len(dims))] {
				add(d)
			}
		}
	}
	if d, ok := strings.CutPrefix(f.Sort, "score:"); ok && have[d] {
		add(d)
	}
	for _, c := range f.Scores {
		if have[c.Dimension] {
			add(c.Dimension)
		}
	}
	return cols, nil
}

// auditFilterValues renders a filter back as the query parseAuditFilter
// reads, without defaults.
func auditFilterValues(f model.AuditFilter) url.Values {
	v := url.Values{}
	for k, s := range map[string]string{"exp": f.Experiment, "auditor": f.Auditor, "run": f.Run, "eval": f.Eval,
		"behavior": f.Behavior, "split": f.Split, "target": f.Target, "outcome": f.Outcome, "q": f.Text, "sort": f.Sort,
		"task": f.Task, "log": f.Log, "judge": f.Judge} {
		if s != "" {
			v.Set(k, s)
		}
	}
	if f.Epoch != nil {
		v.Set("epoch", strconv.Itoa(*f.Epoch))
	}
	if f.SampleEpoch != nil {
		v.Set("sample_epoch", strconv.Itoa(*f.SampleEpoch))
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
	Filter    model.AuditFilter
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

func (s *Server) listAudits(c echo.Context) error {
	ctx := c.Request().Context()
	q := c.QueryParams()
	aq, err := parseAuditsQuery(q)
	if err != nil {
		return err
	}
	f, page, per := aq.Filter, aq.Page, aq.Per
	exps, choices, err := s.audits.ResolveFilter(ctx, &f)
	var unknown *app.UnknownChoice
	if errors.As(err, &unknown) {
		// A partial or wrong name: the page offers what it may mean.
		return render(c, http.StatusOK, views.AuditList(views.AuditListView{Query: filterQuery(q), Filter: f, Experiments: exps,
			Evals: model.Evals, Choices: choices, Page: 1, Per: per, Unknown: unknownView(q, unknown)}))
	}
	if err != nil {
		return err
	}
	dims, err := s.audits.FilterDimensions(ctx, f)
	if err != nil {
		return err
	}
	cols, err := scoreColumns(q, dims, f)
	if err != nil {
		return err
	}
	if err := app.CheckDimensions(f, dims); err != nil {
		return err
	}
	ap, err := s.audits.Audits(ctx, f, page, per)
	if err != nil {
		return err
	}
	if past, err := pastLastPage(c, c.Request().URL.Path, c.Request().URL.Query(), page, ap.Total, per); past {
		return err
	}
	vm := views.AuditListView{Query: idQuery(q, f), Evals: model.Evals, Rows: ap.Rows, Total: ap.Total, Page: page, Per: per, Dimensions: dims,
		Filter: f, Scores: q["score"], Experiments: exps, ScoreCols: cols, RowScores: ap.Scores, Choices: choices}
	if err := s.listKind(ctx, &vm, exps); err != nil {
		return err
	}
	if vm.Judges, err = s.judgeNames(ctx, f.Experiment); err != nil {
		return err
	}
	if per != defaultPerPage {
		vm.Query.Set("per", strconv.Itoa(per))
	}
	return render(c, http.StatusOK, views.AuditList(vm))
}

// listKind says whether the list holds synthetic audits and whether it
// holds plain Inspect samples, which it shows with their tasks, logs and
// epochs.
func (s *Server) listKind(ctx context.Context, vm *views.AuditListView, exps []model.ExperimentSummary) error {
	f := vm.Filter
	for _, e := range exps {
		if e.Synthetic && (f.Experiment == "" || f.Experiment == e.ID) {
			vm.Synthetic = true
		}
		if f.Experiment == e.ID && e.Format == "inspect" {
			audits, err := s.audits.HasAudits(ctx, e.ID)
			if err != nil {
				return err
			}
			vm.Plain = !audits
		}
	}
	if !vm.Plain {
		return nil
	}
	sc, err := s.audits.Samples(ctx, f.Experiment, vm.Rows)
	vm.SampleChoices, vm.SampleFields = sc.Choices, sc.Fields
	return err
}

// idQuery is the list's query for its links: they carry ids, not the
// display names a user may have typed, because the audit page's
// neighbours and the CSV read the filter from them.
func idQuery(q url.Values, f model.AuditFilter) url.Values {
	fq := filterQuery(q)
	for k, v := range map[string]string{"auditor": f.Auditor, "run": f.Run, "behavior": f.Behavior, "target": f.Target} {
		if v != "" {
			fq.Set(k, v)
		}
	}
	return fq
}

// unknownView is the notice of a filter value that names nothing, with the
// choices it may mean as links to the list filtered by each.
func unknownView(q url.Values, u *app.UnknownChoice) *views.UnknownChoice {
	v := &views.UnknownChoice{Param: u.Param, Value: u.Value}
	for _, ch := range u.Matches {
		fq := filterQuery(q)
		fq.Set(u.Param, ch.Value)
		fq.Del("page")
		label := ch.Label
		if label == "" {
			label = ch.Value
		}
		v.Links = append(v.Links, views.ChoiceLink{Label: label, URL: views.PathQuery(fq, "audits")})
	}
	return v
}
