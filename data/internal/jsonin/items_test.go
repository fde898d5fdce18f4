package jsonin

import (
	"errors"
	"strings"
	"testing"
)

func TestCheckItems(t *testing.T) {
	// Every item counts in the whole: containers, members and the scalars
	// of arrays.
	lim := Items{PerContainer: 3, Total: 12}
	cases := []struct {
		in, path string
		total    bool // over the total, not one container
	}{
		{`{"a": [1, 2, 3], "b": {"x": "y,z", "w": "\"{["}}`, "", false},
		{`{"a": [1, 2, 3, 4]}`, "a", false},
		{`{"m": {"k1": 0, "k2": 0, "k3": 0, "k4": 0}}`, "m", false},
		{`{"a": [{}, [{"x": [1, 2, 3, 4]}]]}`, "a[1][0].x", false},
		{`{"s": "a\\", "t": [1, 2, 3, 4]}`, "t", false},
		{`[{"a": 1}, {"b": 2}, {"c": {"d": {"e": {"f": {"g": 1}}}}}]`, "[2].c.d.e", true},
		{`[[1, 2, 3], [4, 5, 6], [7, 8, 9]]`, "[2]", true},
		{`{"k1": 1, "k2": 2, "k3": 3, "k4": 4}`, "", false},
	}
	for _, c := range cases {
		err := CheckItems([]byte(c.in), lim)
		if c.path == "" && !strings.HasPrefix(c.in, `{"k1"`) {
			if err != nil {
				t.Errorf("%s: %v, want no error", c.in, err)
			}
			continue
		}
		var ie *ItemsError
		if !errors.As(err, &ie) || ie.Path != c.path || ie.Total != c.total {
			t.Errorf("%s: %#v, want the path %q (total %v)", c.in, err, c.path, c.total)
		}
	}
	// Strings with brackets and escaped quotes are not structure.
	if err := CheckItems([]byte(`["[[[[", "\"]]]]\\", "{{,,,,"]`), lim); err != nil {
		t.Errorf("strings counted as structure: %v", err)
	}
}
