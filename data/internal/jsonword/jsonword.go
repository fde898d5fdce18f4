// Package jsonword words JSON decoding errors for the people who wrote the
// file: JSON field paths and JSON kinds, never Go type or struct names.
package jsonword

import (
	"encoding/json"
	"reflect"
	"strings"
)

// TypeName says what a Go type means in JSON words.
func TypeName(t reflect.Type) string {
	if t == nil {
		return "a value"
	}
	switch t.Kind() {
	case reflect.String:
		return "a string"
	case reflect.Bool:
		return "true or false"
	case reflect.Int, reflect.Int8, reflect.Int16, reflect.Int32, reflect.Int64,
		reflect.Uint, reflect.Uint8, reflect.Uint16, reflect.Uint32, reflect.Uint64:
		return "a whole number"
	case reflect.Float32, reflect.Float64:
		return "a number"
	case reflect.Slice, reflect.Array:
		return "a list"
	case reflect.Map, reflect.Struct:
		return "an object"
	case reflect.Pointer:
		return TypeName(t.Elem())
	}
	return "a value"
}

// Field is the JSON path of a type error's field: encoding/json can put the
// Go struct's name first ("Audit.outcome.quality"), which the file's author
// never wrote. JSON keys in the formats auditscope reads are lower case, so
// leading segments that start with an upper-case letter are Go names.
func Field(typ *json.UnmarshalTypeError) string {
	f := typ.Field
	for f != "" && f[0] >= 'A' && f[0] <= 'Z' {
		i := strings.IndexByte(f, '.')
		if i < 0 {
			break
		}
		f = f[i+1:]
	}
	return f
}

// Describe words a type error: "field outcome.quality: want a number,
// found a JSON string".
func Describe(typ *json.UnmarshalTypeError) string {
	msg := "want " + TypeName(typ.Type) + ", found a JSON " + typ.Value
	if f := Field(typ); f != "" {
		return "field " + f + ": " + msg
	}
	return msg
}
