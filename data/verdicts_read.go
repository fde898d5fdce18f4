package data

import (
	"context"
	"database/sql"
	"fmt"
	"math"

	"github.com/auditscope/auditscope/data/model"
)

// Judges lists the judges of exp's audits besides the evaluation judge
// (the one they were imported with), by name.
func (s *Store) Judges(ctx context.Context, exp string) ([]model.JudgeInfo, error) {
	var out []model.JudgeInfo
	err := s.eachRow(ctx, `SELECT v.judge, min(v.kind), count(*),
		(SELECT list(DISTINCT dimension ORDER BY dimension) FROM verdict_scores d WHERE d.experiment = v.experiment AND d.judge = v.judge),
		(SELECT count(*) FROM verdict_outcomes o WHERE o.experiment = v.experiment AND o.judge = v.judge)
		FROM verdicts v WHERE v.experiment = ? GROUP BY v.experiment, v.judge ORDER BY v.judge`, func(r *sql.Rows) error {
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
	}, exp)
	return out, err
}

// JudgeScores reads a judge's scores on exp's audits, in the order of its
// dimensions.
func (s *Store) JudgeScores(ctx context.Context, exp string, j model.JudgeInfo) (model.JudgeScores, error) {
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
func (s *Store) AuditVerdicts(ctx context.Context, exp, audit string) ([]model.Verdict, error) {
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

// EvalScores reads the evaluation judge's scores of one dimension on every
// audit of exp (not plain samples), with each audit's seed, in file order:
// the judges page corrects the judge's rate over all of them. NaN where an
// audit has no score on it.
func (s *Store) EvalScores(ctx context.Context, exp, dim string) (seeds []string, scores []float64, err error) {
	cols, err := s.scoreColumns(ctx, exp, []string{dim})
	if err != nil {
		return nil, nil, fmt.Errorf("data: eval scores: %w", err)
	}
	col, args := "TRY_CAST(json_extract_string(a.scores, ?) AS DOUBLE)", []any{scorePath(dim)}
	if c, ok := cols[dim]; ok {
		col, args = c.sql, c.args
	}
	err = s.eachRow(ctx, `SELECT a.seed, `+col+` FROM audits a WHERE a.experiment = ? AND a.eval <> '' ORDER BY a.ord`, func(r *sql.Rows) error {
		var seed string
		var v sql.NullFloat64
		if err := r.Scan(&seed, &v); err != nil {
			return err
		}
		x := math.NaN()
		if v.Valid {
			x = v.Float64
		}
		seeds, scores = append(seeds, seed), append(scores, x)
		return nil
	}, append(args, exp)...)
	return seeds, scores, err
}

// VerdictScores reads a judge's scores of the audits keys (experiment:id),
// by key and dimension: the audit list's score columns under that judge.
func (s *Store) VerdictScores(ctx context.Context, keys []string, judge string) (map[string]map[string]float64, error) {
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

// scoreColumnsOf is scoreColumns under the filter's judge: another judge's
// scores are read from verdict_scores, every dimension.
func (s *Store) scoreColumnsOf(ctx context.Context, f AuditFilter, dims []string) (map[string]scoreCol, error) {
	if f.Judge == "" {
		return s.scoreColumns(ctx, f.Experiment, dims)
	}
	out := make(map[string]scoreCol, len(dims))
	for _, d := range dims {
		out[d] = scoreCol{sql: "(SELECT v.score FROM verdict_scores v WHERE v.experiment = a.experiment AND v.audit = a.id AND v.judge = ? AND v.dimension = ?)",
			args: []any{f.Judge, d}}
	}
	return out, nil
}
