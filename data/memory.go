package data

import "github.com/auditscope/auditscope/data/internal/memlimit"

// Memory limits while an import fills a file database (package memlimit
// lowers and restores it). A streaming import (AnnotatedPairs, preference
// CSV) reads nothing back; a bundle also builds its judge-score table with
// an INSERT ... SELECT over its audits, and is imported again at the default
// limit should that run out (ImportBundle). Limits in MiB; variables so that
// tests can force the retry. A bundle's 192 MiB: with the allocator keeping
// freed pages for 50 ms (memlimit.ImportPageDecay), 256 MiB held the
// 100,000-audit import at 590–610 MiB resident, 192 at 515–535 MiB, in the
// same time; 128 was slower (docs/PERFORMANCE.md).
var (
	streamImportMemoryMiB int64 = 96
	bundleImportMemoryMiB int64 = 192
)

// Serving tells the store that queries now run beside imports (serve
// --watch imports while it serves): from here on an import lowers the
// database's memory limit, which every query shares, only to its own bound
// plus what the pages hold and need (memlimit.Governor).
func (s *Store) Serving() { s.mem.Serving() }

// KeepFreedPages has DuckDB's allocator, the process's, keep the pages it
// frees for a while (memlimit.ServePageDecay) in a process that serves
// pages; an import in it still returns them soon while it runs, then puts
// this back.
func KeepFreedPages() { memlimit.SetPageDecayOutsideImports(memlimit.ServePageDecay) }
