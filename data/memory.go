package data

import (
	"context"
	"errors"
	"fmt"
	"sync"

	duckdb "github.com/duckdb/duckdb-go/v2"
)

// Memory limits while an import fills a file database. An import writes
// each full row group to the file before it commits, so DuckDB's cache would
// mostly hold blocks already written; at the default limit (80% of the
// machine) it keeps them all, and a 150 MB file costs more memory than its
// size. A streaming import (AnnotatedPairs, preference CSV) reads nothing
// back; a bundle also builds its judge-score table with an INSERT ... SELECT
// over its audits, and is imported again at the default limit should that
// run out (ImportBundle). Limits in MiB; variables so that tests can force
// the retry.
var (
	streamImportMemoryMiB int64 = 96
	bundleImportMemoryMiB int64 = 256
)

// lowMemoryImport runs fn with DuckDB's memory limit lowered to mib MiB,
// when the store is a file and the user set no limit of their own. The
// limit is the database's, not the connection's: while the store serves
// pages (serve --watch, see Serving) it is lowered to mib plus what DuckDB
// holds when the import starts plus ServingHeadroomMiB for the pages
// computed meanwhile, so a watched import is bounded as the CLI's is, on
// top of what the server holds. Overlapping imports share one lowering, at
// the largest limit any of them asked for, that ends with the last of them.
func (s *Store) lowMemoryImport(ctx context.Context, mib int64, fn func() error) (err error) {
	if !s.lowersMemory() {
		return fn()
	}
	if err := s.lowerMemory(ctx, mib); err != nil {
		return fn() // at the current limit
	}
	defer func() { err = errors.Join(err, s.restoreMemory()) }()
	defer returnPagesAtOnce()()
	return fn()
}

func (s *Store) lowerMemory(ctx context.Context, mib int64) error {
	s.lowMem.Lock()
	defer s.lowMem.Unlock()
	if s.lowMem.orig == "" {
		// The limit before any import, read once: DuckDB renders it
		// rounded, and reading it back after each restore would lose a
		// little every time ("18.8 GiB" set again reads "18.7 GiB").
		if err := s.db.QueryRowContext(ctx, `SELECT current_setting('memory_limit')`).Scan(&s.lowMem.orig); err != nil {
			return err
		}
	}
	if s.lowMem.users == 0 {
		s.lowMem.reserve = 0
		if s.serving.Load() {
			// What the pages hold now (their cache of blocks included, so
			// the import does not evict it) and room for those computed
			// while it runs.
			var inUse int64
			if err := s.db.QueryRowContext(ctx, `SELECT coalesce(sum(memory_usage_bytes), 0)::BIGINT FROM duckdb_memory()`).Scan(&inUse); err != nil {
				return err
			}
			s.lowMem.reserve = inUse>>20 + ServingHeadroomMiB
		}
	}
	if s.lowMem.users == 0 || mib > s.lowMem.mib {
		if _, err := s.db.ExecContext(ctx, fmt.Sprintf("SET memory_limit = '%dMiB'", mib+s.lowMem.reserve)); err != nil {
			// DuckDB may take the limit and still fail the statement
			// (when it holds more already).
			if s.lowMem.users == 0 {
				err = errors.Join(err, s.setMemoryLimit(s.lowMem.orig))
			}
			return err
		}
		s.lowMem.mib = mib
	}
	s.lowMem.users++
	return nil
}

// raiseLoweredMemory raises a lowered import limit to mib MiB, for a row
// that needs it; restoreMemory still puts back the limit from before the
// imports. Without a lowering it does nothing: the limit is the user's or
// DuckDB's default.
func (s *Store) raiseLoweredMemory(ctx context.Context, mib int64) error {
	s.lowMem.Lock()
	defer s.lowMem.Unlock()
	if s.lowMem.users == 0 || mib <= s.lowMem.mib {
		return nil
	}
	if _, err := s.db.ExecContext(ctx, fmt.Sprintf("SET memory_limit = '%dMiB'", mib+s.lowMem.reserve)); err != nil {
		return fmt.Errorf("raise the import's memory limit to %d MiB: %w", mib, err)
	}
	s.lowMem.mib = mib
	return nil
}

// restoreMemory ends one lowering. The limit from before is set again rather
// than RESET: DuckDB's RESET memory_limit (1.5.6) puts back the setting's
// value but not its buffer pool's limit.
func (s *Store) restoreMemory() error {
	s.lowMem.Lock()
	defer s.lowMem.Unlock()
	if s.lowMem.users--; s.lowMem.users > 0 {
		return nil
	}
	s.lowMem.mib = 0
	return s.setMemoryLimit(s.lowMem.orig)
}

// memoryLowered reports whether an import holds the limit lowered.
func (s *Store) memoryLowered() bool {
	s.lowMem.Lock()
	defer s.lowMem.Unlock()
	return s.lowMem.users > 0
}

func (s *Store) setMemoryLimit(v string) error {
	if _, err := s.db.ExecContext(context.Background(), "SET memory_limit = "+sqlString(v)); err != nil {
		return fmt.Errorf("data: import: memory limit %s: %w", v, err)
	}
	return nil
}

// isOutOfMemory reports whether DuckDB failed for want of memory.
func isOutOfMemory(err error) bool {
	var de *duckdb.Error
	return errors.As(err, &de) && de.Type == duckdb.ErrorTypeOutOfMemory
}

// lowersMemory reports whether imports run under a lowered memory limit.
func (s *Store) lowersMemory() bool {
	return s.path != "" && !s.userLimit && !s.readOnly
}

// ServingHeadroomMiB is the room a watched import leaves for the pages the
// server computes while it runs, beyond what DuckDB held when it started.
// Their operators spill to the database's temporary folder past it.
const ServingHeadroomMiB = 64

// Serving tells the store that queries now run beside imports (serve
// --watch imports while it serves): from here on an import lowers the
// database's memory limit, which every query shares, only to its own bound
// plus what the pages hold and need (lowerMemory).
func (s *Store) Serving() { s.serving.Store(true) }

// The allocator's settings are the process's, shared by every store in it:
// the first streaming import changes them and the last one to finish puts
// them back.
var pageDecayState struct {
	sync.Mutex
	users int
	prev  pageDecay
	ok    bool
}

// returnPagesAtOnce makes DuckDB's allocator return freed pages to the
// system at once until the returned function is called. It keeps freed
// pages for a while by default (about a second); an import frees row groups
// faster than that, so its resident size would track what it has written
// rather than what it holds.
func returnPagesAtOnce() (restore func()) {
	st := &pageDecayState
	st.Lock()
	defer st.Unlock()
	if st.users == 0 {
		st.prev, st.ok = setPageDecay(pageDecay{})
	}
	st.users++
	return func() {
		st.Lock()
		defer st.Unlock()
		st.users--
		if st.users == 0 && st.ok {
			setPageDecay(st.prev)
		}
	}
}
