package data

import (
	"context"
)

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
