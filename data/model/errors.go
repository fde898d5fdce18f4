package model

import (
	"errors"
	"fmt"
	"unicode/utf8"
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
		loc += ": " + clipMiddle(e.Path, maxErrPath)
	}
	return loc + ": " + clipMiddle(e.Msg, maxErrMsg)
}

// Caps on what an error echoes of the input: a 10,000-deep JSON path or a
// megabyte value quoted in a message is cut in the middle.
const (
	maxErrPath = 200
	maxErrMsg  = 800
)

// clipMiddle shortens s to about n bytes, keeping its start and end.
func clipMiddle(s string, n int) string {
	if len(s) <= n {
		return s
	}
	head, tail := n*2/3, n/3
	for head > 0 && !utf8.RuneStart(s[head]) {
		head--
	}
	cut := len(s) - tail
	for cut < len(s) && !utf8.RuneStart(s[cut]) {
		cut++
	}
	return fmt.Sprintf("%s…(%d bytes cut)…%s", s[:head], cut-head, s[cut:])
}

// IsInputError reports whether err is (or wraps) an *InputError.
func IsInputError(err error) bool {
	var ie *InputError
	return errors.As(err, &ie)
}
