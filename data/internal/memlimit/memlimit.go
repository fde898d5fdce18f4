// Package memlimit governs DuckDB's memory limit while imports fill a file
// database. An import writes each full row group to the file before it
// commits, so DuckDB's cache would mostly hold blocks already written; at
// the default limit (80% of the machine) it keeps them all, and a 150 MB
// file costs more memory than its size. The store lowers the limit for the
// length of an import (Governor.Import) and has DuckDB's allocator return
// freed pages soon (ReturnPagesSoon).
package memlimit

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"strings"
	"sync"
	"sync/atomic"

	duckdb "github.com/duckdb/duckdb-go/v2"
)

// ServingHeadroomMiB is the room a watched import leaves for the pages the
// server computes while it runs, beyond what DuckDB held when it started.
// Their operators spill to the database's temporary folder past it.
const ServingHeadroomMiB = 64

// Governor counts the imports running under a lowered memory limit and
// keeps the limit to put back when the last one ends.
type Governor struct {
	db      *sql.DB
	enabled bool
	serving atomic.Bool

	mu      sync.Mutex
	users   int
	mib     int64  // the lowered limit
	reserve int64  // MiB kept for the pages while serving (added to mib)
	orig    string // the limit before any import
}

// New governs db's limit; enabled is false where imports keep the limit as
// it is (an in-memory or read-only store, or a limit the user set).
func New(db *sql.DB, enabled bool) *Governor {
	return &Governor{db: db, enabled: enabled}
}

// Enabled reports whether imports run under a lowered memory limit.
func (g *Governor) Enabled() bool { return g.enabled }

// Serving says that queries now run beside imports (serve --watch imports
// while it serves): from here on an import lowers the database's memory
// limit, which every query shares, only to its own bound plus what the
// pages hold and need.
func (g *Governor) Serving() { g.serving.Store(true) }

// Import runs fn with DuckDB's memory limit lowered to mib MiB, when the
// governor is enabled. The limit is the database's, not the connection's:
// while the store serves pages (Serving) it is lowered to mib plus what
// DuckDB holds when the import starts plus ServingHeadroomMiB for the pages
// computed meanwhile, so a watched import is bounded as the CLI's is, on
// top of what the server holds. Overlapping imports share one lowering, at
// the largest limit any of them asked for, that ends with the last of them.
func (g *Governor) Import(ctx context.Context, mib int64, fn func() error) (err error) {
	if !g.enabled {
		return fn()
	}
	if err := g.lower(ctx, mib); err != nil {
		return fn() // at the current limit
	}
	defer func() { err = errors.Join(err, g.restore()) }()
	defer ReturnPagesSoon()()
	return fn()
}

func (g *Governor) lower(ctx context.Context, mib int64) error {
	g.mu.Lock()
	defer g.mu.Unlock()
	if g.orig == "" {
		// The limit before any import, read once: DuckDB renders it
		// rounded, and reading it back after each restore would lose a
		// little every time ("18.8 GiB" set again reads "18.7 GiB").
		if err := g.db.QueryRowContext(ctx, `SELECT current_setting('memory_limit')`).Scan(&g.orig); err != nil {
			return err
		}
	}
	if g.users == 0 {
		g.reserve = 0
		if g.serving.Load() {
			// What the pages hold now (their cache of blocks included, so
			// the import does not evict it) and room for those computed
			// while it runs.
			var inUse int64
			if err := g.db.QueryRowContext(ctx, `SELECT coalesce(sum(memory_usage_bytes), 0)::BIGINT FROM duckdb_memory()`).Scan(&inUse); err != nil {
				return err
			}
			g.reserve = inUse>>20 + ServingHeadroomMiB
		}
	}
	if g.users == 0 || mib > g.mib {
		if _, err := g.db.ExecContext(ctx, fmt.Sprintf("SET memory_limit = '%dMiB'", mib+g.reserve)); err != nil {
			// DuckDB may take the limit and still fail the statement
			// (when it holds more already).
			if g.users == 0 {
				err = errors.Join(err, g.set(g.orig))
			}
			return err
		}
		g.mib = mib
	}
	g.users++
	return nil
}

// Raise raises a lowered import limit to mib MiB, for a row that needs it;
// the end of the import still puts back the limit from before. Without a
// lowering it does nothing: the limit is the user's or DuckDB's default.
func (g *Governor) Raise(ctx context.Context, mib int64) error {
	g.mu.Lock()
	defer g.mu.Unlock()
	if g.users == 0 || mib <= g.mib {
		return nil
	}
	if _, err := g.db.ExecContext(ctx, fmt.Sprintf("SET memory_limit = '%dMiB'", mib+g.reserve)); err != nil {
		return fmt.Errorf("raise the import's memory limit to %d MiB: %w", mib, err)
	}
	g.mib = mib
	return nil
}

// restore ends one lowering. The limit from before is set again rather
// than RESET: DuckDB's RESET memory_limit (1.5.6) puts back the setting's
// value but not its buffer pool's limit.
func (g *Governor) restore() error {
	g.mu.Lock()
	defer g.mu.Unlock()
	if g.users--; g.users > 0 {
		return nil
	}
	g.mib = 0
	return g.set(g.orig)
}

// Lowered reports whether an import holds the limit lowered.
func (g *Governor) Lowered() bool {
	g.mu.Lock()
	defer g.mu.Unlock()
	return g.users > 0
}

func (g *Governor) set(v string) error {
	if _, err := g.db.ExecContext(context.Background(), "SET memory_limit = '"+strings.ReplaceAll(v, "'", "''")+"'"); err != nil {
		return fmt.Errorf("data: import: memory limit %s: %w", v, err)
	}
	return nil
}

// IsOutOfMemory reports whether DuckDB failed for want of memory.
func IsOutOfMemory(err error) bool {
	var de *duckdb.Error
	return errors.As(err, &de) && de.Type == duckdb.ErrorTypeOutOfMemory
}

// The allocator's settings are the process's, shared by every store in it:
// the first streaming import changes them and the last one to finish puts
// them back.
var pageDecayState struct {
	sync.Mutex
	users int
	prev  PageDecay
	ok    bool
}

// ImportPageDecay is how long DuckDB's allocator keeps freed pages while an
// import runs: dirty for 50 ms, then returned to the system (no muzzy
// stage, whose pages count as resident until the kernel takes them).
// DuckDB keeps them for about a second by default; an import frees row
// groups faster than that, so its resident size would track what it has
// written rather than what it holds. Returning them at once (0 ms) cost
// more: every block DuckDB allocated next was faulted in again, 770,000
// page faults and 8 s of system time in a 100,000-audit import, against
// 290,000 and 3 s at 50 ms, which imports in two thirds of the time
// (docs/PERFORMANCE.md).
var ImportPageDecay = PageDecay{Dirty: 50, Muzzy: 0}

// ServePageDecay is how long DuckDB's allocator keeps freed pages in a
// process that serves pages: dirty for 10 s (DuckDB's default is 1 s), so
// that the buffers a query frees are there for the next one instead of
// being returned and faulted in again (docs/PERFORMANCE.md).
var ServePageDecay = PageDecay{Dirty: 10000, Muzzy: 0}

// SetPageDecayOutsideImports sets DuckDB's allocator to d for the process
// outside imports: at once when none runs, else when the last one ends
// (which would otherwise put back the setting from before it).
func SetPageDecayOutsideImports(d PageDecay) {
	st := &pageDecayState
	st.Lock()
	defer st.Unlock()
	if st.users > 0 {
		if st.ok {
			st.prev = d
		}
		return
	}
	SetPageDecay(d)
}

// ReturnPagesSoon sets DuckDB's allocator to ImportPageDecay until the
// returned function is called.
func ReturnPagesSoon() (restore func()) {
	st := &pageDecayState
	st.Lock()
	defer st.Unlock()
	if st.users == 0 {
		st.prev, st.ok = SetPageDecay(ImportPageDecay)
	}
	st.users++
	return func() {
		st.Lock()
		defer st.Unlock()
		st.users--
		if st.users == 0 && st.ok {
			SetPageDecay(st.prev)
		}
	}
}
