package data

import (
	"context"
	"database/sql"
	"encoding/json"
	"errors"
	"fmt"
	"strings"

	"github.com/auditscope/auditscope/data/bundle"
	"github.com/auditscope/auditscope/data/internal/digest"
	"github.com/auditscope/auditscope/data/internal/imports"
	"github.com/auditscope/auditscope/data/logs"
	"github.com/auditscope/auditscope/data/model"
)

// errNothingNew aborts an append that would add nothing.
var errNothingNew = errors.New("nothing new")

// AppendLogs adds Petri transcripts and Inspect logs (paths relative to
// root) to the experiment name, which a log import made: the audits whose
// ids are not in the experiment yet, new auditors and behaviors, and the
// header of each Inspect log that changed (a log still being written gains
// samples and, at the end, its results). Audits already there are left as
// they are, whatever the file says now: a transcript that changed needs a
// full import (serve --watch makes one).
//
// Only the named files are read, so the cost follows them, not the
// experiment. The append is one generation of its own that extends the
// experiment's (imports.base): it lands whole or not at all, like any
// import. Unchanged is set when there was nothing to add.
func (s *Store) AppendLogs(ctx context.Context, name, root string, rels []string, opts ImportOptions) (model.ImportResult, error) {
	// Two appends at once would each find an audit missing and both add it.
	s.appendMu.Lock()
	defer s.appendMu.Unlock()
	var base int64
	var format string
	err := s.db.QueryRowContext(ctx, `SELECT import_id, format FROM experiments WHERE id = ?`, name).Scan(&base, &format)
	if errors.Is(err, sql.ErrNoRows) {
		return model.ImportResult{}, fmt.Errorf("experiment %q: %w", name, ErrNotFound)
	}
	if err != nil {
		return model.ImportResult{}, fmt.Errorf("data: append: %w", err)
	}
	if format != model.KindPetri && format != model.KindInspect {
		return model.ImportResult{}, fmt.Errorf("data: append: experiment %q was imported from a %s, not from logs", name, format)
	}
	opts.Name, opts.Files, opts.Replace = name, rels, false
	if err := logs.CheckWithin(root, rels); err != nil {
		return model.ImportResult{}, err
	}
	hash, err := digest.Files(root, rels)
	if err != nil {
		return model.ImportResult{}, fmt.Errorf("append to %s: %w", name, err)
	}
	src, err := logs.Open(ctx, root, logOptions(opts))
	if err != nil {
		return model.ImportResult{}, err
	}
	var res model.ImportResult
	err = s.imp.Run(ctx, func(tx *imports.Tx) error {
		tx.SourceAs(opts.Source)
		res, err = appendLogs(ctx, tx, src, name, base, hash, opts)
		return err
	})
	if errors.Is(err, errNothingNew) {
		return model.ImportResult{Kind: src.Kind(), Name: name, Source: root, Hash: hash, Unchanged: true}, nil
	}
	return res, err
}

func appendLogs(ctx context.Context, tx *imports.Tx, src *logs.Source, exp string, base int64, hash string, opts ImportOptions) (model.ImportResult, error) {
	app, err := appendState(ctx, tx, src, exp)
	if err != nil {
		return model.ImportResult{}, err
	}
	counts, err := bundle.Append(ctx, bundleTx{tx}, src, exp, app, bundleLoadOptions(opts))
	if err != nil {
		return model.ImportResult{}, err
	}
	if app.Added == 0 && app.Headers == 0 {
		return model.ImportResult{}, errNothingNew
	}
	kind := src.Kind()
	r := model.ImportResult{Kind: kind, Name: exp, Source: src.Name(), Hash: hash, Counts: counts}
	r.Counts["audits"] = int64(app.Added)
	if _, err := tx.Record(&r); err != nil {
		return r, err
	}
	tx.SetBase(base)
	if kind == model.KindInspect {
		// Once a folder holds an Inspect log its pages speak Inspect's
		// terms. With the mark: the experiment's row is the base's, which a
		// kill before the mark would not take back.
		tx.OnMark(`UPDATE experiments SET format = ? WHERE id = ? AND format = ?`, model.KindInspect, exp, model.KindPetri)
	}
	if err := redescribe(ctx, tx, exp); err != nil {
		return r, err
	}
	r.Rows = tx.Rows()
	return r, nil
}

// appendState reads what an append to experiment exp needs of what it
// holds: its behaviors' splits, its auditors, which of src's audit ids it
// has and from which log, its dimensions' score columns, the next ord and
// its Inspect logs.
func appendState(ctx context.Context, tx *imports.Tx, src *logs.Source, exp string) (*bundle.AppendState, error) {
	app := &bundle.AppendState{Split: map[string]string{}, Auditors: map[string]bool{}, Existing: map[string]bool{}, Source: map[string]string{},
		LogOrd: map[string]int32{}, LogHead: map[string]string{}, Slots: map[string]int{}}
	q := func(query string, scan func(*sql.Rows) error, args ...any) error {
		rows, err := tx.Conn().QueryContext(ctx, query, args...)
		if err != nil {
			return fmt.Errorf("data: append: %w", err)
		}
		defer rows.Close()
		for rows.Next() {
			if err := scan(rows); err != nil {
				return err
			}
		}
		return rows.Err()
	}
	return app, errors.Join(
		q(`SELECT id, split FROM behaviors WHERE experiment = ?`, func(r *sql.Rows) error {
			var id, sp string
			err := r.Scan(&id, &sp)
			app.Split[id] = sp
			return err
		}, exp),
		q(`SELECT id FROM auditors WHERE experiment = ?`, func(r *sql.Rows) error {
			var id string
			err := r.Scan(&id)
			app.Auditors[id] = true
			return err
		}, exp),
		// Only the ids these files hold are looked up.
		q(`SELECT id, coalesce(labels->>'$.source', '') FROM audits WHERE experiment = ? AND id IN (SELECT unnest(?::VARCHAR[]))`, func(r *sql.Rows) error {
			var id, source string
			err := r.Scan(&id, &source)
			app.Existing[id] = true
			app.Source[id] = source
			return err
		}, exp, src.IDs()),
		// A dimension keeps its score column; one without a column on any
		// of its rows (imported before the columns existed) stays without.
		q(`SELECT dimension, CASE WHEN count(slot) = count(*) AND min(slot) = max(slot) THEN min(slot) ELSE ? END FROM experiment_dimensions WHERE experiment = ? GROUP BY dimension`, func(r *sql.Rows) error {
			var d string
			var slot int
			err := r.Scan(&d, &slot)
			app.Slots[d] = slot
			return err
		}, bundle.NoSlot, exp),
		q(`SELECT coalesce(max(ord), -1) + 1 FROM audits WHERE experiment = ?`, func(r *sql.Rows) error {
			return r.Scan(&app.FirstOrd)
		}, exp),
		q(`SELECT log, ord, task, model, status, samples, total_samples, results FROM inspect_logs WHERE experiment = ?
			QUALIFY row_number() OVER (PARTITION BY log ORDER BY gen DESC) = 1`, func(r *sql.Rows) error {
			var lg model.InspectLog
			var ord int32
			var total sql.NullInt64
			var results sql.NullString
			if err := r.Scan(&lg.Log, &ord, &lg.Task, &lg.Model, &lg.Status, &lg.Samples, &total, &results); err != nil {
				return err
			}
			if total.Valid {
				n := int(total.Int64)
				lg.Total = &n
			}
			if results.Valid {
				if err := json.Unmarshal([]byte(results.String), &lg.Scores); err != nil {
					return fmt.Errorf("data: inspect log %s: results: %w", lg.Log, err)
				}
			}
			app.LogOrd[lg.Log], app.LogHead[lg.Log] = ord, bundle.LogHeadKey(&lg)
			app.NextLog = max(app.NextLog, ord+1)
			return nil
		}, exp),
	)
}

// redescribe says in the experiment's description what it holds after an
// append (the transcripts, logs, samples and epochs of the whole
// experiment, its own rows counted in its transaction), keeping where it
// was imported from: the home page and the experiment's header otherwise
// went on counting the first import's files. The description is written
// with the append's mark (Tx.OnMark).
func redescribe(ctx context.Context, tx *imports.Tx, exp string) error {
	var desc string
	var petri, samples, distinct, epochs, inspect int
	err := tx.Conn().QueryRowContext(ctx, `SELECT e.description,
		count(*) FILTER (WHERE json_extract_string(a.labels, '$.task') IS NULL),
		count(*) FILTER (WHERE json_extract_string(a.labels, '$.task') IS NOT NULL),
		count(DISTINCT (json_extract_string(a.labels, '$.source'), json_extract_string(a.labels, '$.sample'))) FILTER (WHERE json_extract_string(a.labels, '$.task') IS NOT NULL),
		coalesce(max(TRY_CAST(json_extract_string(a.labels, '$.epoch') AS INTEGER)), 0),
		(SELECT count(DISTINCT log) FROM inspect_logs l WHERE l.experiment = e.id)
		FROM experiments e LEFT JOIN audits a ON a.experiment = e.id WHERE e.id = ? GROUP BY e.id, e.description`, exp).
		Scan(&desc, &petri, &samples, &distinct, &epochs, &inspect)
	if err != nil {
		return fmt.Errorf("data: append: describe %s: %w", exp, err)
	}
	from, _, ok := strings.Cut(strings.TrimPrefix(desc, "Imported from "), ": ")
	if !ok || !strings.HasPrefix(desc, "Imported from ") {
		return nil // a description someone wrote: kept
	}
	// With the mark, as the format above.
	tx.OnMark(`UPDATE experiments SET description = ? WHERE id = ?`, logs.Description(from, logs.Read(petri, inspect, samples, distinct, epochs)), exp)
	return nil
}
