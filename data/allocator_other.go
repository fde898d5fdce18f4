//go:build !linux || !cgo

package data

// pageDecay is how long (ms) DuckDB's allocator keeps freed pages; it only
// applies to the jemalloc of DuckDB's Linux builds.
type pageDecay struct{ dirty, muzzy int }

// setPageDecay is a no-op where DuckDB does not use jemalloc.
func setPageDecay(pageDecay) (prev pageDecay, ok bool) { return pageDecay{}, false }
