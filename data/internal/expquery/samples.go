package expquery

import (
	"context"
	"fmt"

	"github.com/auditscope/auditscope/data/model"
)

// An Inspect sample's task, log and epoch are labels (data/logs writes
// them); these read them for the sample list, which shows and filters by
// them. Audits of other formats have none of them.

// SampleChoices lists the tasks, logs and epochs of one experiment's
// samples, each in order.
func (s Experiments) SampleChoices(ctx context.Context, exp string) (model.SampleChoices, error) {
	var out model.SampleChoices
	for _, q := range []struct {
		dst   *[]string
		label string
		order string
	}{
		{&out.Tasks, "$.task", "v"},
		{&out.Logs, "$.source", "v"},
		{&out.Epochs, "$.epoch", "TRY_CAST(v AS INTEGER), v"},
	} {
		rows, err := s.db.QueryContext(ctx, `SELECT DISTINCT v FROM (SELECT json_extract_string(labels, ?) AS v FROM audits WHERE experiment = ?) WHERE v IS NOT NULL ORDER BY `+q.order, q.label, exp)
		if err != nil {
			return out, fmt.Errorf("data: sample choices: %w", err)
		}
		for rows.Next() {
			var v string
			if err := rows.Scan(&v); err != nil {
				rows.Close()
				return out, fmt.Errorf("data: sample choices: %w", err)
			}
			*q.dst = append(*q.dst, v)
		}
		rows.Close()
		if err := rows.Err(); err != nil {
			return out, fmt.Errorf("data: sample choices: %w", err)
		}
	}
	return out, nil
}

// SampleFields reads the task, log and epoch of the audits keys name.
func (s Experiments) SampleFields(ctx context.Context, keys []string) (map[string]model.SampleFields, error) {
	out := make(map[string]model.SampleFields, len(keys))
	if len(keys) == 0 {
		return out, nil
	}
	rows, err := s.db.QueryContext(ctx, `SELECT key, coalesce(json_extract_string(labels, '$.task'), ''), coalesce(json_extract_string(labels, '$.source'), ''),
 coalesce(json_extract_string(labels, '$.epoch'), '') FROM audits WHERE key IN (SELECT unnest(?::VARCHAR[]))`, keys)
	if err != nil {
		return nil, fmt.Errorf("data: sample fields: %w", err)
	}
	defer rows.Close()
	for rows.Next() {
		var key string
		var f model.SampleFields
		if err := rows.Scan(&key, &f.Task, &f.Log, &f.Epoch); err != nil {
			return nil, fmt.Errorf("data: sample fields: %w", err)
		}
		out[key] = f
	}
	return out, rows.Err()
}
