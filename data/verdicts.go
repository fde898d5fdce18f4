package data

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"maps"
	"os"
	"slices"
	"strings"

	"github.com/auditscope/auditscope/data/internal/digest"
	"github.com/auditscope/auditscope/data/internal/imports"
	"github.com/auditscope/auditscope/data/labels"
	"github.com/auditscope/auditscope/data/logs"
	"github.com/auditscope/auditscope/data/model"
)

// AddVerdicts attaches other judges' verdicts to audits of experiment exp
// (issue #51): a Petri folder re-judged, people's labels. They land whole
// or not at all, as an append to the experiment's import, so a --replace
// of the experiment takes them with it. Refused, each at its file and
// line: a verdict on an audit the experiment does not have, a score
// outside its scale (1–10; a person's labels on a dimension may be 0/1
// instead), the same judge's score given twice, and a judge that has
// judged one of these audits already.
func (s *Store) AddVerdicts(ctx context.Context, exp, source, hash string, vs []model.Verdict) (model.ImportResult, error) {
	s.appendMu.Lock()
	defer s.appendMu.Unlock()
	var base int64
	var format string
	err := s.db.QueryRowContext(ctx, `SELECT import_id, format FROM experiments WHERE id = ?`, exp).Scan(&base, &format)
	if errors.Is(err, sql.ErrNoRows) {
		return model.ImportResult{}, fmt.Errorf("experiment %q: %w", exp, ErrNotFound)
	}
	if err != nil {
		return model.ImportResult{}, fmt.Errorf("data: verdicts: %w", err)
	}
	if len(vs) == 0 {
		return model.ImportResult{}, &model.InputError{File: source, Offset: -1, Msg: "no verdicts in it"}
	}
	if err := s.checkVerdicts(ctx, exp, vs); err != nil {
		return model.ImportResult{}, err
	}
	judges := map[string]bool{}
	var scores int64
	for _, v := range vs {
		judges[v.Judge] = true
		scores += int64(len(v.Scores))
	}
	names := slices.Sorted(maps.Keys(judges))
	r := model.ImportResult{Kind: format, Name: exp, Source: source, Hash: hash,
		Counts: map[string]int64{"verdicts": int64(len(vs)), "verdict_scores": scores},
		Notes:  []string{"the verdicts of " + strings.Join(names, ", ") + " on audits of " + exp}}
	err = s.imp.Run(ctx, func(tx *imports.Tx) error {
		tx.SourceAs(source)
		return writeVerdicts(tx, exp, base, vs, &r)
	})
	return r, err
}

func writeVerdicts(tx *imports.Tx, exp string, base int64, vs []model.Verdict, r *model.ImportResult) error {
	va, err := tx.Appender("verdicts")
	if err != nil {
		return err
	}
	sa, err := tx.Appender("verdict_scores")
	if err != nil {
		return errors.Join(err, va.Close())
	}
	oa, err := tx.Appender("verdict_outcomes")
	if err != nil {
		return errors.Join(err, va.Close(), sa.Close())
	}
	for _, v := range vs {
		src := v.File
		if v.Line > 0 {
			src += fmt.Sprintf(":%d", v.Line)
		} else if v.Path != "" {
			src += ": " + v.Path
		}
		if err = va.Row(exp, v.Audit, v.Judge, v.Kind, v.Summary, src); err != nil {
			break
		}
		for _, d := range slices.Sorted(maps.Keys(v.Scores)) {
			if err = sa.Row(exp, v.Audit, v.Judge, d, v.Scores[d]); err != nil {
				break
			}
		}
		if o := v.Outcome; err == nil && !o.Empty() {
			err = oa.Row(exp, v.Audit, v.Judge, orNull(o.Detected), orNull(o.FalsePositive), orNull(o.Quality), orNull(o.ProductionValue))
		}
		if err != nil {
			break
		}
	}
	if err := errors.Join(err, va.Close(), sa.Close(), oa.Close()); err != nil {
		return fmt.Errorf("data: verdicts: %w", err)
	}
	if _, err := tx.Record(r); err != nil {
		return err
	}
	tx.SetBase(base)
	r.Rows = tx.Rows()
	return nil
}

// orNull is *p, or NULL for nil.
func orNull[T any](p *T) any {
	if p == nil {
		return nil
	}
	return *p
}

// checkVerdicts refuses what AddVerdicts must not land.
func (s *Store) checkVerdicts(ctx context.Context, exp string, vs []model.Verdict) error {
	ids := make([]string, 0, len(vs))
	for _, v := range vs {
		ids = append(ids, v.Audit)
	}
	have := map[string]bool{}
	if err := s.eachRow(ctx, `SELECT id FROM audits WHERE experiment = ? AND id IN (SELECT unnest(?::VARCHAR[]))`, func(r *sql.Rows) error {
		var id string
		err := r.Scan(&id)
		have[id] = true
		return err
	}, exp, ids); err != nil {
		return err
	}
	judged := map[[2]string]bool{}
	if err := s.eachRow(ctx, `SELECT judge, audit FROM verdicts WHERE experiment = ? AND audit IN (SELECT unnest(?::VARCHAR[]))`, func(r *sql.Rows) error {
		var j, a string
		err := r.Scan(&j, &a)
		judged[[2]string{j, a}] = true
		return err
	}, exp, ids); err != nil {
		return err
	}
	seen := map[[2]string]bool{}
	for _, v := range vs {
		at := func(msg string, args ...any) error {
			return &model.InputError{File: v.File, Line: v.Line, Path: v.Path, Offset: -1, Msg: fmt.Sprintf(msg, args...)}
		}
		switch k := [2]string{v.Judge, v.Audit}; {
		case strings.TrimSpace(v.Judge) == "":
			return at("the judge has no name")
		case !have[v.Audit]:
			return at("experiment %s has no audit %q: a verdict attaches to an audit imported already", exp, v.Audit)
		case judged[k]:
			return at("judge %q has judged audit %q of %s already", v.Judge, v.Audit, exp)
		case seen[k]:
			return at("judge %q's verdict on audit %q is given twice", v.Judge, v.Audit)
		default:
			seen[k] = true
		}
	}
	if i, why := model.BadScore(vs); i >= 0 {
		v := vs[i]
		return &model.InputError{File: v.File, Line: v.Line, Path: v.Path, Offset: -1, Msg: why}
	}
	return nil
}

// eachRow runs a query and scans each row.
func (s *Store) eachRow(ctx context.Context, query string, scan func(*sql.Rows) error, args ...any) error {
	rows, err := s.db.QueryContext(ctx, query, args...)
	if err != nil {
		return fmt.Errorf("data: %w", err)
	}
	defer rows.Close()
	for rows.Next() {
		if err := scan(rows); err != nil {
			return fmt.Errorf("data: %w", err)
		}
	}
	return rows.Err()
}

// ImportVerdicts attaches the verdicts a file or folder holds to the
// audits of experiment exp: people's labels (a .csv, .jsonl or .ndjson of
// audit, dimension, value and rater; each rater a judge), or Petri
// transcripts re-judged or Inspect logs rescored by judge, which must then
// be named.
func (s *Store) ImportVerdicts(ctx context.Context, exp, path, judge string, maxValue int64) (model.ImportResult, error) {
	lower := strings.ToLower(path)
	labelled := strings.HasSuffix(lower, ".csv") || strings.HasSuffix(lower, ".jsonl") || strings.HasSuffix(lower, ".ndjson")
	var vs []model.Verdict
	var hash string
	var err error
	switch {
	case labelled && judge != "":
		return model.ImportResult{}, fmt.Errorf("%s: people's labels name their raters; --judge is for re-judged transcripts", path)
	case labelled:
		hash, err = digest.File(path)
		if err != nil {
			return model.ImportResult{}, err
		}
		f, err := os.Open(path)
		if err != nil {
			return model.ImportResult{}, err
		}
		defer f.Close()
		ls, err := labels.Read(f, path)
		if err != nil {
			return model.ImportResult{}, err
		}
		if vs, err = labels.Verdicts(ls, path); err != nil {
			return model.ImportResult{}, err
		}
	case judge == "":
		return model.ImportResult{}, fmt.Errorf("%s: name the judge that judged these again (--judge): Petri files do not record it, and a rescored log's judge is not told from its first one", path)
	default:
		if hash, err = digest.Tree(path); err != nil {
			return model.ImportResult{}, err
		}
		if vs, err = logs.Rejudged(ctx, exp, path, judge, maxValue, func() (map[[3]string]string, error) { return s.SampleAudits(ctx, exp) }); err != nil {
			return model.ImportResult{}, err
		}
	}
	return s.AddVerdicts(ctx, exp, path, hash, vs)
}
