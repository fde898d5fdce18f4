package verdictquery

import (
	"cmp"
	"context"
	"database/sql"
	"fmt"
	"math"
	"slices"
	"strings"

	"github.com/auditscope/auditscope/data/model"
)

// pairRows selects the scores two judges gave the same audit on each of
// dims (dimension, a, b, seed, ord), and its arguments; a or b "" is the
// evaluation judge, whose scores are the audits' own. The other judge's
// rows (verdict_scores) drive the query: the evaluation judge's score of
// each is picked from the audit's score columns by dimension, else joined
// from audit_scores (or read from the JSON while that is being built), so
// the audits are read once, not once a dimension.
func (s Verdicts) pairRows(ctx context.Context, exp, a, b string, dims []string) (string, []any, error) {
	if a != "" && b != "" {
		return `SELECT x.dimension, x.score AS a, y.score AS b, ` + clusterOf("au") + ` AS seed, au.ord, x.audit
			FROM verdict_scores x JOIN verdict_scores y ON y.experiment = x.experiment AND y.audit = x.audit AND y.dimension = x.dimension
			JOIN audits au ON au.experiment = x.experiment AND au.id = x.audit
			WHERE x.experiment = ? AND x.judge = ? AND y.judge = ? AND x.dimension IN (SELECT unnest(?::VARCHAR[]))`, []any{exp, a, b, dims}, nil
	}
	other, flip := b, false
	if a != "" {
		other, flip = a, true
	}
	cols, pending, err := s.scores(ctx, exp, dims)
	if err != nil {
		return "", nil, err
	}
	var when []string
	var args []any
	joinScores := false
	for _, d := range dims {
		switch c, ok := cols[d]; {
		case ok:
			when = append(when, ` WHEN ? THEN `+c.SQL)
			args = append(append(args, d), c.Args...)
		case pending:
			when = append(when, ` WHEN ? THEN TRY_CAST(json_extract_string(a.scores, ?) AS DOUBLE)`)
			args = append(args, d, `$."`+d+`"`)
		default:
			joinScores = true
		}
	}
	eval := `(CASE v.dimension` + strings.Join(when, "") + ` ELSE s.score END)`
	join := ` LEFT JOIN (SELECT NULL::VARCHAR AS audit, NULL::VARCHAR AS dimension, NULL::DOUBLE AS score) s ON false`
	if joinScores {
		join = ` LEFT JOIN audit_scores s ON s.experiment = v.experiment AND s.audit = v.audit AND s.dimension = v.dimension`
	}
	x, y := eval, `v.score`
	if flip {
		x, y = y, x
	}
	q := `SELECT * FROM (SELECT v.dimension, ` + x + ` AS a, ` + y + ` AS b, ` + clusterOf("a") + ` AS seed, a.ord, v.audit
		FROM verdict_scores v JOIN audits a ON a.experiment = v.experiment AND a.id = v.audit` + join + `
		WHERE v.experiment = ? AND v.judge = ? AND v.dimension IN (SELECT unnest(?::VARCHAR[]))) WHERE a IS NOT NULL AND b IS NOT NULL`
	return q, append(args, exp, other, dims), nil
}

// clusterOf is the SQL of the unit an audit of alias a is drawn in, as
// JudgedBy reads it: its seed, or an Inspect sample's id (the seed column
// prefixes it with the log's name, and a sample is the same unit in every
// log).
func clusterOf(a string) string {
	return `coalesce(nullif(json_extract_string(` + a + `.labels, '$.sample'), ''), ` + a + `.seed)`
}

// JudgeMoments sums two judges' scores of each of dims on the audits both
// scored, per seed (model.PairMoments: the judges page's agreement and its
// bootstrap over seeds), and lists the most audits scored furthest apart
// (largest gap first; on ties in dims' order, then the audits' order). a
// or b "" is the evaluation judge. At 100,000 audits reading every score
// to sum them here was most of the judges page's time.
func (s Verdicts) JudgeMoments(ctx context.Context, exp, a, b string, dims []string, most int) ([]model.PairMoments, []model.ScoreGap, error) {
	q, args, err := s.pairRows(ctx, exp, a, b, dims)
	if err != nil {
		return nil, nil, fmt.Errorf("data: judge moments: %w", err)
	}
	if a != "" && b != "" {
		// Two judges of different audits (a training judge and a
		// held-out one) share none: the join below would find that out
		// slower.
		var share bool
		if err := s.db.QueryRowContext(ctx, `SELECT EXISTS (SELECT 1 FROM verdicts x JOIN verdicts y ON y.experiment = x.experiment AND y.audit = x.audit
			WHERE x.experiment = ? AND x.judge = ? AND y.judge = ?)`, exp, a, b).Scan(&share); err != nil || !share {
			return nil, nil, err
		}
	}
	// One statement, the pairs read once: each dimension's sums per seed
	// (kind 0), then the audits scored furthest apart (kind 1: those
	// rows' sums are the two scores, ordered here again below).
	var out []model.PairMoments
	var gaps []model.ScoreGap
	err = s.eachRow(ctx, `WITH j AS MATERIALIZED (`+q+`)
		SELECT * FROM (
			SELECT 0 AS kind, dimension, min(ord) AS first, count(*)::DOUBLE, sum(a), sum(b), sum(a * a), sum(b * b), sum(a * b), NULL::VARCHAR
			FROM j GROUP BY dimension, seed
			UNION ALL
			SELECT * FROM (SELECT 1, dimension, ord, 0, a, b, 0, 0, 0, audit FROM j WHERE a <> b
				ORDER BY abs(b - a) DESC, list_position(?::VARCHAR[], dimension), ord LIMIT ?))
		ORDER BY kind, dimension, first`, func(r *sql.Rows) error {
		var kind int
		var dim string
		var first int64
		var m model.Moments
		var audit sql.NullString
		if err := r.Scan(&kind, &dim, &first, &m.N, &m.A, &m.B, &m.AA, &m.BB, &m.AB, &audit); err != nil {
			return err
		}
		if kind == 1 {
			gaps = append(gaps, model.ScoreGap{Audit: audit.String, Dim: dim, A: m.A, B: m.B, Order: first})
			return nil
		}
		if len(out) == 0 || out[len(out)-1].Dim != dim {
			out = append(out, model.PairMoments{Dim: dim})
		}
		last := &out[len(out)-1]
		last.Clusters = append(last.Clusters, m)
		return nil
	}, append(args, dims, most)...)
	if err != nil {
		return nil, nil, fmt.Errorf("data: judge moments: %w", err)
	}
	slices.SortStableFunc(gaps, func(x, y model.ScoreGap) int {
		return cmp.Or(cmp.Compare(math.Abs(y.B-y.A), math.Abs(x.B-x.A)), cmp.Compare(slices.Index(dims, x.Dim), slices.Index(dims, y.Dim)), cmp.Compare(x.Order, y.Order))
	})
	return out, gaps, nil
}
