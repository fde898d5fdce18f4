package jsonin

import (
	"bufio"
	"errors"
	"fmt"
	"io"
	"strconv"
	"strings"

	jsonv2 "github.com/go-json-experiment/json"
	"github.com/go-json-experiment/json/jsontext"

	"github.com/auditscope/auditscope/data/internal/regular"
	"github.com/auditscope/auditscope/data/model"
)

// JoinPath joins a JSON path prefix and a field path; either may be empty.
func JoinPath(prefix, field string) string {
	if prefix == "" {
		return field
	}
	if field == "" {
		return prefix
	}
	if strings.HasPrefix(field, "[") {
		return prefix + field // samples[3] and [2].x: samples[3][2].x
	}
	return prefix + "." + field
}

// LineAt returns the 1-based line of a byte offset in a file (0 if the file
// cannot be read). It is only used on the error path.
func LineAt(file string, offset int64) int {
	f, err := regular.Open(file)
	if err != nil {
		return 0
	}
	defer f.Close()
	r := bufio.NewReaderSize(io.LimitReader(f, offset), 1<<16)
	line := 1
	for {
		b, err := r.ReadSlice('\n')
		if len(b) > 0 && b[len(b)-1] == '\n' {
			line++
		}
		if err == bufio.ErrBufferFull {
			continue
		}
		if err != nil {
			return line
		}
	}
}

// Err turns a jsontext / json v2 error into a model.InputError with the byte
// offset, the line and the JSON path of the failing value.
func Err(file string, dec *jsontext.Decoder, err error) error {
	ie := &model.InputError{File: file, Offset: -1}
	var syn *jsontext.SyntacticError
	var sem *jsonv2.SemanticError
	switch {
	case errors.As(err, &syn):
		ie.Offset, ie.Path = syn.ByteOffset, PointerPath(syn.JSONPointer)
		ie.Msg = "invalid JSON: " + syn.Err.Error()
		if errors.Is(syn.Err, io.ErrUnexpectedEOF) {
			ie.Msg = "the file ends in the middle of the JSON (truncated?)"
		}
	case errors.As(err, &sem):
		ie.Offset, ie.Path = sem.ByteOffset, PointerPath(sem.JSONPointer)
		want := "another type"
		if sem.GoType != nil {
			want = TypeName(sem.GoType)
		}
		ie.Msg = fmt.Sprintf("want %s, found %s", want, KindName(byte(sem.JSONKind)))
		if sem.Err != nil && sem.JSONKind == 0 {
			ie.Msg = sem.Err.Error()
		}
	case errors.Is(err, io.ErrUnexpectedEOF), errors.Is(err, io.EOF):
		ie.Offset = dec.InputOffset()
		ie.Msg = "the file ends in the middle of the JSON (truncated?)"
	default:
		var inner *model.InputError
		if errors.As(err, &inner) {
			return inner
		}
		ie.Offset = dec.InputOffset()
		ie.Msg = err.Error()
	}
	if ie.Offset >= 0 {
		ie.Line = LineAt(file, ie.Offset)
	}
	return ie
}

// PointerPath writes a JSON Pointer (/comparisons/3/prompt) as a path
// (comparisons[3].prompt).
func PointerPath(p jsontext.Pointer) string {
	var b strings.Builder
	for tok := range p.Tokens() {
		if tok == "" {
			// Where the decoder reads a value whole it does not track the
			// names inside, and its pointer ends in empty tokens
			// ("/comparisons/0//"): the path stops at what is known.
			break
		}
		if n, err := strconv.Atoi(tok); err == nil && n >= 0 {
			fmt.Fprintf(&b, "[%d]", n)
			continue
		}
		if b.Len() > 0 {
			b.WriteByte('.')
		}
		b.WriteString(tok)
	}
	return b.String()
}
