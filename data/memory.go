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
// run out (ImportBundle). Variables so that tests can force the retry.
var (
	streamImportMemoryLimit = "32MB"
	bundleImportMemoryLimit = "256MB"
)

// lowMemoryImport runs fn with DuckDB's memory limit lowered to limit, when
// the store is a file and the user set no limit of their own. The limit is
// the database's, not the connection's: imports run before serving
// (auditscope serve imports its PATHs first), so no query shares it, and
// overlapping imports share one lowering that ends with the last of them.
func (s *Store) lowMemoryImport(ctx context.Context, limit string, fn func() error) (err error) {
	if !s.lowersMemory() {
		return fn()
	}
	if err := s.lowerMemory(ctx, limit); err != nil {
		return fn() // at the current limit
	}
	defer func() { err = errors.Join(err, s.restoreMemory()) }()
	defer returnPagesAtOnce()()
	return fn()
}

func (s *Store) lowerMemory(ctx context.Context, limit string) error {
	s.lowMem.Lock()
	defer s.lowMem.Unlock()
	if s.lowMem.users == 0 {
		var prev string
		if err := s.db.QueryRowContext(ctx, `SELECT current_setting('memory_limit')`).Scan(&prev); err != nil {
			return err
		}
		// limit is one of the values above and prev DuckDB's own
		// rendering of a size; SET takes no parameters.
		if _, err := s.db.ExecContext(ctx, "SET memory_limit = "+sqlString(limit)); err != nil {
			// DuckDB may take the limit and still fail the statement
			// (when it holds more already).
			return errors.Join(err, s.setMemoryLimit(prev))
		}
		s.lowMem.prev = prev
	}
	s.lowMem.users++
	return nil
}

// restoreMemory ends one lowering. The previous limit is set again rather
// than RESET: DuckDB's RESET memory_limit (1.5.6) puts back the setting's
// value but not its buffer pool's limit.
func (s *Store) restoreMemory() error {
	s.lowMem.Lock()
	defer s.lowMem.Unlock()
	if s.lowMem.users--; s.lowMem.users > 0 {
		return nil
	}
	return s.setMemoryLimit(s.lowMem.prev)
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
func (s *Store) lowersMemory() bool { return s.path != "" && !s.userLimit && !s.readOnly }

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
