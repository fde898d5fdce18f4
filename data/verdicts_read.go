package data

import (
	"context"
	"database/sql"
	"fmt"
	"math"
)

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
