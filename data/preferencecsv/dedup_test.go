package preferencecsv

import (
	"slices"
	"testing"
)

// TestDedup: repeated column names are named as pandas' read_csv names
// them. The expected names follow pandas.io.common.dedup_names (pandas
// 2.x), traced by hand: pandas is not installed here to run it.
func TestDedup(t *testing.T) {
	cases := map[string][2][]string{
		"Feedback Forensics' 000_train_data.csv": {{"index", "index", "text_a", "text_b", "preferred_text"}, {"index", "index.1", "text_a", "text_b", "preferred_text"}},
		"a name the header has":                  {{"a", "a", "a.1", "a"}, {"a", "a.1", "a.1.1", "a.2"}},
	}
	for name, c := range cases {
		counts := map[string]int{}
		got := make([]string, len(c[0]))
		for i, h := range c[0] {
			got[i] = dedup(counts, h)
		}
		if !slices.Equal(got, c[1]) {
			t.Errorf("%s: %v, want %v", name, got, c[1])
		}
	}
}
