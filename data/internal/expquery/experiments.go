package expquery

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"sort"

	"golang.org/x/sync/errgroup"

	"github.com/auditscope/auditscope/data/internal/hugepage"
	"github.com/auditscope/auditscope/data/internal/scan"
	"github.com/auditscope/auditscope/data/model"
)

// The model's types, by the names the experiment reads use.
type (
	Experiment = model.Experiment
	Auditor    = model.Auditor
	EvalAudit  = model.EvalAudit
)

// Experiment returns one experiment or ErrNotFound.
func (s Experiments) Experiment(ctx context.Context, id string) (Experiment, error) {
	var e Experiment
	err := s.db.QueryRowContext(ctx, `SELECT id, name, description, format, synthetic FROM experiments WHERE id = ?`, id).
		Scan(&e.ID, &e.Name, &e.Description, &e.Format, &e.Synthetic)
	if errors.Is(err, sql.ErrNoRows) {
		return e, fmt.Errorf("experiment %q: %w", id, model.ErrNotFound)
	}
	if err != nil {
		return e, fmt.Errorf("data: experiment: %w", err)
	}
	return e, nil
}

// Runs lists an experiment's runs in file order.
func (s Experiments) Runs(ctx context.Context, exp string) ([]Run, error) {
	q := `SELECT key, id, name, reward, calibration_fraction, multi_target, refresh_steps, base_model FROM runs WHERE experiment = ? ORDER BY ord`
	return scan.All(ctx, s.db, "data: runs", q, []any{exp}, func(r *Run) []any {
		return []any{&r.Key, &r.ID, &r.Name, &r.Reward, &r.CalibrationFraction, &r.MultiTarget, &r.RefreshSteps, &r.BaseModel}
	})
}

// Auditors lists an experiment's auditors in file order.
func (s Experiments) Auditors(ctx context.Context, exp string) ([]Auditor, error) {
	q := `
SELECT a.key, a.id, a.name, a.kind, coalesce(a.run, ''), a.epoch, a.step,
       coalesce(r.reward, ''), r.calibration_fraction, r.multi_target, r.refresh_steps
FROM auditors a LEFT JOIN runs r ON r.experiment = a.experiment AND r.id = a.run
WHERE a.experiment = ? ORDER BY a.ord`
	return scan.All(ctx, s.db, "data: auditors", q, []any{exp}, func(a *Auditor) []any {
		return []any{&a.Key, &a.ID, &a.Name, &a.Kind, &a.Run, &a.Epoch, &a.Step, &a.Reward, &a.CalibrationFraction, &a.MultiTarget, &a.RefreshSteps}
	})
}

// EvalAudits returns every audit of the experiment with the outcome fields,
// for the dimension statistics, in file order.
//
// At a million audits this is most of an overview's first load, so the
// rows are read in two halves of the file order at once (one a core), into
// one array sized beforehand.
func (s Experiments) EvalAudits(ctx context.Context, exp string) ([]EvalAudit, error) {
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

func (s Experiments) evalAuditsOnce(ctx context.Context, exp string) ([]EvalAudit, error) {
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
	names, err := s.evalNames(ctx, where, exp)
	if err != nil {
		return nil, fmt.Errorf("data: eval audits: %w", err)
	}
	out := make([]EvalAudit, n)
	hugepage.Advise(out) // 112 MB at a million audits: a fault every 2 MB, not every 4 KB
	g, gctx := errgroup.WithContext(ctx)
	g.Go(func() error {
		return s.evalAudits(gctx, out[:low], names, where+` AND ord <= ?`, exp, mid.Int64)
	})
	g.Go(func() error {
		return s.evalAudits(gctx, out[low:], names, where+` AND ord > ?`, exp, mid.Int64)
	})
	if err := g.Wait(); err != nil {
		return nil, fmt.Errorf("data: eval audits: %w", err)
	}
	return out, nil
}

// evalAudits reads the audits the query rest selects into out, which must
// have room for exactly them, in the order of ord.
//
// DuckDB returns a table's rows in the order they were stored, which for
// one experiment is the order of ord (an import appends its audits in file
// order, and an append after the ones before): they are read so and sorted
// here only when they are not, rather than sorted by DuckDB, which held
// every row, strings and all, before it returned the first.
func (s Experiments) evalAudits(ctx context.Context, out []EvalAudit, names map[int64]string, rest string, args ...any) error {
	// Auditors, evals, behaviors and seeds repeat across the rows: they
	// are read as their hashes, named by names, one string each (a
	// million rows' four strings each were a third of the read, and the
	// rows hold a fraction of the memory the collector scans). Without
	// names (two strings with one hash) they are read as strings and
	// interned.
	cols := `auditor, eval, seed, coalesce(behavior, '')`
	if names != nil {
		cols = NameHash("auditor") + ", " + NameHash("eval") + ", " + NameHash("seed") + ", " + NameHash("coalesce(behavior, '')")
	}
	rows, err := s.db.QueryContext(ctx, `SELECT ord, id, `+cols+`, quality, production_value, false_positive, detected`+rest, args...)
	if err != nil {
		return err
	}
	defer rows.Close()
	intern := map[string]string{}
	one := func(s string) string {
		if v, ok := intern[s]; ok {
			return v
		}
		intern[s] = s
		return s
	}
	var h, last [4]int64
	var lastName [4]string
	var named [4]bool // last holds a hash
	// The outcomes the rows point to live in four arrays, one allocation
	// each, not one per value.
	n := len(out)
	quality, production := make([]float64, n), make([]float64, n)
	fp, detected := make([]bool, n), make([]bool, n)
	var q, pv sql.NullFloat64
	var f, d sql.NullBool
	ords := make([]int32, n)
	sorted := true
	i := 0
	for ; rows.Next(); i++ {
		if i == n {
			return errRecounted
		}
		a := &out[i]
		if names == nil {
			if err := rows.Scan(&ords[i], &a.ID, &a.Auditor, &a.Eval, &a.Seed, &a.Behavior, &q, &pv, &f, &d); err != nil {
				return err
			}
			a.Auditor, a.Eval, a.Seed, a.Behavior = one(a.Auditor), one(a.Eval), one(a.Seed), one(a.Behavior)
		} else {
			if err := rows.Scan(&ords[i], &a.ID, &h[0], &h[1], &h[2], &h[3], &q, &pv, &f, &d); err != nil {
				return err
			}
			// Rows in storage order mostly repeat the row before's
			// auditor, eval and behavior: the map is asked only for a
			// change (four lookups a row were a quarter of this loop).
			for j, v := range h {
				if !named[j] || v != last[j] {
					name, ok := names[v]
					if !ok {
						return errRecounted // a string the names were read without: an import came between
					}
					last[j], lastName[j], named[j] = v, name, true
				}
			}
			a.Auditor, a.Eval, a.Seed, a.Behavior = lastName[0], lastName[1], lastName[2], lastName[3]
		}
		if i > 0 && ords[i] < ords[i-1] {
			sorted = false
		}
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
	if !sorted {
		sort.Sort(byOrd{out, ords})
	}
	return nil
}

// NameHash is the SQL of a string column's hash as evalAudits reads it: a
// BIGINT, which the driver returns without parsing. (A variable: the
// store's TestEvalAudits makes every string collide.)
var NameHash = func(col string) string { return "(hash(" + col + ") >> 1)::BIGINT" }

// evalNames reads the auditors, evals, seeds and behaviors of the audits
// the query where selects, by their hashes (NameHash); nil when two share
// a hash.
func (s Experiments) evalNames(ctx context.Context, where string, exp string) (map[int64]string, error) {
	rows, err := s.db.QueryContext(ctx, `SELECT v, `+NameHash("v")+` FROM (
		SELECT DISTINCT auditor AS v`+where+` UNION SELECT DISTINCT eval`+where+`
		UNION SELECT DISTINCT seed`+where+` UNION SELECT DISTINCT coalesce(behavior, '')`+where+`)`, exp, exp, exp, exp)
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	names := map[int64]string{}
	for rows.Next() {
		var v string
		var h int64
		if err := rows.Scan(&v, &h); err != nil {
			return nil, err
		}
		if w, ok := names[h]; ok && w != v {
			return nil, rows.Err()
		}
		names[h] = v
	}
	return names, rows.Err()
}

// byOrd sorts audits by their ords.
type byOrd struct {
	a   []EvalAudit
	ord []int32
}

func (b byOrd) Len() int           { return len(b.a) }
func (b byOrd) Less(i, j int) bool { return b.ord[i] < b.ord[j] }
func (b byOrd) Swap(i, j int) {
	b.a[i], b.a[j] = b.a[j], b.a[i]
	b.ord[i], b.ord[j] = b.ord[j], b.ord[i]
}

// SideJudgments returns judgments of the given kinds from the side of every
// audit that takes part (a judgment between two audits appears twice).
func (s Experiments) SideJudgments(ctx context.Context, exp string, kinds ...string) ([]SideJudgment, error) {
	q := `
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
SELECT s.id, s.kind, s.behavior, s.split, a.auditor, a.id, a.target, s.other, coalesce(o.auditor, ''), s.result
FROM sides s
JOIN audits a ON a.experiment = ? AND a.id = s.me
LEFT JOIN audits o ON o.experiment = ? AND o.id = s.other
ORDER BY s.ord, a.id`
	return scan.All(ctx, s.db, "data: judgments", q, []any{exp, kinds, exp, exp}, func(j *SideJudgment) []any {
		return []any{&j.ID, &j.Kind, &j.Behavior, &j.Split, &j.Auditor, &j.Audit, &j.Target, &j.Other, &j.OtherAuditor, &j.Outcome}
	})
}
