package inspect

import (
	"encoding/json"
	"testing"
)

// TestValueToFloat follows inspect_ai's value_to_float with its defaults.
func TestValueToFloat(t *testing.T) {
	for _, c := range []struct {
		raw  string
		want float64
		ok   bool
	}{
		{`"C"`, 1, true}, {`"I"`, 0, true}, {`"P"`, 0.5, true}, {`"N"`, 0, true},
		{`"yes"`, 1, true}, {`"True"`, 1, true}, {`"NO"`, 0, true}, {`"false"`, 0, true},
		{`"0.25"`, 0.25, true}, {`" 3 "`, 3, true}, {`2`, 2, true}, {`-1.5`, -1.5, true},
		{`true`, 1, true}, {`false`, 0, true},
		{`"c"`, 0, false}, {`"maybe"`, 0, false}, {`"nan"`, 0, false}, {`null`, 0, false},
		{`[1]`, 0, false}, {`{"a": 1}`, 0, false}, {``, 0, false},
	} {
		got, ok := ValueToFloat(json.RawMessage(c.raw))
		if got != c.want || ok != c.ok {
			t.Errorf("ValueToFloat(%s) = %v, %v; want %v, %v", c.raw, got, ok, c.want, c.ok)
		}
	}
}
