// Package verdictquery holds the store's reads of other judges' verdicts
// (issue #51): the judges of an experiment, their scores and outcomes, and
// their verdicts on one audit. The store embeds its Verdicts, so they are
// the store's methods; they live here so that the store's root package
// keeps to its own jobs (issue #52).
package verdictquery

import (
	"context"
	"database/sql"
	"fmt"
	"math"

	"github.com/auditscope/auditscope/data/model"
)

// Verdicts reads from the store's database.
type Verdicts struct {
	db     *sql.DB
	scores ScoreSource
}

// ScoreCol is an SQL expression that reads one dimension's score of an
// audit a from its score columns, with its arguments.
type ScoreCol struct {
	SQL  string
	Args []any
}

// ScoreSource says where the evaluation judge's scores of dims are on
// exp's audits: the score columns of those that have one, and whether the
// others are still only in the audits' JSON (audit_scores being built).
type ScoreSource func(ctx context.Context, exp string, dims []string) (map[string]ScoreCol, bool, error)

// New is a Verdicts of db, the evaluation judge's scores found by scores.
func New(db *sql.DB, scores ScoreSource) Verdicts { return Verdicts{db: db, scores: scores} }

// eachRow runs query and calls scan on each row.
func (s Verdicts) eachRow(ctx context.Context, query string, scan func(*sql.Rows) error, args ...any) error {
	rows, err := s.db.QueryContext(ctx, query, args...)
	if err != nil {
		return fmt.Errorf("data: %w", err)
	}
	defer rows.Close()
	for rows.Next() {
		if err := scan(rows); err != nil {
			return fmt.Errorf("data: %w", err)
		}
	}
	return rows.Err()
}

// Judges lists the judges of exp's audits besides the evaluation judge
// (the one they were imported with), by name.
func (s Verdicts) Judges(ctx context.Context, exp string) ([]model.JudgeInfo, error) {
	var out []model.JudgeInfo
	// Each table grouped once by judge (a subquery a judge read its scores
	// twice over).
	err := s.eachRow(ctx, `WITH v AS (SELECT judge, min(kind) AS kind, count(*) AS n FROM verdicts WHERE experiment = ? GROUP BY judge),
		d AS (SELECT judge, list(DISTINCT dimension ORDER BY dimension) AS dims FROM verdict_scores WHERE experiment = ? GROUP BY judge),
		o AS (SELECT judge, count(*) AS n FROM verdict_outcomes WHERE experiment = ? GROUP BY judge)
		SELECT v.judge, v.kind, v.n, coalesce(d.dims, []::VARCHAR[]), coalesce(o.n, 0) FROM v LEFT JOIN d USING (judge) LEFT JOIN o USING (judge) ORDER BY v.judge`, func(r *sql.Rows) error {
		var j model.JudgeInfo
		var dims []any
		if err := r.Scan(&j.Name, &j.Kind, &j.Audits, &dims, &j.Outcomes); err != nil {
			return err
		}
		for _, d := range dims {
			if d, ok := d.(string); ok {
				j.Dimensions = append(j.Dimensions, d)
			}
		}
		out = append(out, j)
		return nil
	}, exp, exp, exp)
	return out, err
}

// JudgeScores reads a judge's scores on exp's audits, in the order of its
// dimensions.
func (s Verdicts) JudgeScores(ctx context.Context, exp string, j model.JudgeInfo) (model.JudgeScores, error) {
	out := model.JudgeScores{JudgeInfo: j, Scores: make(map[string][]float64, j.Audits)}
	at := make(map[string]int, len(j.Dimensions))
	for i, d := range j.Dimensions {
		at[d] = i
	}
	// A row per audit, its scores as lists: a row per score was most of
	// the judges page's read at 100,000 audits.
	err := s.eachRow(ctx, `SELECT audit, list(dimension), list(score) FROM verdict_scores WHERE experiment = ? AND judge = ? GROUP BY audit`, func(r *sql.Rows) error {
		var audit string
		var dims, vals []any
		if err := r.Scan(&audit, &dims, &vals); err != nil {
			return err
		}
		row := make([]float64, len(j.Dimensions))
		for i := range row {
			row[i] = math.NaN()
		}
		for k, d := range dims {
			i, ok := at[fmt.Sprint(d)]
			if v, isNum := vals[k].(float64); ok && isNum {
				row[i] = v
			}
		}
		out.Scores[audit] = row
		return nil
	}, exp, j.Name)
	return out, err
}

// AuditVerdicts are the other judges' verdicts on one audit, by judge.
func (s Verdicts) AuditVerdicts(ctx context.Context, exp, audit string) ([]model.Verdict, error) {
	var out []model.Verdict
	err := s.eachRow(ctx, `SELECT v.judge, v.kind, v.summary, v.source, o.audit IS NOT NULL, o.detected, o.false_positive, o.quality, o.production_value
		FROM verdicts v LEFT JOIN verdict_outcomes o ON o.experiment = v.experiment AND o.audit = v.audit AND o.judge = v.judge
		WHERE v.experiment = ? AND v.audit = ? ORDER BY v.judge`, func(r *sql.Rows) error {
		v := model.Verdict{Audit: audit, Scores: map[string]float64{}}
		var has bool
		var o model.Outcome
		err := r.Scan(&v.Judge, &v.Kind, &v.Summary, &v.File, &has, &o.Detected, &o.FalsePositive, &o.Quality, &o.ProductionValue)
		if has {
			v.Outcome = &o
		}
		out = append(out, v)
		return err
	}, exp, audit)
	if err != nil {
		return nil, err
	}
	err = s.eachRow(ctx, `SELECT judge, dimension, score FROM verdict_scores WHERE experiment = ? AND audit = ?`, func(r *sql.Rows) error {
		var j, d string
		var x float64
		if err := r.Scan(&j, &d, &x); err != nil {
			return err
		}
		for i := range out {
			if out[i].Judge == j {
				out[i].Scores[d] = x
			}
		}
		return nil
	}, exp, audit)
	return out, err
}

// VerdictScores reads a judge's scores of the audits keys (experiment:id),
// by key and dimension: the audit list's score columns under that judge.
func (s Verdicts) VerdictScores(ctx context.Context, keys []string, judge string) (map[string]map[string]float64, error) {
	out := make(map[string]map[string]float64, len(keys))
	if len(keys) == 0 {
		return out, nil
	}
	err := s.eachRow(ctx, `SELECT a.key, v.dimension, v.score FROM audits a JOIN verdict_scores v ON v.experiment = a.experiment AND v.audit = a.id
		WHERE a.key IN (SELECT unnest(?::VARCHAR[])) AND v.judge = ?`, func(r *sql.Rows) error {
		var key, dim string
		var x float64
		if err := r.Scan(&key, &dim, &x); err != nil {
			return err
		}
		if out[key] == nil {
			out[key] = map[string]float64{}
		}
		out[key][dim] = x
		return nil
	}, keys, judge)
	return out, err
}

// EvalAuditsUnder is EvalAudits with another judge's outcomes: each audit
// that judge gave an outcome for, in file order, its outcome fields the
// judge's (verdict_outcomes) instead of the evaluation judge's. Audits it
// gave none for are left out: a statistic under a judge reads only what
// that judge judged.
func (s Verdicts) EvalAuditsUnder(ctx context.Context, exp, judge string) ([]model.EvalAudit, error) {
	var out []model.EvalAudit
	intern := map[string]string{}
	one := func(s string) string {
		if v, ok := intern[s]; ok {
			return v
		}
		intern[s] = s
		return s
	}
	err := s.eachRow(ctx, `SELECT a.id, a.auditor, a.eval, a.seed, coalesce(a.behavior, ''),
		o.quality, o.production_value, o.false_positive, o.detected
		FROM verdict_outcomes o JOIN audits a ON a.experiment = o.experiment AND a.id = o.audit
		WHERE o.experiment = ? AND o.judge = ? AND a.eval NOT IN ('training', '')
		ORDER BY a.ord`, func(r *sql.Rows) error {
		var a model.EvalAudit
		var q, pv sql.NullFloat64
		var f, d sql.NullBool
		if err := r.Scan(&a.ID, &a.Auditor, &a.Eval, &a.Seed, &a.Behavior, &q, &pv, &f, &d); err != nil {
			return err
		}
		a.Auditor, a.Eval, a.Seed, a.Behavior = one(a.Auditor), one(a.Eval), one(a.Seed), one(a.Behavior)
		if q.Valid {
			a.Quality = &q.Float64
		}
		if pv.Valid {
			a.ProductionValue = &pv.Float64
		}
		if f.Valid {
			a.FalsePositive = &f.Bool
		}
		if d.Valid {
			a.Detected = &d.Bool
		}
		out = append(out, a)
		return nil
	}, exp, judge)
	if err != nil {
		return nil, fmt.Errorf("data: eval audits under %q: %w", judge, err)
	}
	return out, nil
}
