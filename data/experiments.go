package data

import (
	"context"
	"database/sql"
	"errors"
	"fmt"

	"golang.org/x/sync/errgroup"

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
// for the dimension statistics, in file order.
//
// At a million audits this is most of an overview's first load, so the
// rows are read in two halves of the file order at once (one a core), into
// one array sized beforehand.
func (s *Store) EvalAudits(ctx context.Context, exp string) ([]EvalAudit, error) {
	// The three statements each read their own state: an import that lands
	// between them (serve --watch appends while statistics are computed in
	// the background) makes the counts disagree, and the read is made
	// again.
	for try := 1; ; try++ {
		out, err := s.evalAuditsOnce(ctx, exp)
		if !errors.Is(err, errRecounted) || try == 5 {
			return out, err
		}
	}
}

// errRecounted is a read whose rows are not the ones counted before it.
var errRecounted = errors.New("the audits changed while they were read")

func (s *Store) evalAuditsOnce(ctx context.Context, exp string) ([]EvalAudit, error) {
	const where = ` FROM audits WHERE experiment = ? AND eval <> 'training'`
	var n, low int
	var mid sql.NullInt64
	err := s.db.QueryRowContext(ctx, `SELECT count(*), (min(ord) + max(ord)) // 2`+where, exp).Scan(&n, &mid)
	if err == nil && mid.Valid {
		err = s.db.QueryRowContext(ctx, `SELECT count(*)`+where+` AND ord <= ?`, exp, mid.Int64).Scan(&low)
	}
	if err != nil {
		return nil, fmt.Errorf("data: eval audits: %w", err)
	}
	out := make([]EvalAudit, n)
	g, gctx := errgroup.WithContext(ctx)
	g.Go(func() error {
		return s.evalAudits(gctx, out[:low], where+` AND ord <= ? ORDER BY ord`, exp, mid.Int64)
	})
	g.Go(func() error {
		return s.evalAudits(gctx, out[low:], where+` AND ord > ? ORDER BY ord`, exp, mid.Int64)
	})
	if err := g.Wait(); err != nil {
		return nil, fmt.Errorf("data: eval audits: %w", err)
	}
	return out, nil
}

// evalAudits reads the audits the query rest selects into out, which must
// have room for exactly them.
func (s *Store) evalAudits(ctx context.Context, out []EvalAudit, rest string, args ...any) error {
	rows, err := s.db.QueryContext(ctx, `SELECT id, auditor, eval, seed, coalesce(behavior, ''), quality, production_value, false_positive, detected`+rest, args...)
	if err != nil {
		return err
	}
	defer rows.Close()
	// Auditors, evals, behaviors and seeds repeat across the rows: one
	// string each is kept, so the rows hold a fraction of the memory the
	// collector scans.
	intern := map[string]string{}
	one := func(s string) string {
		if v, ok := intern[s]; ok {
			return v
		}
		intern[s] = s
		return s
	}
	// The outcomes the rows point to live in four arrays, one allocation
	// each, not one per value.
	n := len(out)
	quality, production := make([]float64, n), make([]float64, n)
	fp, detected := make([]bool, n), make([]bool, n)
	var q, pv sql.NullFloat64
	var f, d sql.NullBool
	i := 0
	for ; rows.Next(); i++ {
		if i == n {
			return errRecounted
		}
		a := &out[i]
		if err := rows.Scan(&a.ID, &a.Auditor, &a.Eval, &a.Seed, &a.Behavior, &q, &pv, &f, &d); err != nil {
			return err
		}
		a.Auditor, a.Eval, a.Seed, a.Behavior = one(a.Auditor), one(a.Eval), one(a.Seed), one(a.Behavior)
		if q.Valid {
			quality[i], a.Quality = q.Float64, &quality[i]
		}
		if pv.Valid {
			production[i], a.ProductionValue = pv.Float64, &production[i]
		}
		if f.Valid {
			fp[i], a.FalsePositive = f.Bool, &fp[i]
		}
		if d.Valid {
			detected[i], a.Detected = d.Bool, &detected[i]
		}
	}
	if err := rows.Err(); err != nil {
		return err
	}
	if i != n {
		return errRecounted
	}
	return nil
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
