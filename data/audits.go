package data

import (
	"context"
	"database/sql"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"sort"
	"strconv"
	"strings"

	"github.com/auditscope/auditscope/data/internal/load"
	"github.com/auditscope/auditscope/data/internal/scan"
	"github.com/auditscope/auditscope/data/internal/ztext"
	"github.com/auditscope/auditscope/data/model"
)

// CountAudits counts the audits a filter selects.
func (s *Store) CountAudits(ctx context.Context, f AuditFilter) (int, error) {
	aq, err := s.withScoreSource(ctx, f)
	if err != nil {
		return 0, fmt.Errorf("data: count audits: %w", err)
	}
	where, args, err := aq.where(false)
	if err != nil {
		return 0, fmt.Errorf("data: count audits: %w", err)
	}
	var n int
	err = s.db.QueryRowContext(ctx, "SELECT count(*) FROM audits a"+aq.auditorsJoin("")+where, args...).Scan(&n)
	if err != nil {
		return 0, fmt.Errorf("data: count audits: %w", err)
	}
	return n, nil
}

// ListAudits returns one page of the audits a filter selects; limit < 0
// returns them all (CSV export).
func (s *Store) ListAudits(ctx context.Context, f AuditFilter, offset, limit int) ([]AuditRow, error) {
	aq, err := s.withScoreSource(ctx, f)
	if err != nil {
		return nil, fmt.Errorf("data: list audits: %w", err)
	}
	q, args, err := aq.query(auditColumns)
	if err != nil {
		return nil, fmt.Errorf("data: list audits: %w", err)
	}
	order, _, err := aq.orderBy()
	if err != nil {
		return nil, fmt.Errorf("data: list audits: %w", err)
	}
	q += order
	if limit >= 0 {
		q += " LIMIT ? OFFSET ?"
		args = append(args, limit, offset)
	}
	return scan.All(ctx, s.db, "data: list audits", q, args, auditRowDest)
}

// auditRowDest are the destinations of an audit list row's columns
// (auditColumns).
func auditRowDest(r *AuditRow) []any {
	return []any{&r.Key, &r.Experiment, &r.ID, &r.Auditor, &r.AuditorName, &r.Eval, &r.Behavior, &r.Split, &r.Seed, &r.Target,
		&r.Turns, &r.Messages, &r.Detected, &r.FalsePositive, &r.Quality, &r.ProductionValue, &r.Summary, &r.Strategy, &r.SortScore}
}

// ListAuditsPage returns one page of the audits a filter selects: the first
// query orders the matches by their keys alone (narrow rows sort fast, and
// a top-N needs no more than the page in memory), the second fetches the
// page's rows by key. How many the filter selects is CountAudits, which
// does not depend on the sort or the page (the application keeps it): a
// count(*) OVER () in the first query made DuckDB hold every match before
// its top-N, a third of the page's time.
func (s *Store) ListAuditsPage(ctx context.Context, f AuditFilter, offset, limit int) ([]AuditRow, error) {
	aq, err := s.withScoreSource(ctx, f)
	if err != nil {
		return nil, fmt.Errorf("data: list audits: %w", err)
	}
	q, args, err := aq.query("a.key")
	if err != nil {
		return nil, fmt.Errorf("data: list audits: %w", err)
	}
	order, _, err := aq.orderBy()
	if err != nil {
		return nil, fmt.Errorf("data: list audits: %w", err)
	}
	rows, err := s.db.QueryContext(ctx, q+order+" LIMIT ? OFFSET ?", append(args, limit, offset)...)
	if err != nil {
		return nil, fmt.Errorf("data: list audits: %w", err)
	}
	var keys []string
	scores := map[string]*float64{}
	for rows.Next() {
		var k string
		var sortScore *float64
		if err := rows.Scan(&k, &sortScore); err != nil {
			rows.Close()
			return nil, fmt.Errorf("data: list audits: %w", err)
		}
		keys = append(keys, k)
		scores[k] = sortScore
	}
	rows.Close()
	if err := rows.Err(); err != nil {
		return nil, fmt.Errorf("data: list audits: %w", err)
	}
	// The first query has the page's sort scores already; fetching the rows
	// without the sort keeps the second from joining a whole dimension of
	// audit_scores again.
	page, err := s.auditsByKey(ctx, keys)
	for i := range page {
		page[i].SortScore = scores[page[i].Key]
	}
	return page, err
}

// auditsByKey fetches audit rows in the order of keys.
func (s *Store) auditsByKey(ctx context.Context, keys []string) ([]AuditRow, error) {
	if len(keys) == 0 {
		return nil, nil
	}
	q, args, err := auditQuery{}.query(auditColumns)
	if err != nil {
		return nil, fmt.Errorf("data: list audits: %w", err)
	}
	rows, err := s.db.QueryContext(ctx, q+" WHERE a.key IN (SELECT unnest(?::VARCHAR[]))", append(args, keys)...)
	if err != nil {
		return nil, fmt.Errorf("data: list audits: %w", err)
	}
	defer rows.Close()
	byKey := make(map[string]AuditRow, len(keys))
	for rows.Next() {
		var r AuditRow
		if err := rows.Scan(auditRowDest(&r)...); err != nil {
			return nil, fmt.Errorf("data: list audits: %w", err)
		}
		byKey[r.Key] = r
	}
	if err := rows.Err(); err != nil {
		return nil, fmt.Errorf("data: list audits: %w", err)
	}
	out := make([]AuditRow, 0, len(keys))
	for _, k := range keys {
		if r, ok := byKey[k]; ok {
			out = append(out, r)
		}
	}
	return out, nil
}

// Neighbors returns the keys of the audits before and after key in the
// filter's order ("" at the ends).
func (s *Store) Neighbors(ctx context.Context, f AuditFilter, key string) (prev, next string, err error) {
	aq, err := s.withScoreSource(ctx, f)
	if err != nil {
		return "", "", fmt.Errorf("data: neighbours: %w", err)
	}
	q, args, err := aq.query("a.key")
	if err != nil {
		return "", "", fmt.Errorf("data: neighbours: %w", err)
	}
	order, _, err := aq.orderBy()
	if err != nil {
		return "", "", fmt.Errorf("data: neighbours: %w", err)
	}
	q = `WITH ordered AS (SELECT key, lag(key) OVER w AS prev, lead(key) OVER w AS next FROM (` + q + order + `) WINDOW w AS ()) SELECT coalesce(prev, ''), coalesce(next, '') FROM ordered WHERE key = ?`
	err = s.db.QueryRowContext(ctx, q, append(args, key)...).Scan(&prev, &next)
	if errors.Is(err, sql.ErrNoRows) {
		return "", "", nil
	}
	if err != nil {
		return "", "", fmt.Errorf("data: neighbours: %w", err)
	}
	return prev, next, nil
}

// AuditDetail is model.AuditDetail.
type AuditDetail = model.AuditDetail

// Score is model.Score.
type Score = model.Score

// ResolveAuditKey turns a URL id into an audit key: "experiment:id" as is,
// or a bare audit id when exactly one experiment has it.
func (s *Store) ResolveAuditKey(ctx context.Context, id string) (string, error) {
	// A key (experiment:id) is looked up as such; an OR over both columns
	// would scan the whole table.
	if strings.Contains(id, ":") {
		var n int
		cond, args := keyCond(id)
		if err := s.db.QueryRowContext(ctx, `SELECT count(*) FROM audits a WHERE `+cond, args...).Scan(&n); err != nil {
			return "", fmt.Errorf("data: audit: %w", err)
		}
		if n == 1 {
			return id, nil
		}
	}
	var key sql.NullString
	var n int
	err := s.db.QueryRowContext(ctx, `SELECT min(key), count(*) FROM audits WHERE id = ?`, id).Scan(&key, &n)
	if err != nil && !errors.Is(err, sql.ErrNoRows) {
		return "", fmt.Errorf("data: audit: %w", err)
	}
	if n == 0 {
		return "", fmt.Errorf("audit %q: %w", id, ErrNotFound)
	}
	if n > 1 {
		var exact int
		cond, args := keyCond(id)
		if err := s.db.QueryRowContext(ctx, `SELECT count(*) FROM audits a WHERE `+cond, args...).Scan(&exact); err == nil && exact == 1 {
			return id, nil
		}
		return "", fmt.Errorf("audit id %q is in several experiments; use experiment:id: %w", id, ErrNotFound)
	}
	return key.String, nil
}

// Audit returns one audit by key.
func (s *Store) Audit(ctx context.Context, key string) (AuditDetail, error) {
	var d AuditDetail
	var labels, file sql.NullString
	var run sql.NullString
	cond, args := keyCond(key)
	err := s.db.QueryRowContext(ctx, "SELECT "+auditColumns+", NULL::DOUBLE, a.labels, a.transcript_file, a.transcript_bytes, au.run FROM audits a LEFT JOIN auditors au ON au.experiment = a.experiment AND au.id = a.auditor WHERE "+cond, args...).
		Scan(&d.Key, &d.Experiment, &d.ID, &d.Auditor, &d.AuditorName, &d.Eval, &d.Behavior, &d.Split, &d.Seed, &d.Target,
			&d.Turns, &d.Messages, &d.Detected, &d.FalsePositive, &d.Quality, &d.ProductionValue, &d.Summary, &d.Strategy, &d.SortScore,
			&labels, &file, &d.Bytes, &run)
	if errors.Is(err, sql.ErrNoRows) {
		return d, fmt.Errorf("audit %q: %w", key, ErrNotFound)
	}
	if err != nil {
		return d, fmt.Errorf("data: audit: %w", err)
	}
	d.Labels, d.TranscriptFile, d.RunID = labels.String, file.String, run.String
	m, err := s.auditScores(ctx, d.Experiment, d.ID)
	if err != nil {
		return d, fmt.Errorf("data: audit scores: %w", err)
	}
	if len(m) > 0 {
		for dim, v := range m {
			d.Scores = append(d.Scores, Score{Dimension: dim, Value: v})
		}
		sort.Slice(d.Scores, func(i, j int) bool {
			if d.Scores[i].Value != d.Scores[j].Value {
				return d.Scores[i].Value > d.Scores[j].Value
			}
			return d.Scores[i].Dimension < d.Scores[j].Dimension
		})
	}
	return d, nil
}

// keyCond is the condition "a.key = key" with the ids the key can end in
// beside it: a key is its experiment's id, ":" and the audit's id, so the
// audit's id is what follows one of its colons. DuckDB skips the row
// groups whose ids cannot match; the keys of one experiment share a prefix
// longer than the eight bytes its statistics keep of a string, so on the
// key alone it read every row (at a million audits 7–18 ms against 1–3).
func keyCond(key string) (string, []any) {
	args := []any{key}
	ph := ""
	for i := range len(key) {
		if key[i] == ':' {
			args = append(args, key[i+1:])
			ph += ", ?"
		}
	}
	if ph == "" {
		return "a.key = ?", args
	}
	return "a.key = ? AND a.id IN (" + ph[2:] + ")", args
}

// auditScores reads one audit's scores by dimension. When each of its
// experiment's dimensions has a score column they are read from those: the
// scores' JSON, the other way, was the larger part of an audit page's time
// at a million audits (DuckDB decompresses the 2,048 JSON objects of a
// vector to return one: 9–22 ms against 5–12 for the columns). The slots
// are read as rows and checked here: a GROUP BY over the few rows of
// experiment_dimensions took DuckDB 12 ms.
func (s *Store) auditScores(ctx context.Context, exp, id string) (map[string]float64, error) {
	rows, err := s.db.QueryContext(ctx, `SELECT dimension, slot FROM experiment_dimensions WHERE experiment = ?`, exp)
	if err != nil {
		return nil, err
	}
	slots := map[string]int{}
	slotted := true // every row of every dimension has the same slot
	for rows.Next() {
		var d string
		var slot sql.NullInt16
		if err := rows.Scan(&d, &slot); err != nil {
			rows.Close()
			return nil, err
		}
		prev, seen := slots[d]
		if !slot.Valid || slot.Int16 < 0 || int(slot.Int16) >= load.ScoreSlots || (seen && prev != int(slot.Int16)) {
			slotted = false
		}
		slots[d] = int(slot.Int16)
	}
	rows.Close()
	if err := rows.Err(); err != nil {
		return nil, err
	}
	if !slotted {
		// Some dimension has no column (or the database predates them):
		// the JSON holds every score.
		var scores sql.NullString
		err := s.db.QueryRowContext(ctx, `SELECT a.scores FROM audits a WHERE a.experiment = ? AND a.id = ?`, exp, id).Scan(&scores)
		if err != nil || !scores.Valid {
			return nil, err
		}
		var m map[string]float64
		if err := json.Unmarshal([]byte(scores.String), &m); err != nil {
			return nil, err
		}
		return m, nil
	}
	if len(slots) == 0 {
		return nil, nil
	}
	vals := make([]sql.NullFloat64, load.ScoreSlots)
	ptrs := make([]any, len(vals))
	cols := make([]string, len(vals))
	for i := range vals {
		ptrs[i] = &vals[i]
		cols[i] = "a.score_" + strconv.Itoa(i)
	}
	err = s.db.QueryRowContext(ctx, `SELECT `+strings.Join(cols, ", ")+` FROM audits a WHERE a.experiment = ? AND a.id = ?`, exp, id).Scan(ptrs...)
	if err != nil {
		return nil, err
	}
	m := map[string]float64{}
	for d, slot := range slots {
		if v := vals[slot]; v.Valid {
			m[d] = v.Float64
		}
	}
	return m, nil
}

// Transcript returns an audit's transcript JSON: as imported, from the
// in-memory source of the built-in demo, or read from its source file. A
// source file that moved or vanished gives an *model.InputError saying so.
func (s *Store) Transcript(ctx context.Context, experiment, audit string) ([]byte, error) {
	var file sql.NullString
	err := s.db.QueryRowContext(ctx, `SELECT transcript_file FROM audits WHERE experiment = ? AND id = ?`, experiment, audit).Scan(&file)
	if errors.Is(err, sql.ErrNoRows) {
		return nil, fmt.Errorf("audit %s:%s: %w", experiment, audit, ErrNotFound)
	}
	if err != nil {
		return nil, fmt.Errorf("data: transcript: %w", err)
	}
	return s.transcript(ctx, experiment, audit, file)
}

// TranscriptOfKey is Transcript for the audit with the key given: an audit
// page can read its transcript as soon as it has the key, beside the
// audit's row.
func (s *Store) TranscriptOfKey(ctx context.Context, key string) ([]byte, error) {
	var exp, audit string
	var file sql.NullString
	cond, args := keyCond(key)
	err := s.db.QueryRowContext(ctx, `SELECT a.experiment, a.id, a.transcript_file FROM audits a WHERE `+cond, args...).Scan(&exp, &audit, &file)
	if errors.Is(err, sql.ErrNoRows) {
		return nil, fmt.Errorf("audit %q: %w", key, ErrNotFound)
	}
	if err != nil {
		return nil, fmt.Errorf("data: transcript: %w", err)
	}
	return s.transcript(ctx, exp, audit, file)
}

// transcript reads the transcript of an audit whose transcript_file is
// file.
func (s *Store) transcript(ctx context.Context, experiment, audit string, file sql.NullString) ([]byte, error) {
	switch {
	case file.String == load.MemoryTranscript:
		s.mu.RLock()
		src := s.transcripts[experiment]
		s.mu.RUnlock()
		if src == nil {
			return nil, fmt.Errorf("transcript of %s:%s was generated in memory by an earlier process: %w", experiment, audit, ErrNotFound)
		}
		return src(audit)
	case file.Valid:
		b, err := os.ReadFile(file.String)
		if err != nil {
			return nil, &model.InputError{File: file.String, Offset: -1, Msg: "the transcript's source file cannot be read (moved or deleted?): " + err.Error()}
		}
		return b, nil
	}
	var body sql.NullString
	var z []byte
	err := s.db.QueryRowContext(ctx, `SELECT json, zjson FROM audit_transcripts WHERE experiment = ? AND audit = ?`, experiment, audit).Scan(&body, &z)
	if errors.Is(err, sql.ErrNoRows) {
		return nil, fmt.Errorf("transcript of %s:%s: %w", experiment, audit, ErrNotFound)
	}
	if err != nil {
		return nil, fmt.Errorf("data: transcript: %w", err)
	}
	if z != nil {
		b, err := ztext.Decompress(z)
		if err != nil {
			return nil, fmt.Errorf("data: transcript of %s:%s: %w", experiment, audit, err)
		}
		return b, nil
	}
	return []byte(body.String), nil
}

// ScoreDimensions lists the judge dimensions used in an experiment (all
// experiments when exp is "").
func (s *Store) ScoreDimensions(ctx context.Context, exp string) ([]string, error) {
	q := `SELECT DISTINCT dimension FROM experiment_dimensions WHERE ? = '' OR experiment = ? ORDER BY dimension`
	return scan.All(ctx, s.db, "data: dimensions", q, []any{exp, exp}, func(d *string) []any { return []any{d} })
}

// scorePath is the JSON path of a dimension in audits.scores.
func scorePath(dim string) string { return `$."` + dim + `"` }

// withScoreSource sets where a filter reads judge scores from: the
// audits' score columns for the dimensions that have them, else the JSON
// on each audit while the experiment's audit_scores is still being built,
// else audit_scores.
func (s *Store) withScoreSource(ctx context.Context, f AuditFilter) (auditQuery, error) {
	s.mu.RLock()
	q := auditQuery{AuditFilter: f}
	if f.Experiment == "" {
		q.jsonScores = len(s.pendingScores) > 0
	} else {
		q.jsonScores = s.pendingScores[f.Experiment]
	}
	s.mu.RUnlock()
	var dims []string
	for _, c := range f.Scores {
		dims = append(dims, c.Dimension)
	}
	if d, ok := strings.CutPrefix(f.Sort, "score:"); ok {
		dims = append(dims, d)
	}
	var err error
	q.cols, err = s.scoreColumnsOf(ctx, f, dims)
	return q, err
}

// scoreCol is an SQL expression that reads one judge dimension's score of
// an audit a from the score columns, with its arguments.
type scoreCol struct {
	sql  string
	args []any
}

// scoreColumns finds the score columns of dims in experiment exp (all
// experiments when ""): a dimension is read from its column when it has
// one on every row of experiment_dimensions of every experiment that has
// it (imports since migration 009). Across experiments the same dimension
// may have different columns, and one experiment's column may hold another
// dimension, so the expression picks the column by experiment. A
// dimension no experiment has is NULL for every audit.
func (s *Store) scoreColumns(ctx context.Context, exp string, dims []string) (map[string]scoreCol, error) {
	if len(dims) == 0 {
		return nil, nil
	}
	rows, err := s.db.QueryContext(ctx, `SELECT dimension, experiment,
		CASE WHEN count(slot) = count(*) AND min(slot) = max(slot) THEN min(slot) END
		FROM experiment_dimensions WHERE dimension IN (SELECT unnest(?::VARCHAR[])) AND (? = '' OR experiment = ?)
		GROUP BY dimension, experiment ORDER BY dimension, experiment`, dims, exp, exp)
	if err != nil {
		return nil, fmt.Errorf("score columns: %w", err)
	}
	defer rows.Close()
	type expSlot struct {
		exp  string
		slot sql.NullInt16
	}
	found := map[string][]expSlot{}
	for rows.Next() {
		var d string
		var e expSlot
		if err := rows.Scan(&d, &e.exp, &e.slot); err != nil {
			return nil, fmt.Errorf("score columns: %w", err)
		}
		found[d] = append(found[d], e)
	}
	if err := rows.Err(); err != nil {
		return nil, fmt.Errorf("score columns: %w", err)
	}
	out := make(map[string]scoreCol, len(dims))
dims:
	for _, d := range dims {
		es := found[d]
		if len(es) == 0 {
			out[d] = scoreCol{sql: "NULL::DOUBLE"}
			continue
		}
		var c scoreCol
		for _, e := range es {
			if !e.slot.Valid {
				continue dims // read from audit_scores or the JSON
			}
			// The column's name is made of a number the store wrote.
			col := "a.score_" + strconv.Itoa(int(e.slot.Int16))
			if exp != "" {
				c.sql = col
				break
			}
			c.sql += " WHEN ? THEN " + col
			c.args = append(c.args, e.exp)
		}
		if exp == "" {
			c.sql = "(CASE a.experiment" + c.sql + " END)"
		}
		out[d] = c
	}
	return out, nil
}

// AuditScores returns the judge scores of the given audits, by audit key
// and dimension: the score columns of one page of the audit browser, or one
// chunk of its CSV export.
func (s *Store) AuditScores(ctx context.Context, keys []string) (map[string]map[string]float64, error) {
	out := make(map[string]map[string]float64, len(keys))
	if len(keys) == 0 {
		return out, nil
	}
	rows, err := s.db.QueryContext(ctx, `SELECT key, scores FROM audits WHERE key IN (SELECT unnest(?::VARCHAR[])) AND scores IS NOT NULL`, keys)
	if err != nil {
		return nil, fmt.Errorf("data: audit scores: %w", err)
	}
	defer rows.Close()
	for rows.Next() {
		var key, raw string
		if err := rows.Scan(&key, &raw); err != nil {
			return nil, fmt.Errorf("data: audit scores: %w", err)
		}
		var m map[string]float64
		if err := json.Unmarshal([]byte(raw), &m); err != nil {
			return nil, fmt.Errorf("data: audit scores of %s: %w", key, err)
		}
		out[key] = m
	}
	return out, rows.Err()
}

// AuditChoices lists what the audit browser's id filters can take, in one
// experiment or (exp "") in all: the pickers offer them by name.
func (s *Store) AuditChoices(ctx context.Context, exp string) (model.AuditChoices, error) {
	var out model.AuditChoices
	for _, q := range []struct {
		dst *[]model.Choice
		sql string
	}{
		{&out.Auditors, `SELECT DISTINCT id, name FROM auditors WHERE ? = '' OR experiment = ? ORDER BY name, id`},
		{&out.Runs, `SELECT DISTINCT id, name FROM runs WHERE ? = '' OR experiment = ? ORDER BY name, id`},
		{&out.Behaviors, `SELECT DISTINCT id, description FROM behaviors WHERE ? = '' OR experiment = ? ORDER BY id`},
		{&out.Targets, `SELECT DISTINCT target, target FROM audits WHERE ? = '' OR experiment = ? ORDER BY target`},
		{&out.Evals, `SELECT DISTINCT eval, eval FROM audits WHERE eval <> '' AND (? = '' OR experiment = ?) ORDER BY eval`},
	} {
		rows, err := s.db.QueryContext(ctx, q.sql, exp, exp)
		if err != nil {
			return out, fmt.Errorf("data: audit choices: %w", err)
		}
		for rows.Next() {
			var c model.Choice
			if err := rows.Scan(&c.Value, &c.Label); err != nil {
				rows.Close()
				return out, fmt.Errorf("data: audit choices: %w", err)
			}
			*q.dst = append(*q.dst, c)
		}
		rows.Close()
		if err := rows.Err(); err != nil {
			return out, fmt.Errorf("data: audit choices: %w", err)
		}
	}
	return out, nil
}
