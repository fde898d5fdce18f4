package lake

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"sync/atomic"
	"time"

	"github.com/auditscope/auditscope/data"
	"github.com/auditscope/auditscope/data/bucket"
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
	if err := removeUnfinished(dir); err != nil {
		return res, err
	}
	old, err := ReadManifest(dir)
	if err != nil && !errors.Is(err, os.ErrNotExist) {
		return res, err
	}
	gens, err := storeGenerations(ctx, s)
	if err != nil {
		return res, err
	}
	plan, err := newPlan(ctx, folder(dir), old, gens, opts.Force)
	if err != nil {
		return res, err
	}
	sums := map[string]File{}
	for _, g := range plan.Write {
		if err := writeGeneration(ctx, s, dir, g, sums); err != nil {
			return res, err
		}
		res.Written = append(res.Written, g.What())
	}
	res.Unchanged = plan.Unchanged
	m, changed, err := plan.manifest(ctx, res.Written, sums)
	if err != nil || !changed {
		return res, err
	}
	return res, writeManifest(dir, m)
}

// unfinishedName is a data file being written (writeGeneration), renamed
// into place when whole.
const unfinishedName = ".data.parquet.tmp"

// removeUnfinished removes what a write that was interrupted left half
// written. Only a write holding the lock's writes them, and the caller
// holds it: every one there is another's that did not finish.
func removeUnfinished(dir string) error {
	return filepath.WalkDir(dir, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return nil // what cannot be read is not this write's to clean
		}
		if !d.IsDir() && d.Name() == unfinishedName {
			if err := os.Remove(p); err != nil && !errors.Is(err, fs.ErrNotExist) {
				return fmt.Errorf("lake: remove an interrupted write's file: %w", err)
			}
		}
		return nil
	})
}

// storeGenerations are the store's datasets and experiments with their
// generations. Score tables left to build later (the built-in demo) are
// built first: the lake's readers query them.
func storeGenerations(ctx context.Context, s *data.Store) ([]Generation, error) {
	if err := s.BuildPendingScores(ctx); err != nil {
		return nil, err
	}
	stored, err := s.Generations(ctx)
	if err != nil {
		return nil, fmt.Errorf("lake: %w", err)
	}
	gens := make([]Generation, len(stored))
	for i, g := range stored {
		gens[i] = Generation(g)
	}
	return gens, nil
}

// writeGeneration writes every table of one dataset or experiment as a
// generation, adding each file's checksum to sums. Each file is written
// beside and renamed into place, so a file that is there is whole.
func writeGeneration(ctx context.Context, s *data.Store, dir string, g Generation, sums map[string]File) error {
	for _, t := range Tables {
		if t.Family != g.Family {
			continue
		}
		d := GenDir(dir, t.Name, g.Family, g.Name, g.Gen)
		if err := os.MkdirAll(d, 0o755); err != nil {
			return fmt.Errorf("lake: %w", err)
		}
		tmp := filepath.Join(d, unfinishedName)
		if err := s.CopyPartition(ctx, t.Name, t.Key, g.Name, tmp); err != nil {
			return fmt.Errorf("lake: write %s of %s %s: %w", t.Name, g.Family, g.Name, err)
		}
		// On disk before it is named as whole (a power loss must not leave
		// a manifest naming an empty file).
		if err := SyncFile(tmp); err != nil {
			return fmt.Errorf("lake: %w", err)
		}
		f, err := checksum(tmp)
		if err != nil {
			return fmt.Errorf("lake: %w", err)
		}
		if err := os.Rename(tmp, filepath.Join(d, "data.parquet")); err != nil {
			return fmt.Errorf("lake: %w", err)
		}
		if err := SyncFile(d); err != nil {
			return fmt.Errorf("lake: %w", err)
		}
		sums[FileRel(t.Name, g.Family, g.Name, g.Gen)] = f
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
	// For a lake in a bucket: the cache, how often to look at the
	// manifest, when to look next (Unix ns), whether a look is running, and
	// the last look's error.
	cache *cache
	every time.Duration
	next  atomic.Int64
	busy  atomic.Bool
	err   atomic.Pointer[string]
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
	return open(ctx, &Store{r: NewReader(dir)}, memoryLimit)
}

// OpenBucket opens the lake under a bucket prefix for reading, as Open,
// serving local copies of its files (opts.Cache) and following its
// manifest in the background (opts.Every).
func OpenBucket(ctx context.Context, b *bucket.Bucket, memoryLimit string, opts BucketOptions) (*Store, error) {
	dir, err := filepath.Abs(opts.Cache)
	if err != nil {
		return nil, fmt.Errorf("lake: %w", err)
	}
	c, err := openCache(b, dir, opts.CacheSize)
	if err != nil {
		return nil, err
	}
	l, err := open(ctx, &Store{r: newReader(c), cache: c, every: opts.Every}, memoryLimit)
	if err != nil {
		c.close()
		return nil, err
	}
	l.next.Store(time.Now().Add(l.every).UnixNano())
	return l, nil
}

func open(ctx context.Context, l *Store, memoryLimit string) (*Store, error) {
	s, err := data.Open(ctx, data.Options{MemoryLimit: memoryLimit})
	if err != nil {
		return nil, err
	}
	l.Store = s
	if _, err := l.sync(ctx); err != nil {
		s.Close()
		return nil, err
	}
	return l, nil
}

// Close closes the store and lets its cache folder go.
func (l *Store) Close() error {
	err := l.Store.Close()
	l.r.Close()
	return err
}

// Refresh follows the lake's manifest; it reports whether what is served
// changed. A lake in a folder is read now: if the manifest changed, the
// generations it names are served before Refresh returns. A lake in a
// bucket is read in the background at most every BucketOptions.Every, and
// Refresh returns at once with the last look's error: a request never
// waits for the bucket. On an error the store keeps serving what it
// served.
func (l *Store) Refresh(ctx context.Context) (bool, error) {
	if l.cache == nil {
		return l.sync(ctx)
	}
	var err error
	if msg := l.err.Load(); msg != nil {
		err = errors.New(*msg)
	}
	now := time.Now()
	if now.UnixNano() < l.next.Load() || !l.busy.CompareAndSwap(false, true) {
		return false, err
	}
	l.next.Store(now.Add(l.every).UnixNano())
	go func() {
		defer l.busy.Store(false)
		l.Sync(context.WithoutCancel(ctx))
	}()
	return false, err
}

// Sync reads the manifest now and serves what it names, as Refresh does
// for a lake in a folder.
func (l *Store) Sync(ctx context.Context) (bool, error) {
	changed, err := l.sync(ctx)
	if err != nil {
		msg := err.Error()
		l.err.Store(&msg)
	} else {
		l.err.Store(nil)
	}
	return changed, err
}

func (l *Store) sync(ctx context.Context) (bool, error) {
	u, err := l.r.Next(ctx)
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
	err = l.ServeFiles(context.WithoutCancel(ctx), l.r.Where(), views, u.Changed)
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
