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

// ExperimentView is the experiment overview page.
type ExperimentView struct {
	Exp model.Experiment
	// Outcomes says whose outcomes the evaluation suite reads (issue #51).
	Outcomes            OutcomeJudges
	Query               url.Values // the page's state, for links
	Filter              OverviewFilter
	Runs, Rewards       []Option
	Cals, Epochs        []Option
	Columns             []Column
	Rows                []ScoreRow
	Sort                string
	Desc                bool
	Dim                 string
	HasDose, HasRefresh bool
	CorrNames           []string
	CorrR, CorrP        [][]float64
	CorrN               int    // the auditors the correlations are over
	CorrPopulation      string // "checkpoints" or "baselines"
	CorrRuns            int    // among checkpoints, the runs the p-values count
	// HasSuite: some auditor has a value on some dimension of the suite;
	// without one (Inspect logs that are not audits) the suite's table,
	// filters and figure are left out.
	HasSuite bool
	// Ranking leads the page: the auditors shown, ranked by composite; nil
	// when none has one.
	Ranking *CompositeRankingView
	// Scorers is the scorer table of the experiment's Inspect logs, sorted
	// by ScorerSort (ssort, sdir).
	Scorers    []ScorerRow
	ScorerSort string
	ScorerDesc bool
	// Judged is the overview of the judge dimensions, when the audits
	// have any.
	Judged *JudgedView
}

// OverviewFilter is the overview's filter form state.
type OverviewFilter struct{ Run, Reward, Kind, Cal, Epoch string }

// Option is one choice of a select.
type Option struct{ Value, Label string }

// Column is a table column.
type Column struct{ Key, Title string }

// ScoreRow is one auditor's row.
type ScoreRow struct {
	Key, ID, Name, Kind, Run string
	Cells                    []EstimateCell
}

// EstimateCell is a value with its interval.
type EstimateCell struct {
	Value, Lo, Hi float64
	N             int
	Dim           string
}

// Fmt formats a 0–100 estimate as "72.7 [70.1, 75.2]"; an undefined value
// is Undefined.
func (e EstimateCell) Fmt() string { return FmtEstimate(e.Value, e.Lo, e.Hi, 1) }

// FmtEstimate formats a value and its interval with the given decimals.
func FmtEstimate(v, lo, hi float64, decimals int) string {
	if math.IsNaN(v) {
		return Undefined
	}
	s := Num(v, decimals)
	// A zero-width interval (one value, or values without spread: "1.00
	// [1.00, 1.00]") says nothing about uncertainty and reads as certainty:
	// the value alone.
	if math.IsNaN(lo) || math.IsNaN(hi) || lo == hi {
		return s
	}
	return s + fmt.Sprintf(" [%.*f, %.*f]", decimals, lo, decimals, hi)
}

// A small sample: cells resting on fewer audits or judgments than
// ThinMinN, or whose 95% interval is wider than ThinMaxWidth points, are
// marked on the page.
const (
	ThinMinN     = 10
	ThinMaxWidth = 30.0
)

// ThinNote explains the mark.
var ThinNote = fmt.Sprintf("a small sample: fewer than %d audits or judgments, or a 95%% interval wider than %g points. Read it with care.", ThinMinN, ThinMaxWidth)

// Thin reports whether the cell is a small sample (see ThinMinN). The
// composite's N counts the dimensions it averages, not audits, so only its
// interval's width can mark it; a thin input widens that interval.
func (e EstimateCell) Thin() bool {
	if math.IsNaN(e.Value) {
		return false
	}
	if e.Dim != "composite" && e.N < ThinMinN {
		return true
	}
	return !math.IsNaN(e.Lo) && !math.IsNaN(e.Hi) && e.Hi-e.Lo > ThinMaxWidth
}

// AnyThin reports whether any cell of the table is a small sample.
func (v ExperimentView) AnyThin() bool {
	for _, r := range v.Rows {
		for _, c := range r.Cells {
			if c.Thin() {
				return true
			}
		}
	}
	return false
}

// FmtValue formats just the value.
func (e EstimateCell) FmtValue() string { return Num(e.Value, 1) }

// FmtCI formats just the interval.
func (e EstimateCell) FmtCI() string {
	if math.IsNaN(e.Value) || math.IsNaN(e.Lo) || math.IsNaN(e.Hi) {
		return ""
	}
	return fmt.Sprintf("[%.1f, %.1f]", e.Lo, e.Hi)
}

// with returns the page's query with one key changed ("" removes it).
func with(q url.Values, kv ...string) url.Values {
	out := url.Values{}
	for k, v := range q {
		out[k] = append([]string(nil), v...)
	}
	for i := 0; i+1 < len(kv); i += 2 {
		if kv[i+1] == "" {
			out.Del(kv[i])
		} else {
			out.Set(kv[i], kv[i+1])
		}
	}
	return out
}

// SortLink is the link a column header points to: sort by it, flipping the
// direction when it already sorts.
func (v ExperimentView) SortLink(key string) templ.SafeURL {
	dir := "desc"
	if key == "name" {
		dir = "asc"
	}
	if v.Sort == key {
		if v.Desc {
			dir = "asc"
		} else {
			dir = "desc"
		}
	}
	return links.Experiment(v.Exp.ID, links.Overview, with(v.Query, "sort", key, "dir", dir))
}

// SortMark shows the sort direction on the sorted column.
func (v ExperimentView) SortMark(key string) string { return sortMark(v.Sort == key, v.Desc) }

// FigureURL is the overview figure in a format, with the page's filters.
func (v ExperimentView) FigureURL(format string) templ.SafeURL {
	return links.ExperimentFigure(v.Exp.ID, "scores."+format, v.Query)
}

// CSVURL is scores.csv with the page's filters.
func (v ExperimentView) CSVURL() templ.SafeURL {
	return links.Experiment(v.Exp.ID, links.ScoresCSV, v.Query)
}

// DimLink switches the figure's dimension.
func (v ExperimentView) DimLink(dim string) templ.SafeURL {
	if dim == "composite" {
		dim = ""
	}
	return links.Experiment(v.Exp.ID, links.Overview, with(v.Query, "dim", dim))
}

// AuditsLink lists what is behind one cell: the audits of that evaluation,
// or, for realism (counted from pairwise judgments), the judgments.
func (v ExperimentView) AuditsLink(auditor, dim string) templ.SafeURL {
	switch dim {
	case "realism":
		return links.Experiment(v.Exp.ID, links.Judgments, url.Values{"kind": {"realism"}, "auditor": {auditor}})
	}
	q := judgeQuery(v.Outcomes.Judge)
	q.Set("exp", v.Exp.ID)
	q.Set("auditor", auditor)
	if dim != "composite" {
		q.Set("eval", dim)
	}
	return links.Audits(q)
}

// SweepURL is the dose-response or refresh figure for a dimension.
func (v ExperimentView) SweepURL(name, dim, format string) templ.SafeURL {
	q := judgeQuery(v.Outcomes.Judge)
	q.Set("dim", dim)
	return links.ExperimentFigure(v.Exp.ID, name+"."+format, q)
}

// FmtCorr formats a correlation with its p-value ("p < 0.001" below
// that: a test never shows p = 0).
func FmtCorr(r, p float64) string {
	switch {
	case math.IsNaN(r):
		return Undefined
	case math.IsNaN(p):
		return Num(r, 2)
	case p < 0.001:
		return Num(r, 2) + " (p < 0.001)"
	}
	return fmt.Sprintf("%s (p = %.2g)", Num(r, 2), p)
}

// ScorerRow is one line of the scorer table of Inspect logs: a metric of
// one scorer of one log, as the log reports it and as recomputed from the
// samples in the file.
type ScorerRow struct {
	Log, Task, Model, Status, Scorer, Metric string
	N, Samples, Total, Unconverted           int
	Records                                  int     // sample × epoch records the recomputation reduced
	Epochs                                   int     // per sample, when known (0: not)
	FromReductions                           bool    // recomputed from the log's own epoch-reduced scores
	Value, Lo, Hi                            float64 // the recomputation; Value NaN when not recomputed
	Method                                   string  // wilson, t or ""
	Reported, ReportedStderr                 float64 // NaN when the log gives none
}

// FmtReported is the log's number with its stderr: "0.676 ± 0.042".
func (r ScorerRow) FmtReported() string {
	if math.IsNaN(r.Reported) {
		return ""
	}
	s := Num(r.Reported, 3)
	if !math.IsNaN(r.ReportedStderr) {
		s += " ± " + Num(r.ReportedStderr, 3)
	}
	return s
}

// FmtValue is the recomputation with its interval: "0.600 [0.357, 0.802]".
func (r ScorerRow) FmtValue() string {
	if math.IsNaN(r.Value) {
		return ""
	}
	return FmtEstimate(r.Value, r.Lo, r.Hi, 3)
}

// Partial reports whether the recomputation read a subset of what the log
// scored (the file holds some of its sample × epoch results, and the log's
// own reductions were not there).
func (r ScorerRow) Partial() bool { return !r.FromReductions && r.Total > 0 && r.Samples < r.Total }

// FmtScored is what the log scored, in samples and epochs: "79 samples ×
// 10 epochs", "4 samples", or "790 sample × epoch results" when the split
// is not known.
func (r ScorerRow) FmtScored() string { return Scored(r.Total, r.Epochs) }

// Scored counts a log's sample × epoch results in samples and epochs.
func Scored(total, epochs int) string {
	switch {
	case total <= 0:
		return ""
	case epochs == 1:
		return strconv.Itoa(total) + plural(total, " sample", " samples")
	case epochs > 1 && total%epochs == 0:
		n := total / epochs
		return strconv.Itoa(n) + plural(n, " sample", " samples") + " × " + strconv.Itoa(epochs) + " epochs"
	}
	return strconv.Itoa(total) + plural(total, " sample × epoch result", " sample × epoch results")
}

// FmtN is how many samples the recomputation read.
func (r ScorerRow) FmtN() string { return strconv.Itoa(r.N) + plural(r.N, " sample", " samples") }

// FmtSource says what the samples' values were reduced from: the log's own
// epoch-reduced scores, or the sample × epoch records in the file.
func (r ScorerRow) FmtSource() string {
	switch {
	case r.FromReductions:
		return "the log's reductions"
	case r.Records > r.N:
		return strconv.Itoa(r.Records) + " sample × epoch records"
	}
	return ""
}

// MethodNote says how the recomputation and its interval were made.
func (r ScorerRow) MethodNote() string {
	var s string
	switch r.Method {
	case "wilson":
		s = "Wilson 95% interval (0/1 values)"
	case "t":
		s = "Student t 95% interval"
	case "t, clipped to [0, 1]":
		s = "Student t 95% interval, clipped to [0, 1] (every value lies there)"
	}
	if r.FromReductions {
		s += "; from the log's reductions.json: every sample it scored, its epochs reduced by the log's reducer"
	} else {
		s += "; from the records in the file, each sample's epochs reduced to their mean"
	}
	return strings.TrimPrefix(s, "; ")
}

// ScorerSortLink sorts the scorer table by key, flipping the direction
// when it is already sorted by it.
func (v ExperimentView) ScorerSortLink(key string) templ.SafeURL {
	dir := ""
	if v.ScorerSort == key {
		if v.ScorerDesc {
			dir = "asc"
		} else {
			dir = "desc"
		}
	}
	return links.Experiment(v.Exp.ID, links.Overview, with(v.Query, "ssort", key, "sdir", dir)) + "#scorers"
}

// ScorerSortMark is the arrow of the sorted column.
func (v ExperimentView) ScorerSortMark(key string) string {
	return sortMark(v.ScorerSort == key, v.ScorerDesc)
}

// ScorersURL is the scorer table's CSV, or a figure when ext is a format.
func (v ExperimentView) ScorersURL(ext string) templ.SafeURL {
	q := url.Values{}
	for _, k := range []string{"ssort", "sdir"} {
		if s := v.Query.Get(k); s != "" {
			q.Set(k, s)
		}
	}
	if ext == "csv" {
		return links.Experiment(v.Exp.ID, links.ScorersCSV, q)
	}
	return links.ExperimentFigure(v.Exp.ID, "scorers."+ext, q)
}
