package data

import (
	"context"
	"fmt"
	"math"
	"strings"

	"github.com/auditscope/auditscope/data/model"
)

// The audit browser's full export, read chunk by chunk.
//
// Each chunk starts after the last audit of the one before in the filter's
// order (a keyset), not at an offset: with an offset every chunk sorted the
// whole selection again to skip what was sent, so an export's cost grew
// with the square of its size. A keyset chunk is a top-N of the audits past
// the cursor. And an import landing between two chunks can neither repeat
// nor skip an audit that was there before it.

// keyset is the condition "after c" in the order key dir NULLS LAST,
// experiment, ord. key is the sort expression ("" for the default order,
// experiment and ord alone) and keyArgs its arguments, given again for
// each use of it in the condition. oneExp says the filter selects one
// experiment: the order is then by ord alone (auditQuery.orderBy), and so
// is the condition, which DuckDB can then test against each row group's
// range of ord.
func keyset(c model.AuditCursor, key string, desc bool, keyArgs []any, oneExp bool) (string, []any) {
	tie := "(a.experiment > ? OR (a.experiment = ? AND a.ord > ?))"
	tieArgs := []any{c.Experiment, c.Experiment, c.Ord}
	if oneExp {
		tie, tieArgs = "a.ord > ?", []any{c.Ord}
	}
	if key == "" {
		return tie, tieArgs
	}
	if c.Sort == nil { // among the audits without a value, at the end
		return "(" + key + " IS NULL AND " + tie + ")", append(append([]any{}, keyArgs...), tieArgs...)
	}
	op := " > ?"
	if desc {
		op = " < ?"
	}
	var args []any
	args = append(args, keyArgs...)
	args = append(args, keyArgs...)
	args = append(args, c.Sort)
	args = append(args, keyArgs...)
	args = append(args, c.Sort)
	args = append(args, tieArgs...)
	return "(" + key + " IS NULL OR " + key + op + " OR (" + key + " = ? AND " + tie + "))", args
}

// ExportAudits reads the chunk of at most limit audits a filter selects
// that follows after (nil: the first chunk), with each audit's scores in
// the dimensions dims. DuckDB picks the scores out of each audit's JSON
// (decoding it into maps in Go was half the full demo export's time), and
// only for the chunk's audits.
func (s *Store) ExportAudits(ctx context.Context, f AuditFilter, after *model.AuditCursor, limit int, dims []string) (model.ExportChunk, error) {
	aq, err := s.withScoreSource(ctx, f)
	if err != nil {
		return model.ExportChunk{}, fmt.Errorf("data: export audits: %w", err)
	}
	aq.after = after
	// The cursor's sort value: the joined score (sort_score) for a score
	// sort, else the sort column itself (a.behavior, not the page's
	// coalesce of it).
	key, cursorCol := "NULL", "sort_key"
	if strings.HasPrefix(f.Sort, "score:") {
		cursorCol = "sort_score"
	} else if col, ok := auditSortColumns[f.Sort]; ok {
		key = col
	}
	q, args, err := aq.query("a.experiment AS experiment, a.ord AS ord, " + key + " AS sort_key")
	if err != nil {
		return model.ExportChunk{}, fmt.Errorf("data: export audits: %w", err)
	}
	order, _, err := aq.orderBy()
	if err != nil {
		return model.ExportChunk{}, fmt.Errorf("data: export audits: %w", err)
	}
	dir := " ASC"
	if f.Desc {
		dir = " DESC"
	}
	// The chunk's audits are chosen on narrow rows (sort values and key;
	// sorting the wide ones, summaries and scores included, took twice as
	// long), then joined to their columns. The scores are read for the
	// chunk alone, each audit's JSON once (a lambda over json_transform
	// would decode it once per dimension). The outer ORDER BY keeps the
	// chunk's order through the join.
	//
	// When every dimension has a score column the scores are read from
	// those columns: decoding a million audits' JSON took most of the
	// export's time.
	cols, err := s.scoreColumns(ctx, f.Experiment, dims)
	if err != nil {
		return model.ExportChunk{}, fmt.Errorf("data: export audits: %w", err)
	}
	var scores []string
	var scoreArgs []any
	for _, d := range dims {
		c, ok := cols[d]
		if !ok {
			scores = nil
			break
		}
		scores = append(scores, c.sql)
		scoreArgs = append(scoreArgs, c.args...)
	}
	var qargs []any
	if len(scores) > 0 {
		q = `SELECT ` + auditColumns + `, p.ord, p.sort_key, p.sort_score, list_value(` + strings.Join(scores, ", ") + `)
		FROM (` + q + order + ` LIMIT ?) p
		JOIN audits a ON a.experiment = p.experiment AND a.ord = p.ord
		LEFT JOIN auditors au ON au.experiment = a.experiment AND au.id = a.auditor
		ORDER BY p.` + cursorCol + dir + ` NULLS LAST, p.experiment, p.ord`
		qargs = append(append(scoreArgs, args...), limit)
	} else {
		q = `SELECT c.* EXCLUDE (m), list_transform(?::VARCHAR[], d -> c.m[d]) FROM (
		SELECT ` + auditColumns + `, p.ord, p.sort_key, p.sort_score, json_transform(a.scores, '"MAP(VARCHAR, DOUBLE)"') AS m
		FROM (` + q + order + ` LIMIT ?) p
		JOIN audits a ON a.experiment = p.experiment AND a.ord = p.ord
		LEFT JOIN auditors au ON au.experiment = a.experiment AND au.id = a.auditor) c
		ORDER BY c.` + cursorCol + dir + ` NULLS LAST, c.experiment, c.ord`
		qargs = append(append([]any{dims}, args...), limit)
	}
	rows, err := s.db.QueryContext(ctx, q, qargs...)
	if err != nil {
		return model.ExportChunk{}, fmt.Errorf("data: export audits: %w", err)
	}
	defer rows.Close()
	var out model.ExportChunk
	var last model.AuditCursor
	for rows.Next() {
		var r model.AuditRow
		var vals []any
		var sortKey any
		if err := rows.Scan(&r.Key, &r.Experiment, &r.ID, &r.Auditor, &r.AuditorName, &r.Eval, &r.Behavior, &r.Split, &r.Seed, &r.Target,
			&r.Turns, &r.Messages, &r.Detected, &r.FalsePositive, &r.Quality, &r.ProductionValue, &r.Summary, &r.Strategy,
			&last.Ord, &sortKey, &r.SortScore, &vals); err != nil {
			return model.ExportChunk{}, fmt.Errorf("data: export audits: %w", err)
		}
		last.Experiment, last.Sort = r.Experiment, sortKey
		if cursorCol == "sort_score" {
			last.Sort = nil
			if r.SortScore != nil {
				last.Sort = *r.SortScore
			}
		}
		sc := make([]float64, len(dims))
		for i := range sc {
			sc[i] = math.NaN()
			if i < len(vals) {
				if v, ok := vals[i].(float64); ok {
					sc[i] = v
				}
			}
		}
		out.Rows = append(out.Rows, r)
		out.Scores = append(out.Scores, sc)
	}
	if err := rows.Err(); err != nil {
		return model.ExportChunk{}, fmt.Errorf("data: export audits: %w", err)
	}
	if len(out.Rows) == limit {
		out.Next = &last
	}
	return out, nil
}
