package data

// Memory limits while an import fills a file database (package memlimit
// lowers and restores it). A streaming import (AnnotatedPairs, preference
// CSV) reads nothing back; a bundle also builds its judge-score table with
// an INSERT ... SELECT over its audits, and is imported again at the default
// limit should that run out (ImportBundle). Limits in MiB; variables so that
// tests can force the retry.
var (
	streamImportMemoryMiB int64 = 96
	bundleImportMemoryMiB int64 = 256
)

// Serving tells the store that queries now run beside imports (serve
// --watch imports while it serves): from here on an import lowers the
// database's memory limit, which every query shares, only to its own bound
// plus what the pages hold and need (memlimit.Governor).
func (s *Store) Serving() { s.mem.Serving() }
