package jsonin

import (
	"encoding/json"
	"errors"
	"io"
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

func TestHelpers(t *testing.T) {
	for in, want := range map[string]int{"": -1, "plain": -1, "héllo": -1, "ab\xffc": 2, "\xc3": 0, "ok\xe2\x82": 2} {
		if got := FirstInvalidUTF8([]byte(in)); got != want {
			t.Errorf("FirstInvalidUTF8(%q) = %d, want %d", in, got, want)
		}
	}
	b, err := io.ReadAll(BOMAsSpaces(strings.NewReader("\xEF\xBB\xBF{}")))
	if err != nil || string(b) != "   {}" {
		t.Errorf("BOMAsSpaces: %q %v", b, err)
	}
	if b, _ := io.ReadAll(BOMAsSpaces(strings.NewReader("{}"))); string(b) != "{}" {
		t.Errorf("BOMAsSpaces without a BOM: %q", b)
	}
	for in, want := range map[string]string{`{"a":1}`: "an object", `[1]`: "a list", `"x"`: "a string", `-1`: "a number", `true`: "true or false", `null`: "null", ``: "nothing"} {
		if got := Kind([]byte(in)); got != want {
			t.Errorf("Kind(%q) = %q, want %q", in, got, want)
		}
	}
}
