package expquery

import (
	"context"
	"database/sql"
	"encoding/json"
	"fmt"
	"math"

	"github.com/auditscope/auditscope/data/internal/scan"
	"github.com/auditscope/auditscope/data/model"
)

// InspectLog is model.InspectLog.
type InspectLog = model.InspectLog

// InspectLogs returns the headers of an experiment's Inspect logs, in the
// order the import read them; none for an experiment of other sources.
func (s Experiments) InspectLogs(ctx context.Context, exp string) ([]InspectLog, error) {
	// A log appended to while being written has a header row per change:
	// the newest is the log's.
	rows, err := s.db.QueryContext(ctx, `SELECT log, task, model, status, created, samples, total_samples, results
		FROM inspect_logs WHERE experiment = ? QUALIFY row_number() OVER (PARTITION BY log ORDER BY gen DESC) = 1 ORDER BY ord`, exp)
	if err != nil {
		return nil, fmt.Errorf("data: inspect logs: %w", err)
	}
	defer rows.Close()
	var out []InspectLog
	for rows.Next() {
		var l InspectLog
		var total sql.NullInt64
		var results sql.NullString
		if err := rows.Scan(&l.Log, &l.Task, &l.Model, &l.Status, &l.Created, &l.Samples, &total, &results); err != nil {
			return nil, fmt.Errorf("data: inspect logs: %w", err)
		}
		if total.Valid {
			n := int(total.Int64)
			l.Total = &n
		}
		if results.Valid {
			if err := json.Unmarshal([]byte(results.String), &l.Scores); err != nil {
				return nil, fmt.Errorf("data: inspect log %s: results: %w", l.Log, err)
			}
		}
		out = append(out, l)
	}
	return out, rows.Err()
}

// ScorerValues aggregates each scorer's values per Inspect log of an
// experiment, over samples (epochs reduced to their mean): count, mean,
// sample standard deviation, whether all are 0 or 1, and how many values
// value_to_float could not read. DuckDB does the sums, so
// a million samples cost one scan and a few rows.
func (s Experiments) ScorerValues(ctx context.Context, exp string) ([]model.ScorerValues, error) {
	// Epochs of a sample are reduced to their mean first, as Inspect's
	// default reducer does before its metrics: n counts samples, and the
	// stderr and intervals are over samples. The sample is the audit's seed
	// (the sample id, with the log's prefix).
	rows, err := s.db.QueryContext(ctx, `WITH per AS (
			SELECT s.log, s.scorer, s.key, a.seed, avg(s.num) AS v, count(*) AS records, count(*) FILTER (WHERE NOT s.converted) AS unconverted
			FROM sample_scores s JOIN audits a ON a.experiment = s.experiment AND a.id = s.audit
			WHERE s.experiment = ? GROUP BY s.log, s.scorer, s.key, a.seed)
		SELECT log, scorer, key, count(*), sum(records)::BIGINT, avg(v), stddev_samp(v), min(v), max(v), bool_and(v = 0 OR v = 1), sum(unconverted)::BIGINT
		FROM per GROUP BY log, scorer, key ORDER BY log, scorer, key`, exp)
	if err != nil {
		return nil, fmt.Errorf("data: scorer values: %w", err)
	}
	defer rows.Close()
	var out []model.ScorerValues
	for rows.Next() {
		var v model.ScorerValues
		var sd sql.NullFloat64
		if err := rows.Scan(&v.Log, &v.Scorer, &v.Key, &v.N, &v.Records, &v.Mean, &sd, &v.Min, &v.Max, &v.Binary, &v.Unconverted); err != nil {
			return nil, fmt.Errorf("data: scorer values: %w", err)
		}
		v.SD = math.NaN()
		if sd.Valid {
			v.SD = sd.Float64
		}
		out = append(out, v)
	}
	return out, rows.Err()
}

// SampleValues returns every scorer value of an experiment's Inspect
// samples with its record's model (auditor), task and sample id: what a
// comparison of two models pairs by.
func (s Experiments) SampleValues(ctx context.Context, exp string) ([]model.SampleValue, error) {
	q := `SELECT a.id, a.auditor, coalesce(json_extract_string(a.labels, '$.task'), ''),
			coalesce(json_extract_string(a.labels, '$.sample'), a.seed), s.scorer, s.key, coalesce(json_extract_string(a.labels, '$.source'), ''), s.num
		FROM sample_scores s JOIN audits a ON a.experiment = s.experiment AND a.id = s.audit
		WHERE s.experiment = ? ORDER BY a.ord, s.scorer, s.key`
	return scan.All(ctx, s.db, "data: sample values", q, []any{exp}, func(v *model.SampleValue) []any {
		return []any{&v.Audit, &v.Auditor, &v.Task, &v.Sample, &v.Scorer, &v.Key, &v.Run, &v.Num}
	})
}

// SampleScores returns an Inspect sample's scores, by scorer and key.
func (s Experiments) SampleScores(ctx context.Context, exp, audit string) ([]model.SampleScore, error) {
	q := `SELECT scorer, key, value, num, converted, judge, answer, explanation
		FROM sample_scores WHERE experiment = ? AND audit = ? ORDER BY scorer, key`
	return scan.All(ctx, s.db, "data: sample scores", q, []any{exp, audit}, func(sc *model.SampleScore) []any {
		return []any{&sc.Scorer, &sc.Key, &sc.Value, &sc.Num, &sc.Converted, &sc.Judge, &sc.Answer, &sc.Explanation}
	})
}

// HasAudits reports whether an experiment holds any audit of the paper's
// kind (one with an eval); an experiment of plain Inspect samples holds
// none.
func (s Experiments) HasAudits(ctx context.Context, exp string) (bool, error) {
	var ok bool
	if err := s.db.QueryRowContext(ctx, `SELECT EXISTS (SELECT 1 FROM audits WHERE experiment = ? AND eval <> '')`, exp).Scan(&ok); err != nil {
		return false, fmt.Errorf("data: audits of %s: %w", exp, err)
	}
	return ok, nil
}
