package data

import (
	"context"
	"database/sql"
	"fmt"
)

// EvalAuditsUnder is EvalAudits with another judge's outcomes: each audit
// that judge gave an outcome for, in file order, its outcome fields the
// judge's (verdict_outcomes) instead of the evaluation judge's. Audits it
// gave none for are left out: a statistic under a judge reads only what
// that judge judged.
func (s *Store) EvalAuditsUnder(ctx context.Context, exp, judge string) ([]EvalAudit, error) {
	var out []EvalAudit
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
		var a EvalAudit
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
