package jsonword

import (
	"encoding/json"
	"errors"
	"reflect"
	"strings"
	"testing"
)

type outcome struct {
	Quality float64 `json:"quality"`
}

type audit struct {
	ID      string  `json:"id"`
	Turns   int     `json:"turns"`
	Outcome outcome `json:"outcome"`
}

func TestDescribe(t *testing.T) {
	for in, want := range map[string]string{
		`{"id": 5}`:                     "field id: want a string, found a JSON number",
		`{"turns": "six"}`:              "field turns: want a whole number, found a JSON string",
		`{"outcome": {"quality": "x"}}`: "field outcome.quality: want a number, found a JSON string",
	} {
		var a audit
		var typ *json.UnmarshalTypeError
		if err := json.Unmarshal([]byte(in), &a); !errors.As(err, &typ) {
			t.Fatalf("%s: %v", in, err)
		}
		if got := Describe(typ); got != want {
			t.Errorf("%s: %q, want %q", in, got, want)
		}
	}
	// A Go struct name in front of the path is dropped.
	typ := &json.UnmarshalTypeError{Value: "number", Type: reflect.TypeOf(""), Struct: "Audit", Field: "Audit.id"}
	if got := Describe(typ); strings.Contains(got, "Audit") || !strings.Contains(got, "field id") {
		t.Errorf("%q", got)
	}
	typ.Struct = ""
	if got := Describe(typ); strings.Contains(got, "Audit") {
		t.Errorf("%q", got)
	}
}
