package app

import "fmt"

// QueryError is a problem with what was asked that the user can fix (an
// unknown key, a choice that excludes another): a 400 whose message the
// page shows.
//
// Field is the part of the page's query at fault, by its name in the
// query's struct ("Judge", "With"; "" for the query as a whole): web
// names it as the URL does (params.go), so this layer knows no URL.
type QueryError struct{ Field, Msg string }

func (e *QueryError) Error() string {
	if e.Field == "" {
		return e.Msg
	}
	return e.Field + ": " + e.Msg
}

// FieldErrorf is a QueryError of one field of the query.
func FieldErrorf(field, format string, args ...any) error {
	return &QueryError{Field: field, Msg: fmt.Sprintf(format, args...)}
}

// Queryf is a QueryError.
func Queryf(format string, args ...any) error {
	return &QueryError{Msg: fmt.Sprintf(format, args...)}
}
