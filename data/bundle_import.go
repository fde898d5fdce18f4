package data

import (
	"context"
	"errors"
	"fmt"
	"sync/atomic"

	"github.com/auditscope/auditscope/data/bundle"
	"github.com/auditscope/auditscope/data/model"

	"github.com/auditscope/auditscope/data/internal/digest"
	"github.com/auditscope/auditscope/data/internal/imports"
	"github.com/auditscope/auditscope/data/internal/memlimit"
)

// ImportBundleFile imports a bundle folder or .zip.
func (s *Store) ImportBundleFile(ctx context.Context, path string, opts ImportOptions) (model.ImportResult, error) {
	hash, err := digest.Tree(path)
	if err != nil {
		return model.ImportResult{}, fmt.Errorf("import %s: %w", path, err)
	}
	if r, ok, err := s.alreadyImported(ctx, model.KindBundle, opts.Name, hash); err != nil || ok {
		return r, err
	}
	src, closer, err := bundle.Open(ctx, path, opts.MaxValue)
	if err != nil {
		return model.ImportResult{}, bundle.InputError(path, err)
	}
	defer closer.Close()
	return s.ImportBundle(ctx, src, hash, opts)
}

// bundleRetries counts bundle imports run again at the default memory limit
// (for tests).
var bundleRetries atomic.Int64

// ImportBundle imports an experiment bundle in one transaction, validating
// every record. hash identifies the content (for idempotent re-imports).
func (s *Store) ImportBundle(ctx context.Context, src bundle.Source, hash string, opts ImportOptions) (res model.ImportResult, err error) {
	if r, ok, err := s.alreadyImported(ctx, model.KindBundle, opts.Name, hash); err != nil || ok {
		return r, err
	}
	run := func() error {
		return s.imp.Run(ctx, func(tx *imports.Tx) error {
			tx.SourceAs(opts.Source)
			res, err = bundle.Load(ctx, bundleTx{tx}, src, hash, bundleLoadOptions(opts))
			return err
		})
	}
	err = s.mem.Import(ctx, bundleImportMemoryMiB, run)
	// The import rolled back; a bundle can be read again, so it runs once
	// more at DuckDB's default limit. Not after a failed commit (DuckDB may
	// have given up on the database) nor while another import holds the
	// limit lowered.
	if memlimit.IsOutOfMemory(err) && !errors.Is(err, imports.ErrCommit) && s.mem.Enabled() && !s.mem.Lowered() {
		first := err
		bundleRetries.Add(1)
		if err = run(); err != nil {
			err = errors.Join(err, fmt.Errorf("(a first attempt under a %d MiB memory limit: %w)", bundleImportMemoryMiB, first))
		}
	}
	if err == nil && opts.DeferScores && !res.Unchanged {
		s.mu.Lock()
		if s.pendingScores == nil {
			s.pendingScores = map[string]bool{}
		}
		s.pendingScores[res.Name] = true
		s.mu.Unlock()
	}
	if err == nil && opts.Transcripts != nil {
		s.ServeTranscripts(res.Name, opts.Transcripts)
	}
	if errors.Is(err, errUnchanged) {
		return model.ImportResult{Kind: bundle.SourceKind(src), Name: opts.Name, Source: src.Name(), Hash: hash, Unchanged: true}, nil
	}
	return res, bundle.InputError(src.Name(), err)
}

// bundleLoadOptions are the bundle loader's options of an import's.
func bundleLoadOptions(opts ImportOptions) bundle.LoadOptions {
	return bundle.LoadOptions{Name: opts.Name, Replace: opts.Replace, Synthetic: opts.Synthetic,
		MemoryTranscripts: opts.Transcripts != nil, DeferScores: opts.DeferScores}
}

// bundleTx is an import's transaction as the bundle loader writes it
// (bundle.Tx).
type bundleTx struct{ *imports.Tx }

// AuditScores is insertAuditScores for the bundle loader: the scores of
// this import's audits of exp, n rows.
func (tx bundleTx) AuditScores(exp string, n int64, dims []string) error {
	tx.AddRows(n)
	return insertAuditScores(tx.Tx, exp, tx.Gen(), dims)
}

// AddExperiment writes the experiment's own row, last: it says the rest is
// in.
func (tx bundleTx) AddExperiment(e bundle.Row) error {
	return tx.Exec(`INSERT INTO experiments (id, import_id, name, description, synthetic, format) VALUES (?, ?, ?, ?, ?, ?)`,
		e.ID, e.ImportID, e.Name, e.Description, e.Synthetic, e.Format)
}

// insertAuditScores builds an experiment's long score table from each
// audit's scores object, for the dimensions dims (those without a score
// column): one vectorised statement instead of a call per score. The other
// dimensions' scores are in the score columns alone (a lake writes them out
// into its audit_scores: load.AllScores).
//
// The rows take the generation of the audits they come from. When they are
// built after the import (BuildPendingScores), a kill midway would leave
// part of them under a complete generation; only the built-in demo defers
// them, and it lives in an in-memory database.
func insertAuditScores(tx *imports.Tx, exp string, gen int64, dims []string) error {
	if len(dims) == 0 {
		return nil // every dimension has a score column
	}
	// Each scores object read once into a MAP and unnested: 3.5 s of
	// 100,000 audits' 3.8 million scores, where json_each took 6 s.
	if err := tx.Exec(`INSERT INTO audit_scores (experiment, audit, dimension, score, gen)
SELECT experiment, id, d, v, gen FROM (
SELECT experiment, id, gen, unnest(map_keys(m)) AS d, unnest(map_values(m)) AS v
FROM (SELECT experiment, id, gen, json_transform(scores, '"MAP(VARCHAR, DOUBLE)"') AS m FROM audits WHERE experiment = ? AND gen = ? AND scores IS NOT NULL))
WHERE d IN (SELECT unnest(?::VARCHAR[]))`, exp, gen, dims); err != nil {
		return fmt.Errorf("audit scores: %w", err)
	}
	return nil
}

// BuildPendingScores builds audit_scores for the experiments imported with
// DeferScores, each in its own transaction. Until it has run, score filters
// read the scores JSON of each audit (slower, same results).
func (s *Store) BuildPendingScores(ctx context.Context) error {
	s.mu.RLock()
	var exps []string
	for e := range s.pendingScores {
		exps = append(exps, e)
	}
	s.mu.RUnlock()
	for _, e := range exps {
		if err := s.imp.Run(ctx, func(tx *imports.Tx) error {
			var gen int64
			if err := tx.Conn().QueryRowContext(ctx, `SELECT max(import_id) FROM experiments WHERE id = ?`, e).Scan(&gen); err != nil {
				return err
			}
			rows, err := tx.Conn().QueryContext(ctx, `SELECT DISTINCT dimension FROM experiment_dimensions WHERE experiment = ? AND slot IS NULL ORDER BY 1`, e)
			if err != nil {
				return err
			}
			var dims []string
			for rows.Next() {
				var d string
				if err := rows.Scan(&d); err != nil {
					rows.Close()
					return err
				}
				dims = append(dims, d)
			}
			rows.Close()
			if err := rows.Err(); err != nil {
				return err
			}
			return insertAuditScores(tx, e, gen, dims)
		}); err != nil {
			return fmt.Errorf("data: build scores of %s: %w", e, err)
		}
		s.mu.Lock()
		delete(s.pendingScores, e)
		s.mu.Unlock()
	}
	return nil
}

// ServeTranscripts makes src the source of the transcripts of exp's audits
// that a bundle imported with ImportOptions.Transcripts marked as served
// from memory: the import does it, and a store opened from a saved copy
// of one (the demo kept between starts) does it again, since the source
// is the process's own.
func (s *Store) ServeTranscripts(exp string, src func(auditID string) ([]byte, error)) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.transcripts == nil {
		s.transcripts = map[string]func(string) ([]byte, error){}
	}
	s.transcripts[exp] = src
}
