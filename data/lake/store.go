package lake

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"

	"github.com/auditscope/auditscope/data"
	"github.com/auditscope/auditscope/data/model"
)

// Write writes the store's datasets and experiments into the lake at dir:
// a new generation for each whose content the manifest does not have yet,
// then the manifest naming them, beside what it named before of other
// datasets and experiments. Generations the new manifest no longer names
// are left for readers still on the old one. Writes to one lake run one at
// a time (Lock). A write that would replace a dataset or experiment with an
// older import than the lake's is refused before anything is written
// (RollbackError), unless opts.Force.
func Write(ctx context.Context, s *data.Store, dir string, opts WriteOptions) (Result, error) {
	var res Result
	// Absolute: DuckDB reads a leading ~ as the home folder.
	dir, err := filepath.Abs(dir)
	if err != nil {
		return res, fmt.Errorf("lake: %w", err)
	}
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return res, fmt.Errorf("lake: %w", err)
	}
	lock, err := Acquire(dir, opts.Log)
	if err != nil {
		return res, err
	}
	defer lock.Release()
	old, err := ReadManifest(dir)
	if err != nil && !errors.Is(err, os.ErrNotExist) {
		return res, err
	}
	// Score tables left to build later (the built-in demo) are built now:
	// the lake's readers query them.
	if err := s.BuildPendingScores(ctx); err != nil {
		return res, err
	}
	stored, err := s.Generations(ctx)
	if err != nil {
		return res, fmt.Errorf("lake: %w", err)
	}
	gens := make([]Generation, len(stored))
	for i, g := range stored {
		gens[i] = Generation(g)
	}
	plan, err := NewPlan(dir, old, gens, opts.Force)
	if err != nil {
		return res, err
	}
	for _, g := range plan.Write {
		if err := writeGeneration(ctx, s, dir, g); err != nil {
			return res, err
		}
		res.Written = append(res.Written, g.What())
	}
	res.Unchanged = plan.Unchanged
	return res, plan.Commit(res.Written)
}

// writeGeneration writes every table of one dataset or experiment as a
// generation. Each file is written beside and renamed into place, so a
// file that is there is whole.
func writeGeneration(ctx context.Context, s *data.Store, dir string, g Generation) error {
	for _, t := range Tables {
		if t.Family != g.Family {
			continue
		}
		d := GenDir(dir, t.Name, g.Family, g.Name, g.Gen)
		if err := os.MkdirAll(d, 0o755); err != nil {
			return fmt.Errorf("lake: %w", err)
		}
		tmp := filepath.Join(d, ".data.parquet.tmp")
		if err := s.CopyPartition(ctx, t.Name, t.Key, g.Name, tmp); err != nil {
			return fmt.Errorf("lake: write %s of %s %s: %w", t.Name, g.Family, g.Name, err)
		}
		// On disk before it is named as whole (a power loss must not leave
		// a manifest naming an empty file).
		if err := SyncFile(tmp); err != nil {
			return fmt.Errorf("lake: %w", err)
		}
		if err := os.Rename(tmp, filepath.Join(d, "data.parquet")); err != nil {
			return fmt.Errorf("lake: %w", err)
		}
		if err := SyncFile(d); err != nil {
			return fmt.Errorf("lake: %w", err)
		}
	}
	return nil
}

// Store serves a lake (auditscope serve --lake): an in-memory store whose
// tables are views over the Parquet files of the generations the manifest
// names, so every page runs its usual queries on the lake without
// importing it. Refresh follows the manifest: when it changes, the views
// are rebuilt under the write side of the store's view lock (no request
// sees half of it) and the versions of the datasets and experiments whose
// generation changed move, so the caches follow. A manifest or file that
// cannot be read leaves the last good state serving.
type Store struct {
	*data.Store
	r *Reader
}

// Open opens the lake at dir for reading, with DuckDB's memory capped at
// memoryLimit (as data.Options.MemoryLimit; "" for DuckDB's default). It
// fails, naming the file, when the manifest or a file it names cannot be
// read or does not match the manifest's checksum.
func Open(ctx context.Context, dir, memoryLimit string) (*Store, error) {
	// Absolute: DuckDB reads a leading ~ as the home folder.
	dir, err := filepath.Abs(dir)
	if err != nil {
		return nil, fmt.Errorf("lake: %w", err)
	}
	s, err := data.Open(ctx, data.Options{MemoryLimit: memoryLimit})
	if err != nil {
		return nil, err
	}
	l := &Store{Store: s, r: NewReader(dir)}
	if _, err := l.Refresh(ctx); err != nil {
		s.Close()
		return nil, err
	}
	return l, nil
}

// Refresh reads the lake's manifest again and, if it changed, serves the
// generations it names; it reports whether anything changed. On an error
// the store keeps serving what it served.
func (l *Store) Refresh(ctx context.Context) (bool, error) {
	u, err := l.r.Next()
	if u == nil {
		return false, err
	}
	views := make([]data.FileView, 0, len(Tables))
	for _, t := range Tables {
		v := data.FileView{Table: t.Name, Key: t.Key}
		for _, p := range u.Parts[t.Name] {
			v.Parts = append(v.Parts, data.FilePart(p))
		}
		views = append(views, v)
	}
	// Not the request's cancellation: the refresh is for every request.
	err = l.ServeFiles(context.WithoutCancel(ctx), l.r.Dir(), views, u.Changed)
	return err == nil, l.r.Done(u, err)
}

// IsLake reports true.
func (l *Store) IsLake() bool { return true }

// LakeProblem is why the lake's newest manifest is not served, nil when it
// is: the pages serve the last good generation meanwhile, and the home
// page says so.
func (l *Store) LakeProblem() *model.InputError { return l.r.Problem() }

// LakeProblemVersion counts the changes to LakeProblem, for caches of the
// pages that show it.
func (l *Store) LakeProblemVersion() int64 { return l.r.ProblemVersion() }
