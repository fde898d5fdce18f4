package verdictquery

import (
	"context"
	"database/sql"
	"fmt"
	"math"

	"github.com/auditscope/auditscope/data/logs"
)

// EvalScores reads the evaluation judge's scores of one dimension on every
// audit of exp (not plain samples), with each audit's seed, in file order:
// the judges page corrects the judge's rate over all of them. NaN where an
// audit has no score on it.
func (s Verdicts) EvalScores(ctx context.Context, exp, dim string) (seeds []string, scores []float64, err error) {
	cols, _, err := s.scores(ctx, exp, []string{dim})
	if err != nil {
		return nil, nil, fmt.Errorf("data: eval scores: %w", err)
	}
	col, args := "TRY_CAST(json_extract_string(a.scores, ?) AS DOUBLE)", []any{`$."` + dim + `"`}
	if c, ok := cols[dim]; ok {
		col, args = c.SQL, c.Args
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

// SampleAudits maps exp's Inspect samples to their audit ids by task,
// sample id and epoch (logs.Ambiguous for one two logs, runs of one task,
// hold).
func (s Verdicts) SampleAudits(ctx context.Context, exp string) (map[[3]string]string, error) {
	out := map[[3]string]string{}
	err := s.eachRow(ctx, `SELECT id, coalesce(json_extract_string(labels, '$.task'), ''), coalesce(json_extract_string(labels, '$.sample'), ''),
		coalesce(json_extract_string(labels, '$.epoch'), '') FROM audits WHERE experiment = ?`, func(r *sql.Rows) error {
		var id string
		var k [3]string
		err := r.Scan(&id, &k[0], &k[1], &k[2])
		if _, twice := out[k]; twice {
			id = logs.Ambiguous
		}
		out[k] = id
		return err
	}, exp)
	return out, err
}
