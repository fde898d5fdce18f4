package data

import (
	"context"
	"errors"
	"fmt"
	"math"
	"slices"
	"strings"

	"github.com/auditscope/auditscope/data/internal/exportsql"
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

// ExportAudits reads the chunk of at most limit audits a filter selects
// that follows after (nil: the first chunk), with each audit's scores in
// the dimensions dims, read by DuckDB for the chunk's audits alone (from
// the score columns, or each audit's JSON: decoding it into maps in Go was
// half the full demo export's time).
func (s *Store) ExportAudits(ctx context.Context, f AuditFilter, after *model.AuditCursor, limit int, dims []string) (model.ExportChunk, error) {
	aq, err := s.withScoreSource(ctx, f)
	if err != nil {
		return model.ExportChunk{}, fmt.Errorf("data: export audits: %w", err)
	}
	until, err := s.chunkRange(ctx, f, &aq, after, limit)
	if err != nil {
		return model.ExportChunk{}, fmt.Errorf("data: export audits: %w", err)
	}
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
	// The scores are read for the chunk alone: from the score columns when
	// every dimension has one (decoding a million audits' JSON took most
	// of the export's time), else each audit's JSON once (a lambda over
	// json_transform would decode it once per dimension).
	cols, err := s.scoreColumnsOf(ctx, f, dims)
	if err != nil {
		return model.ExportChunk{}, fmt.Errorf("data: export audits: %w", err)
	}
	scores, scoreArgs := scoreSQL(cols, dims)
	// src is the chunk's audits with their columns and extra, which adds
	// the scores' columns (as c.*, with the arguments extraArgs): by the
	// keyset, the chunk's audits are chosen on narrow rows (sort values
	// and key; sorting the wide ones, summaries and scores included, took
	// twice as long), then joined to their columns; in a range of ord
	// (file order) they are read at once.
	//
	// A range is read without an ORDER BY when nothing joins the audits to
	// another table: DuckDB then returns them in the order they were
	// stored (preserve_insertion_order), which for one experiment is the
	// order of ord, and sorting a chunk's wide rows was a third of its
	// query. A join may return them out of that order, so the auditors'
	// names are then looked up here (names) instead of joined; a filter
	// by run or epoch needs the join, and its ranges stay sorted. readChunk
	// checks the order; a range that does not come as stored is read again
	// sorted.
	var names map[string]string
	if aq.upto != nil && aq.auditorsJoin("") == "" {
		if names, err = s.auditorNames(ctx, f.Experiment); err != nil {
			return model.ExportChunk{}, fmt.Errorf("data: export audits: %w", err)
		}
	}
	src := func(extra string, extraArgs []any) (string, []any, error) {
		if aq.upto != nil {
			wideCols := auditColumns
			if names != nil {
				wideCols = auditorIDColumns
			}
			wide, wargs, err := aq.query(wideCols + ", a.ord AS ord, NULL AS sort_key, " + extra)
			return wide, append(extraArgs, wargs...), err
		}
		return `SELECT ` + auditColumns + `, p.ord, p.sort_key, p.sort_score, ` + extra + `
			FROM (` + q + order + ` LIMIT ?) p
			JOIN audits a ON a.experiment = p.experiment AND a.ord = p.ord
			LEFT JOIN auditors au ON au.experiment = a.experiment AND au.id = a.auditor`, append(append(extraArgs, args...), limit), nil
	}
	q, qargs, err := exportsql.ChunkScores(scores, scoreArgs, len(dims), dims, src)
	if err != nil {
		return model.ExportChunk{}, fmt.Errorf("data: export audits: %w", err)
	}
	out, last, err := s.readExport(ctx, q, qargs, cursorCol, dir, aq.upto != nil, limit, len(dims), names)
	if err != nil {
		return model.ExportChunk{}, fmt.Errorf("data: export audits: %w", err)
	}
	switch {
	case len(out.Rows) == limit:
		last.Until = until
		out.Next = &last
	case len(until) > 0: // the range is read; the next starts past it
		out.Next = &model.AuditCursor{Experiment: f.Experiment, Ord: until[0], Until: until[1:]}
	}
	return out, nil
}

// chunkRange sets where aq's chunk starts (after the cursor after) and,
// for a range of ord, where it ends; it returns until, where this chunk
// and the ones after it end.
func (s *Store) chunkRange(ctx context.Context, f AuditFilter, aq *auditQuery, after *model.AuditCursor, limit int) (until []int64, err error) {
	// In file order in one experiment, the chunks end at ords found once,
	// at the first chunk: every limit-th audit's (exportBounds). A chunk is
	// then the audits of a range of ord, which DuckDB reads from the row
	// groups that hold it. The keyset alone has it sort every audit past
	// the cursor for each chunk (DuckDB keeps a top-N only for a limit
	// under 0.7% of the rows): 28 → 3 ms a chunk at a million audits.
	if after != nil {
		until = after.Until
	} else if f.Experiment != "" && f.Sort == "" {
		if until, err = s.exportBounds(ctx, *aq, limit); err != nil {
			return nil, err
		}
		if len(until) > 0 {
			after = &model.AuditCursor{Experiment: f.Experiment, Ord: math.MinInt64}
		}
	}
	for len(until) > 0 && until[0] <= after.Ord {
		until = until[1:]
	}
	if len(until) > 0 {
		aq.upto = &until[0]
	}
	aq.after = after
	return until, nil
}

// scoreSQL is the SQL of the score columns of dims (cols), with their
// arguments; no SQL when a dimension has no column.
func scoreSQL(cols map[string]scoreCol, dims []string) (scores []string, scoreArgs []any) {
	for _, d := range dims {
		c, ok := cols[d]
		if !ok {
			scores = nil
			break
		}
		scores = append(scores, c.sql)
		scoreArgs = append(scoreArgs, c.args...)
	}
	return scores, scoreArgs
}

// readExport runs the chunk's query q (ChunkScores') and reads its rows
// (readChunk), sorted by the cursor's column cursorCol in the direction
// dir, or, from a range of ord (ranged) read without the auditors joined
// (names set), as stored.
func (s *Store) readExport(ctx context.Context, q string, qargs []any, cursorCol, dir string, ranged bool, limit, n int, names map[string]string) (out model.ExportChunk, last model.AuditCursor, err error) {
	// The outer ORDER BY keeps the chunk's order through the join.
	sorted := ` ORDER BY c.` + cursorCol + dir + ` NULLS LAST, c.experiment, c.ord`
	byScore := cursorCol == "sort_score"
	switch {
	case !ranged:
		out, last, err = s.readChunk(ctx, q+sorted, qargs, limit, n, byScore, nil, false)
	case names == nil:
		out, last, err = s.readChunk(ctx, q+sorted+` LIMIT ?`, append(qargs, limit), limit, n, byScore, nil, false)
	default:
		// A range holds one chunk's audits, unless they changed since its
		// bounds were found: one more is asked for, to tell.
		out, last, err = s.readChunk(ctx, q+` LIMIT ?`, append(slices.Clip(qargs), limit+1), limit, n, byScore, names, true)
		if errors.Is(err, errNotAsStored) {
			out, last, err = s.readChunk(ctx, q+sorted+` LIMIT ?`, append(qargs, limit), limit, n, byScore, names, false)
		}
	}
	return out, last, err
}

// auditorIDColumns are auditColumns with the auditor's id in place of its
// name (coalesce(au.name, a.auditor)), for a query without the auditors.
const auditorIDColumns = `a.key, a.experiment, a.id, a.auditor, a.auditor, ` + auditColumnsAfterName

// auditorNames returns the names of an experiment's auditors that have
// one, by id.
func (s *Store) auditorNames(ctx context.Context, exp string) (map[string]string, error) {
	rows, err := s.db.QueryContext(ctx, `SELECT id, name FROM auditors WHERE experiment = ? AND name IS NOT NULL`, exp)
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	names := map[string]string{}
	for rows.Next() {
		var id, name string
		if err := rows.Scan(&id, &name); err != nil {
			return nil, err
		}
		names[id] = name
	}
	return names, rows.Err()
}

// errNotAsStored is a range of ord read in storage order whose rows did
// not come in the order of ord, or were more than a chunk (readChunk).
var errNotAsStored = errors.New("the range's rows are not one chunk in the order of ord")

// readChunk runs an export chunk's query q and reads its rows: the audits,
// each with its scores packed (n of them) or as a list, and the cursor of
// the last. byScore says the cursor's sort value is the row's sort score;
// names, when not nil, are the auditors' names by id (auditorNames): q
// reads each audit's auditor id in place of its name (auditorIDColumns).
// checkOrder says q has no ORDER BY and its rows must come in the order of
// ord, at most limit of them (with more, its LIMIT may have left out
// audits of the range that come before the ones it kept), else
// errNotAsStored.
func (s *Store) readChunk(ctx context.Context, q string, args []any, limit, n int, byScore bool, names map[string]string, checkOrder bool) (model.ExportChunk, model.AuditCursor, error) {
	var out model.ExportChunk
	var last model.AuditCursor
	rows, err := s.db.QueryContext(ctx, q, args...)
	if err != nil {
		return out, last, err
	}
	defer rows.Close()
	// A range's slices have room for its chunk at once (growing them by
	// appends was a tenth of its reading); others', which may hold a few
	// audits, grow.
	size := min(limit, 1024)
	if checkOrder {
		size = limit
	}
	out.Rows, out.Scores, out.Packed = make([]model.AuditRow, 0, size), make([][]float64, 0, size), make([][]int64, 0, size)
	// The nullable columns are scanned by nullable's type switch, and
	// point into arrays of one allocation each: database/sql scans a
	// pointer by reflection, allocating each value.
	detected, fp := make([]bool, 0, size), make([]bool, 0, size)
	quality, production, sortScore := make([]float64, 0, size), make([]float64, 0, size), make([]float64, 0, size)
	var r model.AuditRow
	var list any // NULL when the row's scores are packed
	var packed bool
	var sortKey any
	var d, f nullable[bool]
	var qv, pv, ss nullable[float64]
	packs := make([]int64, (n+perPack-1)/perPack)
	// The rows' packed scores share one array (a new one when it fills).
	flat := make([]int64, 0, size*len(packs))
	dest := []any{&r.Key, &r.Experiment, &r.ID, &r.Auditor, &r.AuditorName, &r.Eval, &r.Behavior, &r.Split, &r.Seed, &r.Target,
		&r.Turns, &r.Messages, &d, &f, &qv, &pv, &r.Summary, &r.Strategy,
		&last.Ord, &sortKey, &ss, &packed}
	for i := range packs {
		dest = append(dest, zeroIfNull{&packs[i]})
	}
	dest = append(dest, &list)
	prev := int64(math.MinInt64)
	for rows.Next() {
		r, list = model.AuditRow{}, nil
		if err := rows.Scan(dest...); err != nil {
			return out, last, err
		}
		if checkOrder {
			if last.Ord <= prev || len(out.Rows) == limit {
				return out, last, errNotAsStored
			}
			prev = last.Ord
		}
		if names != nil {
			if name, ok := names[r.AuditorName]; ok {
				r.AuditorName = name
			}
		}
		r.Detected, detected = d.point(detected)
		r.FalsePositive, fp = f.point(fp)
		r.Quality, quality = qv.point(quality)
		r.ProductionValue, production = pv.point(production)
		r.SortScore, sortScore = ss.point(sortScore)
		last.Experiment, last.Sort = r.Experiment, sortKey
		if byScore {
			last.Sort = nil
			if r.SortScore != nil {
				last.Sort = *r.SortScore
			}
		}
		out.Rows = append(out.Rows, r)
		if packed {
			out.Scores = append(out.Scores, nil)
			if len(flat)+len(packs) > cap(flat) {
				flat = make([]int64, 0, max(cap(flat), 1024*len(packs)))
			}
			flat = append(flat, packs...)
			out.Packed = append(out.Packed, flat[len(flat)-len(packs):len(flat):len(flat)])
			continue
		}
		vals, _ := list.([]any)
		sc := make([]float64, n)
		for i := range sc {
			sc[i] = math.NaN()
			if i < len(vals) {
				if v, ok := vals[i].(float64); ok {
					sc[i] = v
				}
			}
		}
		out.Scores = append(out.Scores, sc)
		out.Packed = append(out.Packed, nil)
	}
	return out, last, rows.Err()
}

// nullable scans a nullable column of type T (as the driver gives it)
// without reflection.
type nullable[T bool | float64] struct {
	v     T
	valid bool
}

func (n *nullable[T]) Scan(v any) error {
	switch v := v.(type) {
	case nil:
		n.valid = false
	case T:
		n.v, n.valid = v, true
	default:
		var want T
		return fmt.Errorf("a nullable column is %T, want %T", v, want)
	}
	return nil
}

// point returns a pointer to the value, appended to arr, or nil for NULL.
// A full arr is not grown but followed by a new array, so the pointers
// into it stay where they are.
func (n *nullable[T]) point(arr []T) (*T, []T) {
	if !n.valid {
		return nil, arr
	}
	if len(arr) == cap(arr) {
		arr = make([]T, 0, max(cap(arr), 1024))
	}
	arr = append(arr, n.v)
	return &arr[len(arr)-1], arr
}

// perPack is how many scores a BIGINT of an export's chunk holds.
const perPack = exportsql.PerPack

// zeroIfNull scans a BIGINT into p, NULL as 0.
type zeroIfNull struct{ p *int64 }

func (z zeroIfNull) Scan(v any) error {
	switch v := v.(type) {
	case nil:
		*z.p = 0
	case int64:
		*z.p = v
	default:
		return fmt.Errorf("a packed score is %T, want int64", v)
	}
	return nil
}

// exportBounds returns the ord of every limit-th audit a filter of one
// experiment in file order selects, in order: where its export's chunks
// end. The last chunk has no end; it reads what is left.
func (s *Store) exportBounds(ctx context.Context, aq auditQuery, limit int) ([]int64, error) {
	q, args, err := aq.query("a.ord AS ord")
	if err != nil {
		return nil, err
	}
	rows, err := s.db.QueryContext(ctx, `SELECT ord FROM (SELECT ord, row_number() OVER (ORDER BY ord) AS n FROM (`+q+`))
		WHERE n % ? = 0 ORDER BY ord`, append(args, limit)...)
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	var out []int64
	for rows.Next() {
		var o int64
		if err := rows.Scan(&o); err != nil {
			return nil, err
		}
		out = append(out, o)
	}
	return out, rows.Err()
}
