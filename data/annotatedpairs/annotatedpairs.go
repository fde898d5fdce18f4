// Package annotatedpairs decodes Feedback Forensics' AnnotatedPairs files
// (JSON, format 1.x and 2.0), checking every value and placing every error
// (file, line, JSON path), into rows it hands to a Sink (a preference CSV
// is decoded into the same rows by data/preferencecsv). Its Loader is the
// Sink that appends the rows through the import's transaction, which the
// store implements (docs/ARCHITECTURE.md).
package annotatedpairs

import (
	"context"
	"io"
	"unicode/utf8"

	"github.com/go-json-experiment/json/jsontext"

	"github.com/auditscope/auditscope/data/internal/jsonin"
	"github.com/auditscope/auditscope/data/internal/limit"
	"github.com/auditscope/auditscope/data/model"
)

// Sink receives a dataset as it is decoded. Its methods are called on one
// goroutine, in file order.
type Sink interface {
	// SetMetadata is the file's metadata block, when it has one.
	SetMetadata(Metadata)
	// Declare is an annotator the file declares.
	Declare(id string, a Annotator)
	// MetaKey is a comparison metadata key (a CSV's extra column).
	MetaKey(key string)
	// Annotators are the annotators' indexes known when the comparisons
	// start: the decoding workers code the votes of the annotators it names
	// (Row.Prepared); the Sink codes the others as it adds the row. It must
	// be a copy the Sink does not change.
	Annotators() map[string]int
	// Add is the next comparison.
	Add(Row) error
}

// Decode reads an AnnotatedPairs JSON document from r into s. file names
// it in errors (and is read again for an error's line number); maxValue
// limits one value of it, in bytes (limit.Or).
func Decode(ctx context.Context, r io.Reader, file string, maxValue int64, s Sink) error {
	in := &decoder{file: file, sink: s, bound: newBound(r, maxValue)}
	return in.decode(ctx, in.bound)
}

// decoder is one document being decoded.
type decoder struct {
	file     string
	sink     Sink
	bound    *limit.Reader // the limit on one value
	meta     Metadata
	haveMeta bool
}

// newBound wraps an input in the limit on one value.
func newBound(r io.Reader, maxValue int64) *limit.Reader {
	// The slack covers what the parser reads ahead of the value it is on.
	return &limit.Reader{R: r, Max: limit.Or(maxValue), Slack: 4 << 20}
}

// setMetadata keeps what decoding the comparisons depends on and passes the
// block on.
func (in *decoder) setMetadata(m Metadata) {
	in.meta, in.haveMeta = m, true
	in.sink.SetMetadata(m)
}

// markValue starts the limit's window at the decoder's position.
func (in *decoder) markValue(dec *jsontext.Decoder) {
	if in.bound != nil {
		in.bound.Mark(dec.InputOffset())
	}
}

// overLimit turns a read that failed for the limit on one value into an
// error naming the file, the value's place and the flag; other errors pass
// through fail.
func (in *decoder) overLimit(err error, path string, start int64, fail func(error) error) error {
	if in.bound == nil || !in.bound.Tripped() {
		return fail(err)
	}
	return &model.InputError{File: in.file, Offset: start, Line: jsonin.LineAt(in.file, start), Path: path, Msg: limit.Message("the value", in.bound.Max)}
}

// Encode works out what a row is stored with when the decoding workers
// could not (Prepared false): the texts' lengths in characters and the
// coded votes; n is the number of annotators known and index gives an
// annotator's index, assigning new ones in file order.
func (r *Row) Encode(n int, index func(string) int) {
	r.LenA, r.LenB = int32(utf8.RuneCountInString(r.TextA)), int32(utf8.RuneCountInString(r.TextB))
	r.Prefs, r.VoteLog = encodeVotes(r.Votes, n, index)
}
