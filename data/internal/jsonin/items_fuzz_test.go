package jsonin

import (
	"bytes"
	"errors"
	"io"
	"testing"

	"github.com/go-json-experiment/json/jsontext"
)

// countItems counts what CheckItems bounds with jsontext's tokenizer, an
// independent reading of the same text: the most items of one container
// (an object's members, an array's elements) and the whole's containers,
// members and array elements that are not containers.
func countItems(b []byte) (perContainer, total int, ok bool) {
	dec := jsontext.NewDecoder(bytes.NewReader(b), jsontext.AllowDuplicateNames(true), jsontext.AllowInvalidUTF8(true))
	type open struct {
		obj   bool
		items int
		name  bool // the object's next string is a name
	}
	var stack []open
	for {
		tok, err := dec.ReadToken()
		if errors.Is(err, io.EOF) {
			return perContainer, total, true
		}
		if err != nil {
			return 0, 0, false
		}
		k := tok.Kind()
		if k == '}' || k == ']' {
			stack = stack[:len(stack)-1]
			continue
		}
		if n := len(stack); n > 0 {
			top := &stack[n-1]
			switch {
			case top.obj && top.name:
				top.items++
				total++
				perContainer = max(perContainer, top.items)
				top.name = false
				continue
			case top.obj:
				top.name = true // the member's value
			default:
				top.items++
				perContainer = max(perContainer, top.items)
				if k != '{' && k != '[' {
					total++
				}
			}
		}
		if k == '{' || k == '[' {
			total++
			stack = append(stack, open{obj: k == '{', name: k == '{'})
		}
	}
}

// FuzzCheckItems: CheckItems refuses a well-formed value exactly when
// jsontext's count of it passes a bound, every scalar of an array
// counted.
func FuzzCheckItems(f *testing.F) {
	for _, s := range []string{`[1,2,3,4,5]`, `{"a":[1,"x",true,null,{"b":[[],[]]}]}`, `[[1,2],[3,4],[5,6]]`,
		`{"k1":1,"k2":{"k3":[1,2,3]},"k4":"v"}`, `["[[", "\"]]", "{,"]`, `[]`, `{}`, `7`} {
		f.Add([]byte(s), 2, 5)
	}
	f.Fuzz(func(t *testing.T, b []byte, per, total int) {
		per, total = 1+abs(per)%8, 1+abs(total)%32
		wantPer, wantTotal, ok := countItems(b)
		if !ok || !jsontext.Value(b).IsValid() {
			return // CheckItems assumes well-formed JSON
		}
		err := CheckItems(b, Items{PerContainer: per, Total: total})
		over := wantPer > per || wantTotal > total
		if over != (err != nil) {
			t.Fatalf("%s with bounds %d/%d: CheckItems %v; jsontext counts %d in one container, %d in all", b, per, total, err, wantPer, wantTotal)
		}
	})
}

func abs(n int) int {
	if n < 0 {
		return -n
	}
	return n
}
