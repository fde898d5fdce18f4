// Package hugepage asks the kernel to back a large, new array with huge
// pages. The overview's first computation at a million audits fills a
// 112 MB array of audits; on a Linux machine whose transparent huge pages
// are on request only (madvise, a common default, and this project's
// build machine), its first touch took a page fault every 4 KB: about a
// quarter of a second of the computation. Asked for huge pages, it takes
// one every 2 MB (docs/PERFORMANCE.md, "Stop 47").
package hugepage

import "unsafe"

// size is a huge page: the kernel backs only whole, aligned ones.
const size = 2 << 20

// Advise asks for huge pages under s's whole 2 MB pages. It is a hint: it
// changes no byte of s, and where the system does not take it (another
// OS, huge pages off) it does nothing. Call it before s is first written;
// pages already touched stay as they are.
func Advise[T any](s []T) {
	if len(s) == 0 {
		return
	}
	n := uintptr(len(s)) * unsafe.Sizeof(s[0])
	if n < size {
		return
	}
	p := uintptr(unsafe.Pointer(unsafe.SliceData(s)))
	start := (p + size - 1) &^ (size - 1)
	end := (p + n) &^ (size - 1)
	if end <= start {
		return
	}
	advise(unsafe.Slice((*byte)(unsafe.Pointer(unsafe.SliceData(s))), n)[start-p : end-p])
}
