//go:build linux && cgo

package memlimit

/*
#include <stddef.h>
#include <stdio.h>
#include <sys/types.h>

// DuckDB's Linux builds link jemalloc with the duckdb_je_ prefix. The
// reference is weak so that a DuckDB built without it still links; the
// function is then NULL.
extern int duckdb_je_mallctl(const char *name, void *oldp, size_t *oldlenp, void *newp, size_t newlen) __attribute__((weak));

// auditscope_set_decay sets the dirty and muzzy page decay times (dirty,
// muzzy) of every arena and of arenas made later, and returns the previous
// defaults in *old_dirty and *old_muzzy. It returns -1 without jemalloc and
// -2 when a call fails.
static int auditscope_set_decay(ssize_t dirty, ssize_t muzzy, ssize_t *old_dirty, ssize_t *old_muzzy) {
	if (!duckdb_je_mallctl) {
		return -1;
	}
	size_t len = sizeof(ssize_t);
	if (duckdb_je_mallctl("arenas.dirty_decay_ms", old_dirty, &len, &dirty, sizeof(dirty)) != 0) {
		return -2;
	}
	len = sizeof(ssize_t);
	if (duckdb_je_mallctl("arenas.muzzy_decay_ms", old_muzzy, &len, &muzzy, sizeof(muzzy)) != 0) {
		duckdb_je_mallctl("arenas.dirty_decay_ms", NULL, NULL, old_dirty, sizeof(*old_dirty)); // undo
		return -2;
	}
	unsigned n = 0;
	size_t nlen = sizeof(n);
	if (duckdb_je_mallctl("arenas.narenas", &n, &nlen, NULL, 0) != 0) {
		duckdb_je_mallctl("arenas.dirty_decay_ms", NULL, NULL, old_dirty, sizeof(*old_dirty)); // undo
		duckdb_je_mallctl("arenas.muzzy_decay_ms", NULL, NULL, old_muzzy, sizeof(*old_muzzy));
		return -2;
	}
	char name[64];
	for (unsigned i = 0; i < n; i++) {
		// An arena not yet made answers EFAULT; it will take the defaults set above.
		snprintf(name, sizeof(name), "arena.%u.dirty_decay_ms", i);
		duckdb_je_mallctl(name, NULL, NULL, &dirty, sizeof(dirty));
		snprintf(name, sizeof(name), "arena.%u.muzzy_decay_ms", i);
		duckdb_je_mallctl(name, NULL, NULL, &muzzy, sizeof(muzzy));
	}
	return 0;
}
*/
import "C"

// PageDecay is how long (ms) DuckDB's allocator keeps freed pages, dirty
// and then muzzy (lazily freed), before it returns them to the system.
type PageDecay struct{ Dirty, Muzzy int }

// SetPageDecay sets DuckDB's allocator page decay and returns the previous
// setting; ok is false when DuckDB runs without jemalloc.
func SetPageDecay(d PageDecay) (prev PageDecay, ok bool) {
	var oldDirty, oldMuzzy C.ssize_t
	if C.auditscope_set_decay(C.ssize_t(d.Dirty), C.ssize_t(d.Muzzy), &oldDirty, &oldMuzzy) != 0 {
		return PageDecay{}, false
	}
	return PageDecay{int(oldDirty), int(oldMuzzy)}, true
}
