package data

import (
	"context"
	"database/sql"
	"errors"
	"fmt"

	"github.com/auditscope/auditscope/data/model"
)

// Experiment is model.Experiment.
type Experiment = model.Experiment

// Run is model.Run.
type Run = model.Run

// Auditor is model.Auditor.
type Auditor = model.Auditor

// Experiment returns one experiment or ErrNotFound.
func (s *Store) Experiment(ctx context.Context, id string) (Experiment, error) {
	var e Experiment
	err := s.db.QueryRowContext(ctx, `SELECT id, name, description, format, synthetic FROM experiments WHERE id = ?`, id).
		Scan(&e.ID, &e.Name, &e.Description, &e.Format, &e.Synthetic)
	if errors.Is(err, sql.ErrNoRows) {
		return e, fmt.Errorf("experiment %q: %w", id, ErrNotFound)
	}
	if err != nil {
		return e, fmt.Errorf("data: experiment: %w", err)
	}
	return e, nil
}

// Runs lists an experiment's runs in file order.
func (s *Store) Runs(ctx context.Context, exp string) ([]Run, error) {
	rows, err := s.db.QueryContext(ctx, `SELECT key, id, name, reward, calibration_fraction, multi_target, refresh_steps, base_model FROM runs WHERE experiment = ? ORDER BY ord`, exp)
	if err != nil {
		return nil, fmt.Errorf("data: runs: %w", err)
	}
	defer rows.Close()
	var out []Run
	for rows.Next() {
		var r Run
		if err := rows.Scan(&r.Key, &r.ID, &r.Name, &r.Reward, &r.CalibrationFraction, &r.MultiTarget, &r.RefreshSteps, &r.BaseModel); err != nil {
			return nil, fmt.Errorf("data: runs: %w", err)
		}
		out = append(out, r)
	}
	return out, rows.Err()
}

// Auditors lists an experiment's auditors in file order.
func (s *Store) Auditors(ctx context.Context, exp string) ([]Auditor, error) {
	rows, err := s.db.QueryContext(ctx, `
SELECT a.key, a.id, a.name, a.kind, coalesce(a.run, ''), a.epoch, a.step,
       coalesce(r.reward, ''), r.calibration_fraction, r.multi_target, r.refresh_steps
FROM auditors a LEFT JOIN runs r ON r.experiment = a.experiment AND r.id = a.run
WHERE a.experiment = ? ORDER BY a.ord`, exp)
	if err != nil {
		return nil, fmt.Errorf("data: auditors: %w", err)
	}
	defer rows.Close()
	var out []Auditor
	for rows.Next() {
		var a Auditor
		if err := rows.Scan(&a.Key, &a.ID, &a.Name, &a.Kind, &a.Run, &a.Epoch, &a.Step, &a.Reward, &a.CalibrationFraction, &a.MultiTarget, &a.RefreshSteps); err != nil {
			return nil, fmt.Errorf("data: auditors: %w", err)
		}
		out = append(out, a)
	}
	return out, rows.Err()
}

// EvalAudit is model.EvalAudit.
type EvalAudit = model.EvalAudit

// EvalAudits returns every audit of the experiment with the outcome fields,
// for the dimension statistics.
func (s *Store) EvalAudits(ctx context.Context, exp string) ([]EvalAudit, error) {
	rows, err := s.db.QueryContext(ctx, `
SELECT id, auditor, eval, seed, coalesce(behavior, ''), quality, production_value, false_positive, detected
FROM audits WHERE experiment = ? AND eval <> 'training' ORDER BY ord`, exp)
	if err != nil {
		return nil, fmt.Errorf("data: eval audits: %w", err)
	}
	defer rows.Close()
	var out []EvalAudit
	for rows.Next() {
		var a EvalAudit
		if err := rows.Scan(&a.ID, &a.Auditor, &a.Eval, &a.Seed, &a.Behavior, &a.Quality, &a.ProductionValue, &a.FalsePositive, &a.Detected); err != nil {
			return nil, fmt.Errorf("data: eval audits: %w", err)
		}
		out = append(out, a)
	}
	return out, rows.Err()
}

// SideJudgment is model.SideJudgment.
type SideJudgment = model.SideJudgment

// SideJudgments returns judgments of the given kinds from the side of every
// audit that takes part (a judgment between two audits appears twice).
func (s *Store) SideJudgments(ctx context.Context, exp string, kinds ...string) ([]SideJudgment, error) {
	rows, err := s.db.QueryContext(ctx, `
WITH j AS (SELECT * FROM judgments WHERE experiment = ? AND kind IN (SELECT unnest(?::VARCHAR[]))),
sides AS (
  SELECT id, kind, coalesce(behavior, '') AS behavior, split, left_side AS me, right_side AS other,
         CASE outcome WHEN 'left' THEN 'win' WHEN 'right' THEN 'loss' ELSE 'tie' END AS result, ord
  FROM j
  UNION ALL
  SELECT id, kind, coalesce(behavior, ''), split, right_side, left_side,
         CASE outcome WHEN 'right' THEN 'win' WHEN 'left' THEN 'loss' ELSE 'tie' END, ord
  FROM j
)
SELECT s.id, s.kind, s.behavior, s.split, a.auditor, a.id, s.other, coalesce(o.auditor, ''), s.result
FROM sides s
JOIN audits a ON a.experiment = ? AND a.id = s.me
LEFT JOIN audits o ON o.experiment = ? AND o.id = s.other
ORDER BY s.ord, a.id`, exp, kinds, exp, exp)
	if err != nil {
		return nil, fmt.Errorf("data: judgments: %w", err)
	}
	defer rows.Close()
	var out []SideJudgment
	for rows.Next() {
		var j SideJudgment
		if err := rows.Scan(&j.ID, &j.Kind, &j.Behavior, &j.Split, &j.Auditor, &j.Audit, &j.Other, &j.OtherAuditor, &j.Outcome); err != nil {
			return nil, fmt.Errorf("data: judgments: %w", err)
		}
		out = append(out, j)
	}
	return out, rows.Err()
}
