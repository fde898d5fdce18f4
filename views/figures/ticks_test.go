package figures

import "testing"

// TestRoundTicks: gonum's tick positions, labelled with the decimals the
// step needs and no more (the ticks read 0 / 25 / 50, not 0.00 / 25.00).
func TestRoundTicks(t *testing.T) {
	for _, c := range []struct {
		min, max float64
		want     []string
	}{
		{-0.0001, 0.2, []string{"0.0", "0.1", "0.2"}},
		{0, 55, []string{"0", "25", "50"}},
		{0, 1, []string{"0.0", "0.5", "1.0"}},
		{-1, 1, []string{"-1", "0", "1"}},
		{0, 450, []string{"0", "200", "400"}},
	} {
		var got []string
		for _, tk := range (roundTicks{}).Ticks(c.min, c.max) {
			if tk.Label != "" {
				got = append(got, tk.Label)
			}
		}
		if len(got) != len(c.want) {
			t.Errorf("[%v, %v]: %v, want %v", c.min, c.max, got, c.want)
			continue
		}
		for i := range got {
			if got[i] != c.want[i] {
				t.Errorf("[%v, %v]: %v, want %v", c.min, c.max, got, c.want)
				break
			}
		}
	}
}
