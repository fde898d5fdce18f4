package data

import (
	"context"
	"database/sql"
	"math"
	"slices"

	"github.com/auditscope/auditscope/data/model"
)

// Judges lists the judges of exp's audits besides the evaluation judge
// (the one they were imported with), by name.
func (s *Store) Judges(ctx context.Context, exp string) ([]model.JudgeInfo, error) {
	var out []model.JudgeInfo
	err := s.eachRow(ctx, `SELECT v.judge, min(v.kind), count(*),
		(SELECT list(DISTINCT dimension ORDER BY dimension) FROM verdict_scores d WHERE d.experiment = v.experiment AND d.judge = v.judge)
		FROM verdicts v WHERE v.experiment = ? GROUP BY v.experiment, v.judge ORDER BY v.judge`, func(r *sql.Rows) error {
		var j model.JudgeInfo
		var dims []any
		if err := r.Scan(&j.Name, &j.Kind, &j.Audits, &dims); err != nil {
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
	err := s.eachRow(ctx, `SELECT audit, dimension, score FROM verdict_scores WHERE experiment = ? AND judge = ?`, func(r *sql.Rows) error {
		var audit, dim string
		var v float64
		if err := r.Scan(&audit, &dim, &v); err != nil {
			return err
		}
		row, ok := out.Scores[audit]
		if !ok {
			row = make([]float64, len(j.Dimensions))
			for i := range row {
				row[i] = math.NaN()
			}
			out.Scores[audit] = row
		}
		if i := slices.Index(j.Dimensions, dim); i >= 0 {
			row[i] = v
		}
		return nil
	}, exp, j.Name)
	return out, err
}

// AuditVerdicts are the other judges' verdicts on one audit, by judge.
func (s *Store) AuditVerdicts(ctx context.Context, exp, audit string) ([]model.Verdict, error) {
	var out []model.Verdict
	err := s.eachRow(ctx, `SELECT judge, kind, summary, source FROM verdicts WHERE experiment = ? AND audit = ? ORDER BY judge`, func(r *sql.Rows) error {
		v := model.Verdict{Audit: audit, Scores: map[string]float64{}}
		err := r.Scan(&v.Judge, &v.Kind, &v.Summary, &v.File)
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
