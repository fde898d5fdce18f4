package data

import (
	"bufio"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"strings"
)

// jsonErr turns a decoding error into an InputError with the byte offset,
// the line (counted from the file) and the JSON path.
func jsonErr(file string, dec *json.Decoder, path string, err error) error {
	ie := &InputError{File: file, Offset: -1, Path: path}
	var syn *json.SyntaxError
	var typ *json.UnmarshalTypeError
	switch {
	case errors.As(err, &syn):
		ie.Offset = syn.Offset
		ie.Msg = "invalid JSON: " + syn.Error()
	case errors.As(err, &typ):
		ie.Offset = typ.Offset
		if typ.Field != "" {
			ie.Path = joinPath(path, typ.Field)
		}
		ie.Msg = fmt.Sprintf("want %s, found a JSON %s", goTypeName(typ.Type.String()), typ.Value)
	case errors.Is(err, io.ErrUnexpectedEOF), errors.Is(err, io.EOF):
		if dec != nil {
			ie.Offset = dec.InputOffset()
		}
		ie.Msg = "the file ends in the middle of the JSON (truncated?)"
	default:
		var inner *InputError
		if errors.As(err, &inner) {
			return inner
		}
		if dec != nil {
			ie.Offset = dec.InputOffset()
		}
		ie.Msg = err.Error()
	}
	if ie.Offset >= 0 {
		ie.Line = lineAt(file, ie.Offset)
	}
	return ie
}

func joinPath(prefix, field string) string {
	if prefix == "" {
		return field
	}
	if field == "" {
		return prefix
	}
	return prefix + "." + field
}

// goTypeName says what a Go type means in JSON words.
func goTypeName(t string) string {
	switch {
	case t == "string" || strings.HasSuffix(t, "*string"):
		return "a string"
	case strings.HasPrefix(t, "map[") || strings.HasPrefix(t, "struct") || strings.Contains(t, "data."):
		return "an object"
	case strings.HasPrefix(t, "[]"):
		return "an array"
	case strings.Contains(t, "int") || strings.Contains(t, "float"):
		return "a number"
	case t == "bool":
		return "true or false"
	}
	return t
}

// lineAt returns the 1-based line of a byte offset in a file (0 if the file
// cannot be read). It is only used on the error path.
func lineAt(file string, offset int64) int {
	f, err := os.Open(file)
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
