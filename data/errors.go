package data

import (
	"errors"
	"fmt"
)

// InputError is a problem with an imported file: which file, where in it,
// and what was expected. Its message is meant for the user as is.
type InputError struct {
	File   string // path as given, or path inside a bundle / member of a zip
	Line   int    // 1-based line, 0 when unknown
	Offset int64  // byte offset, -1 when unknown
	Path   string // JSON path (e.g. comparisons[12].annotations.h1.pref) or CSV column
	Msg    string
}

func (e *InputError) Error() string {
	loc := e.File
	if e.Line > 0 {
		loc += fmt.Sprintf(":%d", e.Line)
	} else if e.Offset >= 0 {
		loc += fmt.Sprintf(" (byte %d)", e.Offset)
	}
	if e.Path != "" {
		loc += ": " + e.Path
	}
	return loc + ": " + e.Msg
}

// IsInputError reports whether err is (or wraps) an *InputError.
func IsInputError(err error) bool {
	var ie *InputError
	return errors.As(err, &ie)
}

func inputErr(file string, line int, path, format string, args ...any) *InputError {
	return &InputError{File: file, Line: line, Offset: -1, Path: path, Msg: fmt.Sprintf(format, args...)}
}
