// Package jsonin holds what every JSON importer shares: a UTF-8 byte order
// mark, the first invalid UTF-8 byte, and the words for JSON kinds and
// decoding errors, for the people who wrote the file (JSON field paths and
// kinds, never Go type or struct names).
package jsonin

import (
	"bufio"
	"bytes"
	"encoding/json"
	"io"
	"reflect"
	"strings"
	"unicode/utf8"
)

// BOM is the UTF-8 byte order mark.
var BOM = []byte{0xEF, 0xBB, 0xBF}

// BOMAsSpaces reads r with a leading byte order mark turned into three
// spaces. JSON allows no BOM but Windows editors write one; spaces are JSON
// whitespace and keep every byte offset an error reports true to the file.
func BOMAsSpaces(r io.Reader) io.Reader {
	br := bufio.NewReader(r)
	if b, _ := br.Peek(len(BOM)); bytes.Equal(b, BOM) {
		br.Discard(len(BOM))
		return io.MultiReader(strings.NewReader("   "), br)
	}
	return br
}

// FirstInvalidUTF8 returns the offset of the first byte of b that is not
// valid UTF-8, or -1. encoding/json would quietly turn such bytes into
// U+FFFD while the file's bytes are stored as given.
func FirstInvalidUTF8(b []byte) int {
	if utf8.Valid(b) {
		return -1
	}
	for i := 0; i < len(b); {
		r, n := utf8.DecodeRune(b[i:])
		if r == utf8.RuneError && n <= 1 {
			return i
		}
		i += n
	}
	return -1
}

// Kind names the kind of a JSON value from its first byte.
func Kind(raw []byte) string {
	if len(raw) == 0 {
		return "nothing"
	}
	return KindName(raw[0])
}

// KindName names a JSON kind from the first byte of its value (or
// jsontext's Kind, which is that byte).
func KindName(k byte) string {
	switch k {
	case '{':
		return "an object"
	case '[':
		return "a list"
	case '"':
		return "a string"
	case 't', 'f':
		return "true or false"
	case 'n':
		return "null"
	case '-', '0', '1', '2', '3', '4', '5', '6', '7', '8', '9':
		return "a number"
	}
	return "nothing (the input ends)"
}

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

// AppendString quotes s; plain identifiers skip encoding/json.
func AppendString(b []byte, s string) []byte {
	for i := 0; i < len(s); i++ {
		c := s[i]
		if c < 0x20 || c == '"' || c == '\\' || c >= 0x80 || c == '<' || c == '>' || c == '&' {
			q, _ := json.Marshal(s)
			return append(b, q...)
		}
	}
	b = append(b, '"')
	b = append(b, s...)
	return append(b, '"')
}
