package expquery

import (
	"context"
	"database/sql"
	"errors"
	"fmt"

	"github.com/auditscope/auditscope/data/internal/scan"
	"github.com/auditscope/auditscope/data/model"
)

// Run returns one run by its key ("experiment:id").
func (s Experiments) Run(ctx context.Context, key string) (Run, error) {
	var r Run
	err := s.db.QueryRowContext(ctx, `SELECT key, id, name, reward, calibration_fraction, multi_target, refresh_steps, base_model FROM runs WHERE key = ?`, key).
		Scan(&r.Key, &r.ID, &r.Name, &r.Reward, &r.CalibrationFraction, &r.MultiTarget, &r.RefreshSteps, &r.BaseModel)
	if errors.Is(err, sql.ErrNoRows) {
		return r, fmt.Errorf("run %q: %w", key, model.ErrNotFound)
	}
	if err != nil {
		return r, fmt.Errorf("data: run: %w", err)
	}
	return r, nil
}

// RunMetrics returns a run's training-time scalars by name and step.
func (s Experiments) RunMetrics(ctx context.Context, exp, run string) ([]model.Metric, error) {
	q := `SELECT step, name, value FROM metrics WHERE experiment = ? AND run = ? ORDER BY name, step`
	return scan.All(ctx, s.db, "data: metrics", q, []any{exp, run}, func(m *model.Metric) []any {
		return []any{&m.Step, &m.Name, &m.Value}
	})
}

// StrategyCounts counts a run's audits per checkpoint and strategy label.
func (s Experiments) StrategyCounts(ctx context.Context, exp, run string) ([]model.LabelCount, error) {
	q := `
SELECT a.auditor, au.epoch, a.strategy, count(*)
FROM audits a JOIN auditors au ON au.experiment = a.experiment AND au.id = a.auditor
WHERE a.experiment = ? AND au.run = ? AND a.strategy IS NOT NULL
GROUP BY ALL ORDER BY au.epoch, a.auditor, count(*) DESC, a.strategy`
	return scan.All(ctx, s.db, "data: strategies", q, []any{exp, run}, func(l *model.LabelCount) []any {
		return []any{&l.Auditor, &l.Epoch, &l.Strategy, &l.N}
	})
}

// Crux returns the crux rows of an experiment in auditor order.
func (s Experiments) Crux(ctx context.Context, exp string) ([]model.CruxRow, error) {
	rows, err := s.db.QueryContext(ctx, `
SELECT c.auditor, c.n, c.target_focused, c.auditor_view, c.pairwise_win, c.pairwise_loss, c.d_signal, c.d_craft, c.d_realism, c.d_evidence
FROM crux c LEFT JOIN auditors a ON a.experiment = c.experiment AND a.id = c.auditor
WHERE c.experiment = ? ORDER BY a.ord`, exp)
	if err != nil {
		return nil, fmt.Errorf("data: crux: %w", err)
	}
	defer rows.Close()
	var out []model.CruxRow
	for rows.Next() {
		var c model.CruxRow
		f := &c.Features
		if err := rows.Scan(&c.Auditor, &c.N, &f[0], &f[1], &f[2], &f[3], &f[4], &f[5], &f[6], &f[7]); err != nil {
			return nil, fmt.Errorf("data: crux: %w", err)
		}
		out = append(out, c)
	}
	return out, rows.Err()
}

// Judgment is model.Judgment.
type Judgment = model.Judgment

// JudgmentSide is model.JudgmentSide.
type JudgmentSide = model.JudgmentSide

// Judgment returns one judgment by key.
func (s Experiments) Judgment(ctx context.Context, key string) (Judgment, error) {
	var j Judgment
	var behavior, lk, la, ls, rk, ra, rs sql.NullString
	err := s.db.QueryRowContext(ctx, `
SELECT j.key, j.experiment, j.id, j.kind, j.behavior, j.split, j.outcome, j.judge, j.reasoning,
       j.left_side, l.key, l.auditor, l.summary, j.right_side, r.key, r.auditor, r.summary
FROM judgments j
LEFT JOIN audits l ON l.experiment = j.experiment AND l.id = j.left_side
LEFT JOIN audits r ON r.experiment = j.experiment AND r.id = j.right_side
WHERE j.key = ?`, key).Scan(&j.Key, &j.Experiment, &j.ID, &j.Kind, &behavior, &j.Split, &j.Outcome, &j.Judge, &j.Reasoning,
		&j.Left.Ref, &lk, &la, &ls, &j.Right.Ref, &rk, &ra, &rs)
	if errors.Is(err, sql.ErrNoRows) {
		return j, fmt.Errorf("judgment %q: %w", key, model.ErrNotFound)
	}
	if err != nil {
		return j, fmt.Errorf("data: judgment: %w", err)
	}
	j.Behavior = behavior.String
	j.Left.AuditKey, j.Left.Auditor, j.Left.Summary = lk.String, la.String, ls.String
	j.Right.AuditKey, j.Right.Auditor, j.Right.Summary = rk.String, ra.String, rs.String
	return j, nil
}

// AuditJudgments lists the judgments an audit takes part in, from its side.
func (s Experiments) AuditJudgments(ctx context.Context, exp, audit string) ([]SideJudgment, error) {
	rows, err := s.db.QueryContext(ctx, `
SELECT j.id, j.kind, coalesce(j.behavior, ''), j.split,
       CASE WHEN j.left_side = ? THEN j.right_side ELSE j.left_side END AS other,
       coalesce(o.auditor, ''),
       CASE WHEN j.outcome = 'tie' THEN 'tie'
            WHEN (j.outcome = 'left') = (j.left_side = ?) THEN 'win' ELSE 'loss' END
FROM judgments j
LEFT JOIN audits o ON o.experiment = j.experiment AND o.id = (CASE WHEN j.left_side = ? THEN j.right_side ELSE j.left_side END)
WHERE j.experiment = ? AND (j.left_side = ? OR j.right_side = ?)
ORDER BY j.ord`, audit, audit, audit, exp, audit, audit)
	if err != nil {
		return nil, fmt.Errorf("data: audit judgments: %w", err)
	}
	defer rows.Close()
	var out []SideJudgment
	for rows.Next() {
		j := SideJudgment{Audit: audit}
		if err := rows.Scan(&j.ID, &j.Kind, &j.Behavior, &j.Split, &j.Other, &j.OtherAuditor, &j.Outcome); err != nil {
			return nil, fmt.Errorf("data: audit judgments: %w", err)
		}
		out = append(out, j)
	}
	return out, rows.Err()
}
