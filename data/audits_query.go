package data

import (
	"context"
	"fmt"
	"slices"
	"strconv"
	"strings"

	"github.com/auditscope/auditscope/data/internal/exportsql"
	"github.com/auditscope/auditscope/data/internal/verdictquery"
	"github.com/auditscope/auditscope/data/model"
)

// AuditFilter is model.AuditFilter.
type AuditFilter = model.AuditFilter

// auditQuery is a filter on its way into SQL.
type auditQuery struct {
	AuditFilter
	// jsonScores makes score conditions and sorts read the audits' scores
	// JSON instead of audit_scores, while that table is still being built
	// in the background (Store.BuildPendingScores).
	jsonScores bool
	// cols reads the dimensions that have score columns (scoreColumns);
	// they take precedence over the JSON and audit_scores.
	cols map[string]scoreCol
	// after, when set, selects only the audits after it in the filter's
	// order (an export's next chunk).
	after *model.AuditCursor
	// upto, with after, ends the selection at this ord (an export's chunk
	// in file order; AuditCursor.Until).
	upto *int64
}

// ScoreCond is model.ScoreCond.
type ScoreCond = model.ScoreCond

// auditSortColumns maps the sort keys the audit browser accepts
// (model.AuditSortKeys) to SQL.
var auditSortColumns = map[string]string{
	"id":               "a.ord",
	"auditor":          "a.auditor",
	"eval":             "a.eval",
	"behavior":         "a.behavior",
	"target":           "a.target",
	"turns":            "a.turns",
	"quality":          "a.quality",
	"production_value": "a.production_value",
	"outcome":          "a.detected",
	"messages":         "a.n_messages",
}

// AuditRow is model.AuditRow.
type AuditRow = model.AuditRow

// where builds the WHERE clause and its arguments. sortJoined says the
// query joins the sort dimension's scores as ss (see query).
func (f auditQuery) where(sortJoined bool) (string, []any, error) {
	// The filter's values are checked once, by its own rules; what the
	// clauses below put in SQL text (the comparison, the sort column) comes
	// from their whitelists.
	if err := f.Validate(); err != nil {
		return "", nil, err
	}
	var conds []string
	var args []any
	add := func(cond string, a ...any) {
		conds = append(conds, cond)
		args = append(args, a...)
	}
	if f.Experiment != "" {
		add("a.experiment = ?", f.Experiment)
	}
	if f.Judge != "" {
		add("a.id IN (SELECT v.audit FROM verdicts v WHERE v.experiment = a.experiment AND v.judge = ?)", f.Judge)
	}
	if f.Auditor != "" {
		add("a.auditor = ?", f.Auditor)
	}
	if f.Run != "" {
		add("au.run = ?", f.Run)
	}
	if f.Epoch != nil {
		add("au.epoch = ?", int32(*f.Epoch))
	}
	if f.Eval != "" {
		add("a.eval = ?", f.Eval)
	}
	// An Inspect sample's task, log and epoch are its labels (data/logs).
	if f.Task != "" {
		add("json_extract_string(a.labels, '$.task') = ?", f.Task)
	}
	if f.Log != "" {
		add("json_extract_string(a.labels, '$.source') = ?", f.Log)
	}
	if f.SampleEpoch != nil {
		add("json_extract_string(a.labels, '$.epoch') = ?", strconv.Itoa(*f.SampleEpoch))
	}
	if f.Behavior != "" {
		add("a.behavior = ?", f.Behavior)
	}
	if f.Split != "" {
		add("a.split = ?", f.Split)
	}
	if f.Target != "" {
		add("a.target = ?", f.Target)
	}
	switch f.Outcome {
	case "":
	case "detected":
		add("a.detected")
	case "missed":
		add("a.detected = false")
	case "false_positive":
		add("a.false_positive")
	}
	for _, s := range f.Scores {
		// s.Op is one of model.AuditFilter.Validate's whitelist.
		if c, ok := f.cols[s.Dimension]; ok {
			add(c.sql+" "+s.Op+" ?", append(slices.Clone(c.args), s.Value)...)
			continue
		}
		if f.jsonScores {
			add("TRY_CAST(json_extract_string(a.scores, ?) AS DOUBLE) "+s.Op+" ?", scorePath(s.Dimension), s.Value)
			continue
		}
		if sortJoined && f.Sort == "score:"+s.Dimension {
			// A threshold on the dimension the page is sorted by tests the
			// joined score: one scan of audit_scores instead of two.
			add("ss.score "+s.Op+" ?", s.Value)
			continue
		}
		add("a.id IN (SELECT s.audit FROM audit_scores s WHERE s.experiment = a.experiment AND s.dimension = ? AND s.score "+s.Op+" ?)", s.Dimension, s.Value)
	}
	if t := strings.TrimSpace(f.Text); t != "" {
		// search_text is stored lower-cased, so a literal substring test on
		// the lower-cased query is case-insensitive search (and far faster
		// than ILIKE).
		add(`contains(a.search_text, ?)`, strings.ToLower(t))
	}
	if len(conds) == 0 {
		return "", nil, nil
	}
	return " WHERE " + strings.Join(conds, " AND "), args, nil
}

func (f auditQuery) orderBy() (string, []any, error) {
	dir := " ASC"
	if f.Desc {
		dir = " DESC"
	}
	// File order: within one experiment ord alone. The experiment, constant
	// there, would still be a first sort key, and DuckDB then reads every
	// match before it keeps the first page; by ord alone it stops early
	// (a frequent search term's first page at a million audits: 717 ms →
	// 24 ms).
	file := "a.experiment, a.ord"
	if f.Experiment != "" {
		file = "a.ord"
	}
	switch {
	case strings.HasPrefix(f.Sort, "score:"):
		return " ORDER BY sort_score" + dir + " NULLS LAST, " + file, nil, nil
	case f.Sort == "":
		return " ORDER BY " + file, nil, nil
	}
	col, ok := auditSortColumns[f.Sort]
	if !ok {
		return "", nil, &model.FilterError{Param: "sort", Msg: fmt.Sprintf("unknown column %q", f.Sort)}
	}
	return " ORDER BY " + col + dir + " NULLS LAST, " + file, nil, nil
}

const auditColumns = `a.key, a.experiment, a.id, a.auditor, coalesce(au.name, a.auditor), ` + auditColumnsAfterName

// auditColumnsAfterName are auditColumns after the auditor's name.
const auditColumnsAfterName = `a.eval, coalesce(a.behavior, ''), a.split, a.seed, a.target,
 a.turns, a.n_messages, a.detected, a.false_positive, a.quality, a.production_value, a.summary, coalesce(a.strategy, '')`

func (f auditQuery) query(selectCols string) (string, []any, error) {
	// Sorting by a judge score reads its score column, or else joins that
	// dimension's scores once (a correlated subquery per row is several
	// times slower).
	sortScore, join := "NULL::DOUBLE", ""
	var sargs, jargs []any
	dim, ok := strings.CutPrefix(f.Sort, "score:")
	if c, slotted := f.cols[dim]; ok && slotted {
		sortScore = c.sql
		sargs = append(sargs, c.args...)
	} else if ok && f.jsonScores {
		sortScore = "TRY_CAST(json_extract_string(a.scores, ?) AS DOUBLE)"
		sargs = append(sargs, scorePath(dim))
	} else if ok {
		sortScore = "ss.score"
		join = " LEFT JOIN (SELECT experiment, audit, score FROM audit_scores WHERE dimension = ?) ss ON ss.experiment = a.experiment AND ss.audit = a.id"
		jargs = append(jargs, dim)
	}
	where, args, err := f.where(join != "")
	if err != nil {
		return "", nil, err
	}
	if f.after != nil {
		key, kargs := f.Sort, []any(nil)
		if strings.HasPrefix(f.Sort, "score:") {
			key, kargs = sortScore, sargs
		} else if f.Sort != "" {
			key = auditSortColumns[f.Sort] // orderBy refuses any other
		}
		cond, cargs := exportsql.Keyset(*f.after, key, f.Desc, kargs, f.Experiment != "")
		if f.upto != nil {
			cond, cargs = cond+" AND a.ord <= ?", append(cargs, *f.upto)
		}
		if where == "" {
			where = " WHERE " + cond
		} else {
			where += " AND " + cond
		}
		args = append(args, cargs...)
	}
	q := "SELECT " + selectCols + ", " + sortScore + " AS sort_score FROM audits a" + f.auditorsJoin(selectCols) + join + where
	return q, append(append(sargs, jargs...), args...), nil
}

// auditorsJoin joins the auditors when the query needs them: for the
// columns it selects (an auditor's name) or a filter by run or epoch. A
// page's first query selects keys alone, and probing the auditors for each
// of a million audits was a sixth of its time.
func (f auditQuery) auditorsJoin(selectCols string) string {
	if strings.Contains(selectCols, "au.") || f.Run != "" || f.Epoch != nil {
		return " LEFT JOIN auditors au ON au.experiment = a.experiment AND au.id = a.auditor"
	}
	return ""
}

// evalScoreSource is where the evaluation judge's scores of dims are on
// exp's audits (verdictquery.ScoreSource).
func (s *Store) evalScoreSource(ctx context.Context, exp string, dims []string) (map[string]verdictquery.ScoreCol, bool, error) {
	cols, err := s.scoreColumns(ctx, exp, dims)
	out := make(map[string]verdictquery.ScoreCol, len(cols))
	for d, c := range cols {
		out[d] = verdictquery.ScoreCol{SQL: c.sql, Args: c.args}
	}
	s.mu.RLock()
	defer s.mu.RUnlock()
	return out, s.pendingScores[exp], err
}
