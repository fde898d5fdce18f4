package annotatedpairs

import (
	"context"
	"errors"
	"fmt"
	"io"

	jsonv2 "github.com/go-json-experiment/json"
	"github.com/go-json-experiment/json/jsontext"

	"github.com/auditscope/auditscope/data/internal/jsonin"
	"github.com/auditscope/auditscope/data/model"
)

// decode walks the top-level object token by token and decodes one
// comparison at a time (jsontext streams; encoding/json's Token API is several
// times slower on large files).
func (in *decoder) decode(ctx context.Context, r io.Reader) error {
	dec := jsontext.NewDecoder(jsonin.BOMAsSpaces(r), jsontext.AllowDuplicateNames(true))
	if err := expectKind(dec, in.file, '{'); err != nil {
		return err
	}
	sawComparisons := false
	seen := map[string]bool{}
	for dec.PeekKind() != '}' {
		tok, err := dec.ReadToken()
		if err != nil {
			return jsonin.Err(in.file, dec, err)
		}
		start := dec.InputOffset()
		in.markValue(dec)
		fail := func(err error) error { return jsonin.Err(in.file, dec, err) }
		key := tok.String()
		if (key == "metadata" || key == "annotators" || key == "comparisons") && seen[key] {
			// Python's json (and so Feedback Forensics) keeps the last of
			// two equal keys; a stream has imported the first by then.
			// Neither reading is safe to guess: the file is refused.
			off := start
			return &model.InputError{File: in.file, Offset: off, Line: jsonin.LineAt(in.file, off), Path: key,
				Msg: "appears twice at the top level (Python's json would keep the second, other readers the first): keep one"}
		}
		seen[key] = true
		switch key {
		case "metadata":
			var m Metadata
			if err := jsonv2.UnmarshalDecode(dec, &m); err != nil {
				return in.overLimit(err, key, start, fail)
			}
			in.setMetadata(m)
		case "annotators":
			if err := expectKind(dec, in.file, '{'); err != nil {
				return err
			}
			for dec.PeekKind() != '}' {
				tok, err := dec.ReadToken()
				if err != nil {
					return jsonin.Err(in.file, dec, err)
				}
				id := tok.String() // the token is only valid until the next read
				start := dec.InputOffset()
				in.markValue(dec)
				var d Annotator
				if err := jsonv2.UnmarshalDecode(dec, &d); err != nil {
					return in.overLimit(err, "annotators."+id, start, fail)
				}
				in.sink.Declare(id, d)
			}
			if _, err := dec.ReadToken(); err != nil {
				return jsonin.Err(in.file, dec, err)
			}
		case "comparisons":
			sawComparisons = true
			if err := expectKind(dec, in.file, '['); err != nil {
				return err
			}
			if err := in.comparisons(ctx, dec); err != nil {
				return err
			}
			if _, err := dec.ReadToken(); err != nil {
				return jsonin.Err(in.file, dec, err)
			}
		default:
			if err := dec.SkipValue(); err != nil {
				return in.overLimit(err, key, start, fail)
			}
		}
	}
	if _, err := dec.ReadToken(); err != nil {
		return jsonin.Err(in.file, dec, err)
	}
	if _, err := dec.ReadToken(); err != io.EOF {
		off := dec.InputOffset()
		return &model.InputError{File: in.file, Offset: off, Line: jsonin.LineAt(in.file, off), Msg: "unexpected data after the top-level object"}
	}
	if !sawComparisons {
		return &model.InputError{File: in.file, Offset: -1, Path: "comparisons", Msg: "missing: an AnnotatedPairs file needs a comparisons list"}
	}
	return nil
}

// placeErr places an error of fullRow's for the comparison at prefix,
// which starts at byte base of the file.
func placeErr(file, prefix string, base int64, err error) error {
	var ie *model.InputError
	if !errors.As(err, &ie) {
		return valueErr(file, prefix, base, err)
	}
	ie.File, ie.Path = file, jsonin.JoinPath(prefix, ie.Path)
	ie.Offset = base
	ie.Line = jsonin.LineAt(file, ie.Offset)
	return err
}

// valueErr places an error from decoding one value (whose offsets and JSON
// pointer are relative to the value) in the file.
func valueErr(file, prefix string, base int64, err error) error {
	ie := &model.InputError{File: file, Offset: base, Path: prefix}
	var sem *jsonv2.SemanticError
	var syn *jsontext.SyntacticError
	switch {
	case errors.As(err, &sem):
		ie.Offset += sem.ByteOffset
		ie.Path = jsonin.JoinPath(prefix, jsonin.PointerPath(sem.JSONPointer))
		want := "another type"
		if sem.GoType != nil {
			want = jsonin.TypeName(sem.GoType)
		}
		ie.Msg = fmt.Sprintf("want %s, found %s", want, jsonin.KindName(byte(sem.JSONKind)))
		if sem.Err != nil && sem.JSONKind == 0 {
			ie.Msg = sem.Err.Error()
		}
	case errors.As(err, &syn):
		ie.Offset += syn.ByteOffset
		ie.Path = jsonin.JoinPath(prefix, jsonin.PointerPath(syn.JSONPointer))
		ie.Msg = "invalid JSON: " + syn.Err.Error()
	default:
		ie.Msg = err.Error()
	}
	ie.Line = jsonin.LineAt(file, ie.Offset)
	return ie
}

// expectKind reads the next token and checks it opens an object or array.
func expectKind(dec *jsontext.Decoder, file string, want jsontext.Kind) error {
	path := jsonin.PointerPath(dec.StackPointer())
	if k := dec.PeekKind(); k != want {
		if k == 0 {
			_, err := dec.ReadToken()
			return jsonin.Err(file, dec, err)
		}
		what := "a JSON object"
		if want == '[' {
			what = "an array"
		}
		off := dec.InputOffset()
		return &model.InputError{File: file, Offset: off, Line: jsonin.LineAt(file, off), Path: path, Msg: "want " + what + ", found " + jsonin.KindName(byte(k))}
	}
	if _, err := dec.ReadToken(); err != nil {
		return jsonin.Err(file, dec, err)
	}
	return nil
}
