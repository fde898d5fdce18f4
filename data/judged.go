package data

import (
	"context"
	"database/sql"
	"encoding/json"
	"fmt"
	"math"
	"strconv"

	"github.com/auditscope/auditscope/data/model"
	"github.com/auditscope/auditscope/data/petri"
)

// JudgedAudits reads an experiment's audits (not plain Inspect samples,
// which have no eval, target or auditor to group by) with everything the
// judge-scored overview and its validity gate need, and their scores in
// every judge dimension of the experiment: one query over the audits, the
// scores read from their columns (or, where a dimension has none, from
// each audit's scores JSON). A missing experiment is ErrNotFound.
func (s *Store) JudgedAudits(ctx context.Context, exp string) (model.JudgedSet, error) {
	return s.judgedAudits(ctx, exp, nil, "")
}

// JudgedBy is JudgedAudits of the audits another judge judged (issue #51's
// judges pages read no more), with the evaluation judge's scores of dims:
// their ids, auditors, seeds and scores, without the validity gate's
// labels.
func (s *Store) JudgedBy(ctx context.Context, exp, judge string, dims []string) (model.JudgedSet, error) {
	return s.judgedAudits(ctx, exp, dims, judge)
}

func (s *Store) judgedAudits(ctx context.Context, exp string, dims []string, judgedBy string) (model.JudgedSet, error) {
	var out model.JudgedSet
	if _, err := s.Experiment(ctx, exp); err != nil {
		return out, err
	}
	if dims == nil {
		var err error
		if dims, err = s.ScoreDimensions(ctx, exp); err != nil {
			return out, err
		}
	}
	out.Dimensions = dims
	cols, err := s.scoreColumns(ctx, exp, dims)
	if err != nil {
		return out, fmt.Errorf("data: judged audits: %w", err)
	}
	query, qargs, slotted, nsel := judgedQuery(exp, dims, judgedBy, cols)
	rows, err := s.db.QueryContext(ctx, query, qargs...)
	if err != nil {
		return out, fmt.Errorf("data: judged audits: %w", err)
	}
	defer rows.Close()
	var (
		source, sample, epoch, replies, judge, conv, scores sql.NullString
		hasJSON                                             bool
	)
	vals := make([]sql.NullFloat64, nsel)
	for rows.Next() {
		var a model.JudgedAudit
		dst := []any{&a.Key, &a.ID, &a.Auditor, &a.AuditorID, &a.Target, &a.Seed, &a.Summary, &source, &sample, &epoch, &replies, &judge, &conv, &hasJSON, &scores}
		for i := range vals {
			dst = append(dst, &vals[i])
		}
		if err := rows.Scan(dst...); err != nil {
			return out, fmt.Errorf("data: judged audits: %w", err)
		}
		a.Source, a.Judge, a.Conversation = source.String, judge.String, conv.String
		if sample.Valid && sample.String != "" {
			// An Inspect sample's id is its seed across logs (the audit's
			// seed column is prefixed with the log's name).
			a.Seed = sample.String
		}
		a.Epoch, _ = strconv.Atoi(epoch.String)
		a.TargetReplies = -1
		if n, err := strconv.Atoi(replies.String); err == nil {
			a.TargetReplies = n
		}
		a.Scores = make([]float64, len(dims))
		var m map[string]float64
		if hasJSON {
			if err := json.Unmarshal([]byte(scores.String), &m); err != nil {
				return out, fmt.Errorf("data: judged audits: scores of %s: %w", a.Key, err)
			}
		}
		k := 0
		for i, d := range dims {
			a.Scores[i] = math.NaN()
			if slotted[i] {
				if vals[k].Valid {
					a.Scores[i] = vals[k].Float64
				}
				k++
			} else if v, ok := m[d]; ok {
				a.Scores[i] = v
			}
		}
		out.Audits = append(out.Audits, a)
	}
	return out, rows.Err()
}

// judgedQuery is judgedAudits' query and arguments: slotted marks the
// dimensions read from score columns (nsel of them, after the JSON).
func judgedQuery(exp string, dims []string, judgedBy string, cols map[string]scoreCol) (query string, qargs []any, slotted []bool, nsel int) {
	var sel []string
	var args []any
	slotted = make([]bool, len(dims))
	for i, d := range dims {
		if c, ok := cols[d]; ok {
			sel = append(sel, c.sql)
			args = append(args, c.args...)
			slotted[i] = true
		}
	}
	jsonScores := len(sel) < len(dims)
	labels := `json_extract_string(a.labels, '$.source'), json_extract_string(a.labels, '$.sample'), json_extract_string(a.labels, '$.epoch'),
		json_extract_string(a.labels, '$.` + petri.LabelTargetReplies + `'), json_extract_string(a.labels, '$.` + petri.LabelJudge + `'),
		json_extract_string(a.labels, '$.` + petri.LabelConversation + `')`
	if judgedBy != "" {
		// The judges' pages read scores and seeds, not the gate's labels:
		// six JSON lookups a row were most of the read.
		labels = `NULL, json_extract_string(a.labels, '$.sample'), NULL, NULL, NULL, NULL`
	}
	query = `SELECT a.key, a.id, coalesce(u.name, a.auditor), a.auditor, a.target, a.seed, a.summary <> '', ` + labels + `, ` +
		strconv.FormatBool(jsonScores) + ` AND a.scores IS NOT NULL, a.scores`
	for _, c := range sel {
		query += ", " + c
	}
	query += ` FROM audits a LEFT JOIN auditors u ON u.experiment = a.experiment AND u.id = a.auditor
		WHERE a.experiment = ? AND a.eval <> ''`
	qargs = append(args, exp)
	if judgedBy != "" {
		query += ` AND a.id IN (SELECT audit FROM verdicts WHERE experiment = ? AND judge = ?)`
		qargs = append(qargs, exp, judgedBy)
	}
	query += ` ORDER BY a.ord`
	return query, qargs, slotted, len(sel)
}
