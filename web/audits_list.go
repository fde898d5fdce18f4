package web

import (
	"net/http"
	"net/url"
	"regexp"
	"slices"
	"strconv"
	"strings"

	"github.com/labstack/echo/v4"

	"github.com/auditscope/auditscope/data/model"
	"github.com/auditscope/auditscope/views"
	"github.com/auditscope/auditscope/views/links"
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

// askedColumns are the score columns cols= names (comma-separated or
// repeated), nil when it is not given (the list's defaults then).
func askedColumns(q url.Values) []string {
	vs, ok := q["cols"]
	if !ok {
		return nil
	}
	cols := []string{}
	for _, v := range vs {
		for _, d := range strings.Split(v, ",") {
			if d = strings.TrimSpace(d); d != "" {
				cols = append(cols, d)
			}
		}
	}
	return cols
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
	q := c.QueryParams()
	aq, err := parseAuditsQuery(q)
	if err != nil {
		return err
	}
	l, err := s.audits.AuditList(c.Request().Context(), app.AuditListQuery{Filter: aq.Filter, Page: aq.Page, Per: aq.Per, Cols: askedColumns(q)})
	if err != nil {
		return err
	}
	f, page, per := l.Filter, aq.Page, aq.Per
	if l.Unknown != nil {
		// A partial or wrong name: the page offers what it may mean.
		return render(c, http.StatusOK, views.AuditList(views.AuditListView{Query: filterQuery(q), Filter: f, Experiments: l.Experiments,
			Evals: model.Evals, Choices: l.Choices, Page: 1, Per: per, Unknown: unknownView(q, l.Unknown)}))
	}
	if past, err := pastLastPage(c, c.Request().URL.Path, c.Request().URL.Query(), page, l.Total, per); past {
		return err
	}
	vm := views.AuditListView{Query: idQuery(q, f), Evals: model.Evals, Rows: l.Rows, Total: l.Total, Page: page, Per: per,
		Dimensions: l.Dimensions, Filter: f, Scores: q["score"], Experiments: l.Experiments, ScoreCols: l.Columns, RowScores: l.Scores,
		Choices: l.Choices, Synthetic: l.Synthetic, Plain: l.Plain, SampleChoices: l.Samples.Choices, SampleFields: l.Samples.Fields,
		Judges: l.Judges}
	if per != defaultPerPage {
		vm.Query.Set("per", strconv.Itoa(per))
	}
	return render(c, http.StatusOK, views.AuditList(vm))
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
		v.Links = append(v.Links, views.ChoiceLink{Label: label, URL: links.Audits(fq)})
	}
	return v
}
