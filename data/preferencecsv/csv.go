// Package preferencecsv reads a preference CSV as Feedback Forensics'
// csv_to_ap does: one AnnotatedPairs comparison per record, voted on by a
// default annotator (the preferred_text column). Its rows go to the same
// Sink as an AnnotatedPairs file's (data/annotatedpairs).
package preferencecsv

import (
	"bufio"
	"bytes"
	"context"
	"crypto/md5"
	"encoding/csv"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"strconv"
	"unicode/utf8"

	"github.com/auditscope/auditscope/data/annotatedpairs"
	"github.com/auditscope/auditscope/data/internal/jsonin"
	"github.com/auditscope/auditscope/data/internal/limit"
	"github.com/auditscope/auditscope/data/model"
)

// csvDefaultAnnotatorDesc is the description Feedback Forensics' converter
// gives the preferred_text column; its md5 prefix is the annotator id, so a
// CSV and its converted JSON agree.
const csvDefaultAnnotatorDesc = "Default annotator from original dataset (from column `preferred_text`)"

// Decode reads a preference CSV from r into s, as Feedback Forensics'
// csv_to_ap reads it: text_a, text_b and preferred_text, optional model_a,
// model_b and prompt (or input); every other column becomes metadata, and
// preferred_text the votes of a default annotator. file names it in errors;
// maxValue limits one record, in bytes (limit.Or).
func Decode(ctx context.Context, r io.Reader, file string, maxValue int64, s annotatedpairs.Sink) error {
	br := bufio.NewReader(r)
	// A UTF-8 byte order mark (Excel writes one) is not part of the header.
	if b, _ := br.Peek(3); bytes.Equal(b, jsonin.BOM) {
		br.Discard(3)
	}
	// Text has no NUL bytes; a zip, an image or a .eval log does.
	if b, _ := br.Peek(512); bytes.IndexByte(b, 0) >= 0 {
		return &model.InputError{File: file, Line: 1, Offset: -1, Msg: "binary data or UTF-16 text, not a UTF-8 CSV text file"}
	}
	defID := shortHash(csvDefaultAnnotatorDesc)
	// The ids are the rows' numbers (row): unique, so not kept to check.
	s.SetMetadata(annotatedpairs.Metadata{Version: "2.0", DefaultAnnotator: defID, Description: "Imported from the preference CSV " + file, UniqueIDs: true})
	s.Declare(defID, annotatedpairs.Annotator{Name: "preferred_text", Description: csvDefaultAnnotatorDesc, Type: "unknown"})
	// The slack covers what the CSV reader reads ahead of the record it is on.
	return readCSV(ctx, &limit.Reader{R: br, Max: limit.Or(maxValue), Slack: 4 << 20}, file, defID, s)
}

func readCSV(ctx context.Context, r *limit.Reader, file, defID string, s annotatedpairs.Sink) error {
	cr := csv.NewReader(r)
	cr.ReuseRecord = true
	// The CSV reader builds a whole record however long: the limit on one
	// value bounds it, a record's window starting where the last ended.
	tooLarge := func(err error) error {
		if !r.Tripped() {
			return csvErr(file, err)
		}
		// The file's offset, not the reader's: a byte order mark was
		// skipped before it.
		off := r.Marked()
		return &model.InputError{File: file, Line: jsonin.LineAt(file, off), Offset: -1, Msg: limit.Message("a record starting on this line", r.Max)}
	}
	header, err := cr.Read()
	switch {
	case err == io.EOF:
		return &model.InputError{File: file, Line: 1, Offset: -1, Msg: "empty file: want a header with text_a, text_b and preferred_text"}
	case err != nil:
		return tooLarge(err)
	}
	r.Mark(cr.InputOffset())
	// Each column is a metadata key of every comparison: a header of 5
	// million columns took 3.5 GiB.
	if maxCols := annotatedpairs.MaxNames(r.Max); len(header) > maxCols {
		return &model.InputError{File: file, Line: 1, Offset: -1,
			Msg: fmt.Sprintf("the header has %d columns: ", len(header)) + limit.Count("it has", uint64(maxCols), "columns")}
	}
	cols, err := csvHeader(file, header)
	if err != nil {
		return err
	}
	for _, h := range cols.header {
		if !cols.known[h] {
			s.MetaKey(h)
		}
	}
	for row := 0; ; row++ {
		if row%4096 == 0 {
			if err := ctx.Err(); err != nil {
				return err
			}
		}
		rec, err := cr.Read()
		if err == io.EOF {
			return nil
		}
		if err != nil {
			return tooLarge(err)
		}
		r.Mark(cr.InputOffset())
		line, _ := cr.FieldPos(0)
		for i, v := range rec {
			if !utf8.ValidString(v) {
				return &model.InputError{File: file, Line: line, Offset: -1, Path: cols.header[i], Msg: "not valid UTF-8"}
			}
		}
		if err := s.Add(cols.row(rec, row, defID)); err != nil {
			return err
		}
	}
}

// csvColumns is a preference CSV's header: where each column is, which
// column holds the prompt, and which are the comparison's own (the others
// are metadata).
type csvColumns struct {
	header    []string
	col       map[string]int
	promptCol string
	known     map[string]bool
}

// csvHeader checks a header and names its columns.
func csvHeader(file string, header []string) (csvColumns, error) {
	c := csvColumns{header: append([]string(nil), header...), col: map[string]int{}}
	counts := map[string]int{}
	for i, h := range c.header {
		if !utf8.ValidString(h) {
			return c, &model.InputError{File: file, Line: 1, Offset: -1, Msg: "header is not valid UTF-8"}
		}
		if h == "" && i == 0 {
			c.header[i] = "index" // pandas' unnamed index column
			h = "index"
		}
		c.header[i] = dedup(counts, h)
		c.col[c.header[i]] = i
	}
	for _, need := range []string{"text_a", "text_b", "preferred_text"} {
		if _, ok := c.col[need]; !ok {
			return c, &model.InputError{File: file, Line: 1, Offset: -1, Path: need, Msg: "missing column: a preference CSV needs text_a, text_b and preferred_text"}
		}
	}
	c.promptCol = "prompt"
	if _, ok := c.col[c.promptCol]; !ok {
		c.promptCol = "input"
	}
	c.known = map[string]bool{"text_a": true, "text_b": true, "preferred_text": true, "model_a": true, "model_b": true, c.promptCol: true}
	return c, nil
}

// dedup names a repeated column as pandas' read_csv does, and so Feedback
// Forensics' csv_to_ap (its own 000_train_data.csv has index twice): the
// second index is index.1, the third index.2, skipping names the header
// already has. counts is the names given so far.
func dedup(counts map[string]int, name string) string {
	n := counts[name]
	for n > 0 {
		counts[name] = n + 1
		name = name + "." + strconv.Itoa(n)
		n = counts[name]
	}
	counts[name] = n + 1
	return name
}

func (c csvColumns) get(rec []string, name string) string {
	if i, ok := c.col[name]; ok && i < len(rec) {
		return rec[i]
	}
	return ""
}

// row is one record as a comparison voted on by the default annotator. The
// row number is the id: index columns repeat in concatenated files, and the
// index stays available as metadata.
func (c csvColumns) row(rec []string, n int, defID string) annotatedpairs.Row {
	r := annotatedpairs.Row{ID: strconv.Itoa(n), Prompt: c.get(rec, c.promptCol), TextA: c.get(rec, "text_a"), TextB: c.get(rec, "text_b"),
		ModelA: c.get(rec, "model_a"), ModelB: c.get(rec, "model_b")}
	pref := c.get(rec, "preferred_text")
	v := annotatedpairs.Vote{Annotator: defID}
	if pref != "" {
		v.Pref = &pref
	}
	r.Votes = []annotatedpairs.Vote{v}
	meta := map[string]string{}
	for _, h := range c.header {
		if !c.known[h] {
			val := c.get(rec, h)
			r.MetaPairs = append(r.MetaPairs, [2]string{h, val})
			meta[h] = val
		}
	}
	if len(meta) > 0 {
		b, _ := json.Marshal(meta) // a map of strings always encodes
		r.Metadata = string(b)
	}
	return r
}

func csvErr(file string, err error) error {
	var pe *csv.ParseError
	if errors.As(err, &pe) {
		return &model.InputError{File: file, Line: pe.Line, Offset: -1, Path: fmt.Sprintf("column %d", pe.Column), Msg: pe.Err.Error()}
	}
	return &model.InputError{File: file, Offset: -1, Msg: err.Error()}
}

// shortHash is the 8-hex-digit id Feedback Forensics' tools derive from a
// text (md5), used for the default annotator.
func shortHash(s string) string {
	sum := md5.Sum([]byte(s))
	return hex.EncodeToString(sum[:4])
}
