package app

import (
	"context"
	"errors"
	"slices"
	"strings"

	"github.com/auditscope/auditscope/data/model"
)

// AuditListQuery is the audit list's query as web parses it from the URL:
// the filter as typed (display names are resolved here), the page, and
// the score columns asked for (nil: the defaults).
type AuditListQuery struct {
	Filter    model.AuditFilter
	Page, Per int
	Cols      []string
}

// AuditList is the audit list page: the filter resolved, its choices, one
// page of the audits it selects with their scores, and what the page
// shows them with.
type AuditList struct {
	// Filter is the query's, its names resolved to ids.
	Filter      model.AuditFilter
	Experiments []model.ExperimentSummary
	Choices     model.AuditChoices
	// Unknown, when set, is a filter value that names nothing, with what it
	// may mean: the page offers those and lists no audits.
	Unknown *UnknownChoice
	// Dimensions are the scores the selection has (judge dimensions and
	// scorers), Columns those shown: the asked-for or default ones, with
	// the one sorted by and those filtered by.
	Dimensions, Columns []string
	AuditPage
	// Synthetic: the list holds synthetic audits. Plain: its experiment
	// holds plain Inspect samples, shown with their tasks, logs and epochs
	// (Samples).
	Synthetic, Plain bool
	Samples          SampleColumns
	// Judges are the experiment's judges, whose scores the list can show.
	Judges []string
}

// AuditList resolves the query's filter and reads its page. Every check
// of the filter against the data is here: its names (an unknown one is the
// page's Unknown, not an error), its score thresholds, sort and columns
// against the selection's dimensions.
func (s *Service) AuditList(ctx context.Context, q AuditListQuery) (*AuditList, error) {
	l := &AuditList{Filter: q.Filter}
	var err error
	l.Experiments, l.Choices, err = s.ResolveFilter(ctx, &l.Filter)
	if errors.As(err, &l.Unknown) {
		return l, nil
	}
	if err != nil {
		return nil, err
	}
	f := l.Filter
	if l.Dimensions, err = s.FilterDimensions(ctx, f); err != nil {
		return nil, err
	}
	if l.Columns, err = ScoreColumns(q.Cols, l.Dimensions, f); err != nil {
		return nil, err
	}
	if err := CheckDimensions(f, l.Dimensions); err != nil {
		return nil, err
	}
	if l.AuditPage, err = s.Audits(ctx, f, q.Page, q.Per); err != nil {
		return nil, err
	}
	for _, e := range l.Experiments {
		if e.Synthetic && (f.Experiment == "" || f.Experiment == e.ID) {
			l.Synthetic = true
		}
		if f.Experiment == e.ID && e.Format == "inspect" {
			audits, err := s.HasAudits(ctx, e.ID)
			if err != nil {
				return nil, err
			}
			l.Plain = !audits
		}
	}
	if l.Plain {
		if l.Samples, err = s.Samples(ctx, f.Experiment, l.Rows); err != nil {
			return nil, err
		}
	}
	if f.Experiment != "" {
		js, err := s.AuditJudges(ctx, f.Experiment)
		if err != nil {
			return nil, err
		}
		for _, j := range js {
			l.Judges = append(l.Judges, j.Name)
		}
	}
	return l, nil
}

// DefaultScoreCols are the judge dimensions the audit list shows when the
// query names none: the judge's headline verdicts.
var DefaultScoreCols = []string{"concerning", "needs_attention", "disappointing"}

// ScoreColumns are the score columns of a list of the selection whose
// dimensions are dims: those asked for (each one of dims), else the
// default ones it has (else its first three). The dimension the list is
// sorted by and those it is filtered by are always shown: a triage by a
// score sees it.
func ScoreColumns(asked, dims []string, f model.AuditFilter) ([]string, error) {
	var cols []string
	add := func(d string) {
		if !slices.Contains(cols, d) {
			cols = append(cols, d)
		}
	}
	for _, d := range asked {
		if !slices.Contains(dims, d) {
			return nil, UnknownValue("cols", d, dims)
		}
		add(d)
	}
	if asked == nil {
		for _, d := range DefaultScoreCols {
			if slices.Contains(dims, d) {
				add(d)
			}
		}
		if len(cols) == 0 {
			for _, d := range dims[:min(3, len(dims))] {
				add(d)
			}
		}
	}
	if d, ok := strings.CutPrefix(f.Sort, "score:"); ok && slices.Contains(dims, d) {
		add(d)
	}
	for _, c := range f.Scores {
		if slices.Contains(dims, c.Dimension) {
			add(c.Dimension)
		}
	}
	return cols, nil
}
