package views

import (
	"fmt"
	"math"
	"net/url"
	"strconv"
	"strings"

	"github.com/a-h/templ"
	"github.com/auditscope/auditscope/data/model"
	"github.com/auditscope/auditscope/views/links"
)

// AuditListView is the audit browser.
type AuditListView struct {
	Query       url.Values // the filter, for links
	Filter      model.AuditFilter
	Evals       []string // the eval kinds the filter offers
	Scores      []string
	Rows        []model.AuditRow
	Total       int
	Page, Per   int
	Dimensions  []string
	Experiments []model.ExperimentSummary
	Synthetic   bool
	Choices     model.AuditChoices            // what the id filters can take, for the pickers
	ScoreCols   []string                      // judge dimensions shown as columns
	RowScores   map[string]map[string]float64 // audit key -> dimension -> score
	// Plain: the selected experiment holds Inspect samples that are not
	// audits; the list shows them in Inspect's terms (sample, model, scores)
	// without auditor, eval, behavior, target or outcome.
	Plain bool
	// SampleChoices and SampleFields are a Plain list's tasks, logs and
	// epochs: what its filters offer, and each row's (by audit key).
	SampleChoices model.SampleChoices
	SampleFields  map[string]model.SampleFields
	// Unknown, when set, is a filter value that names nothing: the page
	// offers the choices it may mean instead of a list.
	Unknown *UnknownChoice
	// Judges are the experiment's other judges, whose scores the list can
	// show instead of the evaluation judge's (Filter.Judge).
	Judges []string
}

// SampleEpochValue is the sample epoch filter as typed.
func (v AuditListView) SampleEpochValue() string {
	if v.Filter.SampleEpoch == nil {
		return ""
	}
	return strconv.Itoa(*v.Filter.SampleEpoch)
}

// Noun is what the list holds.
func (v AuditListView) Noun() string {
	if v.Plain {
		return "Samples"
	}
	return "Audits"
}

// ScorePlaceholder is an example threshold on one of the columns.
func (v AuditListView) ScorePlaceholder() string {
	if v.Plain && len(v.Dimensions) > 0 {
		return v.Dimensions[0] + ">=1"
	}
	return "concerning>=7"
}

// Score is an audit's score on a dimension, "" when it has none.
func (v AuditListView) Score(key, dim string) string {
	s, ok := v.RowScores[key][dim]
	if !ok {
		return ""
	}
	// Judge scores are whole numbers; a scorer's mean or partial credit
	// keeps its decimals.
	if s == math.Trunc(s) {
		return Num(s, 0)
	}
	return strconv.FormatFloat(s, 'g', 4, 64)
}

// Pages is the number of pages.
func (v AuditListView) Pages() int {
	if v.Total == 0 {
		return 1
	}
	return (v.Total + v.Per - 1) / v.Per
}

// PageLink links to another page of the same filter.
func (v AuditListView) PageLink(page int) templ.SafeURL {
	q := with(v.Query, "page", strconv.Itoa(page))
	if page == 1 {
		q.Del("page")
	}
	return links.Audits(q)
}

// AuditLink opens an audit, carrying the filter for previous/next.
func (v AuditListView) AuditLink(key string) templ.SafeURL {
	return links.Audit(key, v.Query)
}

// CSVLink exports the filter.
func (v AuditListView) CSVLink() templ.SafeURL { return links.AuditsCSV(v.Query) }

// ClearLink is the audit list of the same experiment without the other
// filters.
func (v AuditListView) ClearLink() templ.SafeURL {
	q := url.Values{}
	if exp := v.Query.Get("exp"); exp != "" {
		q.Set("exp", exp)
	}
	return links.Audits(q)
}

// SortLink sorts by a column, flipping the direction when it already
// sorts. A score sorts worst (highest) first on the first click: triage
// starts from the audits the judge flagged most.
func (v AuditListView) SortLink(key string) templ.SafeURL {
	dir := "asc"
	if strings.HasPrefix(key, "score:") {
		dir = "desc"
	}
	if v.Filter.Sort == key {
		dir = map[bool]string{true: "asc", false: "desc"}[v.Filter.Desc]
	}
	q := with(v.Query, "sort", key, "dir", dir)
	q.Del("page")
	return links.Audits(q)
}

// Range describes the rows shown. A row of Inspect samples is a sample in
// one epoch: counted as a sample run, so a log of 10 samples × 5 epochs is
// "50 sample runs", not 50 samples.
func (v AuditListView) Range() string {
	noun := strings.ToLower(v.Noun())
	if v.Plain {
		noun = "sample runs"
	}
	if v.Total == 0 {
		return "No " + noun + " match" // the start of a sentence (auditTable)
	}
	if v.Total == 1 {
		return "1 " + strings.TrimSuffix(noun, "s") // "1 audit", not "1–1 of 1 audits"
	}
	from := (v.Page-1)*v.Per + 1
	to := from + len(v.Rows) - 1
	return fmt.Sprintf("%d–%d of %d %s", from, to, v.Total, noun)
}

// OutcomeText describes an audit's outcome.
func OutcomeText(r model.AuditRow) string {
	switch {
	case r.FalsePositive != nil && *r.FalsePositive:
		return "false positive"
	case r.FalsePositive != nil:
		return "no false positive"
	case r.Detected != nil && *r.Detected:
		return "detected"
	case r.Detected != nil:
		return "missed"
	case r.Quality != nil:
		return fmt.Sprintf("quality %.0f of 100", *r.Quality)
	case r.ProductionValue != nil:
		return fmt.Sprintf("production value %.0f of 100", *r.ProductionValue)
	}
	return ""
}

// ColsValue is the score columns field's value: the columns the URL chose
// ("" for the defaults, which the placeholder shows).
func (v AuditListView) ColsValue() string { return strings.Join(v.Query["cols"], ",") }

// ScoreValue is the first score threshold, for the form.
func (v AuditListView) ScoreValue() string {
	if len(v.Scores) > 0 {
		return v.Scores[0]
	}
	return ""
}

// EpochValue renders the epoch filter.
func (v AuditListView) EpochValue() string {
	if v.Filter.Epoch == nil {
		return ""
	}
	return strconv.Itoa(*v.Filter.Epoch)
}

// UnknownChoice is a filter value that names nothing, with the choices it
// may mean as links.
type UnknownChoice struct {
	Param, Value string
	Links        []ChoiceLink
}

// ChoiceLink is one choice offered, linking to the list filtered by it.
type ChoiceLink struct {
	Label string
	URL   templ.SafeURL
}
