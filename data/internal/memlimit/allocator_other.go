//go:build !linux || !cgo

package memlimit

// PageDecay is how long (ms) DuckDB's allocator keeps freed pages; it only
// applies to the jemalloc of DuckDB's Linux builds.
type PageDecay struct{ Dirty, Muzzy int }

// SetPageDecay is a no-op where DuckDB does not use jemalloc.
func SetPageDecay(PageDecay) (prev PageDecay, ok bool) { return PageDecay{}, false }
