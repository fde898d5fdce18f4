package web

import (
	"fmt"
	"net/http"
	"net/url"
	"regexp"
	"strconv"
	"strings"

	"github.com/auditscope/auditscope/data"
	"github.com/auditscope/auditscope/views"
	"github.com/labstack/echo/v4"
)

const (
	defaultPerPage = 50
	maxPerPage     = 500
	maxPage        = 1_000_000
	maxQueryText   = 500
)

// auditQueryKeys are the query parameters that make up an audit filter; the
// audit page carries them along for previous/next links.
var auditQueryKeys = []string{"exp", "auditor", "run", "epoch", "eval", "behavior", "split", "target", "outcome", "score", "q", "sort", "dir"}

var scoreCondRe = regexp.MustCompile(`^([a-z0-9_]+)\s*(>=|<=|>|<|=)\s*([0-9]+(?:\.[0-9]+)?)$`)

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
			return f, badRequestf("score: want a judge dimension threshold such as concerning>=7, found %q", raw)
		}
		v, _ := strconv.ParseFloat(m[3], 64)
		f.Scores = append(f.Scores, data.ScoreCond{Dimension: m[1], Op: m[2], Value: v})
	}
	if len(f.Scores) > 10 {
		return f, badRequestf("score: at most 10 thresholds")
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

func (s *Server) listAudits(c echo.Context) error {
	ctx := c.Request().Context()
	q := c.QueryParams()
	aq, err := parseAuditsQuery(q)
	if err != nil {
		return err
	}
	f, page, per := aq.Filter, aq.Page, aq.Per
	rows, total, err := s.store.ListAuditsPage(ctx, f, (page-1)*per, per)
	if err != nil {
		return err
	}
	exps, err := s.store.ExperimentList(ctx)
	if err != nil {
		return err
	}
	dims, err := s.store.ScoreDimensions(ctx, f.Experiment)
	if err != nil {
		return err
	}
	fq := filterQuery(q)
	vm := views.AuditListView{Query: fq, Rows: rows, Total: total, Page: page, Per: per, Dimensions: dims,
		Filter: f, Scores: q["score"], Experiments: exps}
	for _, e := range exps {
		if e.Synthetic && (f.Experiment == "" || f.Experiment == e.ID) {
			vm.Synthetic = true
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
	if err := w.Write(auditsCSVHeader); err != nil {
		return err
	}
	for offset := 0; ; {
		for _, r := range rows {
			if err := w.Write(auditCSVRecord(r)); err != nil {
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
