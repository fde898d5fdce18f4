package expquery

import (
	"context"
	"fmt"

	"github.com/auditscope/auditscope/data/internal/scan"
	"github.com/auditscope/auditscope/data/model"
)

// DatasetSummary is model.DatasetSummary.
type DatasetSummary = model.DatasetSummary

// ExperimentSummary is model.ExperimentSummary.
type ExperimentSummary = model.ExperimentSummary

// Summary is model.Summary.
type Summary = model.Summary

// Summary lists the datasets and experiments with their sizes.
func (s Experiments) Summary(ctx context.Context) (Summary, error) {
	var out Summary
	rows, err := s.db.QueryContext(ctx, `
SELECT d.id, d.name, d.description, d.format, d.synthetic, d.n_comparisons,
       (SELECT count(*) FROM ap_annotators a WHERE a.dataset = d.id),
       d.n_votes
FROM ap_datasets d ORDER BY d.synthetic DESC, d.id`)
	if err != nil {
		return out, fmt.Errorf("data: summary: %w", err)
	}
	defer rows.Close()
	for rows.Next() {
		var d DatasetSummary
		if err := rows.Scan(&d.ID, &d.Name, &d.Description, &d.Format, &d.Synthetic, &d.Comparisons, &d.Annotators, &d.Votes); err != nil {
			return out, fmt.Errorf("data: summary: %w", err)
		}
		out.Datasets = append(out.Datasets, d)
	}
	if err := rows.Err(); err != nil {
		return out, fmt.Errorf("data: summary: %w", err)
	}
	rows2, err := s.db.QueryContext(ctx, `
SELECT e.id, e.name, e.description, e.format, e.synthetic,
       (SELECT count(*) FROM runs r WHERE r.experiment = e.id),
       (SELECT count(*) FROM auditors a WHERE a.experiment = e.id),
       (SELECT count(*) FROM audits a WHERE a.experiment = e.id),
       (SELECT count(*) FROM judgments j WHERE j.experiment = e.id),
       -- An Inspect log's samples and epochs apart: 10 samples × 5 epochs
       -- are 50 audits but 10 samples.
       CASE WHEN e.format = 'inspect' THEN (SELECT count(DISTINCT (json_extract_string(a.labels, '$.source'), json_extract_string(a.labels, '$.sample')))
            FROM audits a WHERE a.experiment = e.id) ELSE 0 END,
       CASE WHEN e.format = 'inspect' THEN (SELECT coalesce(max(TRY_CAST(json_extract_string(a.labels, '$.epoch') AS INTEGER)), 0)
            FROM audits a WHERE a.experiment = e.id) ELSE 0 END
FROM experiments e ORDER BY e.id`)
	if err != nil {
		return out, fmt.Errorf("data: summary: %w", err)
	}
	defer rows2.Close()
	for rows2.Next() {
		var e ExperimentSummary
		if err := rows2.Scan(&e.ID, &e.Name, &e.Description, &e.Format, &e.Synthetic, &e.Runs, &e.Auditors, &e.Audits, &e.Judgments, &e.Samples, &e.Epochs); err != nil {
			return out, fmt.Errorf("data: summary: %w", err)
		}
		out.Experiments = append(out.Experiments, e)
	}
	return out, rows2.Err()
}

// DatasetList lists the AnnotatedPairs datasets' ids, names and synthetic
// flags: the cheap part of Summary, for pages that need a selector.
func (s Experiments) DatasetList(ctx context.Context) ([]DatasetSummary, error) {
	q := `SELECT id, name, synthetic FROM ap_datasets ORDER BY synthetic DESC, id`
	return scan.All(ctx, s.db, "data: datasets", q, []any{}, func(d *DatasetSummary) []any {
		return []any{&d.ID, &d.Name, &d.Synthetic}
	})
}

// ExperimentList lists the experiments' ids, names and synthetic flags:
// the cheap part of Summary, for pages that need a selector.
func (s Experiments) ExperimentList(ctx context.Context) ([]ExperimentSummary, error) {
	q := `SELECT id, name, description, format, synthetic FROM experiments ORDER BY id`
	return scan.All(ctx, s.db, "data: experiments", q, []any{}, func(e *ExperimentSummary) []any {
		return []any{&e.ID, &e.Name, &e.Description, &e.Format, &e.Synthetic}
	})
}
