// Package limit holds the one size limit every importer applies to a single
// value of its input (an AnnotatedPairs comparison, a CSV record, a JSONL
// line, a transcript file, a zip member, an Inspect sample), so that memory
// stays bounded whatever one field of a hostile file holds, and the words
// the refusal uses.
package limit

import (
	"errors"
	"fmt"
	"io"
)

// Default is the limit on one value when none is given. A value costs a few
// times its size while it is decoded and stored (the JSON text, the decoded
// string, DuckDB's copy and its block), so 96 MiB keeps an import near 1 GB
// at most, and a 64 MiB response still imports.
const Default = 96 << 20

// Flag is the command-line flag that raises the limit.
const Flag = "--max-value"

// Or returns max, or Default when max is not positive.
func Or(max int64) int64 {
	if max <= 0 {
		return Default
	}
	return max
}

// Message says that what is over the limit and how to raise it.
func Message(what string, max int64) string {
	return fmt.Sprintf("%s is larger than the %s limit on one value; raise it with %s (e.g. %s %s)",
		what, Size(max), Flag, Flag, Size(4*max))
}

// Count says that a count bound derived from the value limit was passed
// (items in a JSON value, names in a dataset, columns in a header, members
// in an archive): every such refusal in one wording, "<what> more than N
// <unit>, …; raise both with --max-value". what ends where the count
// begins ("the archive has", "holds").
func Count(what string, max uint64, unit string) string {
	return fmt.Sprintf("%s more than %d %s, the limit that goes with the limit on one value's size; raise both with %s", what, max, unit, Flag)
}

// Size renders a byte count the way the flag takes it.
func Size(n int64) string {
	switch {
	case n >= 1<<30 && n%(1<<30) == 0:
		return fmt.Sprintf("%dGiB", n>>30)
	case n >= 1<<20 && n%(1<<20) == 0:
		return fmt.Sprintf("%dMiB", n>>20)
	case n >= 1<<10 && n%(1<<10) == 0:
		return fmt.Sprintf("%dKiB", n>>10)
	}
	return fmt.Sprintf("%dB", n)
}

// ErrTooLarge is what Reader returns once a value runs past the limit.
var ErrTooLarge = errors.New("value over the size limit")

// Reader bounds a streaming parser's value: it fails with ErrTooLarge once
// more than Max bytes (plus the parser's read-ahead, Slack) have been read
// past the last Mark, so a parser that buffers a whole value never holds
// much more than Max of it.
type Reader struct {
	R     io.Reader
	Max   int64
	Slack int64

	n, mark int64
	tripped bool
}

// Mark says that a new value starts at offset off of the stream (the bytes
// the parser has consumed, which is at most what it has read).
func (r *Reader) Mark(off int64) { r.mark = off }

// Marked returns the offset of the last Mark.
func (r *Reader) Marked() int64 { return r.mark }

// Tripped reports whether a read failed for the limit.
func (r *Reader) Tripped() bool { return r.tripped }

func (r *Reader) Read(p []byte) (int, error) {
	if r.n-r.mark > r.Max+r.Slack {
		r.tripped = true
		return 0, ErrTooLarge
	}
	n, err := r.R.Read(p)
	r.n += int64(n)
	return n, err
}
