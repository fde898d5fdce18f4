package bundle

import (
	"errors"
	"io"
	"strings"
	"testing"
	"testing/iotest"
)

// TestCapped: a zip member read to the cap and no further ends as the
// member does; one that goes on past it fails, so that no line after the
// cap is dropped without a word (as io.LimitReader did: a 7.5 GB
// audits.jsonl ended at 4 GiB, in the middle of a line).
func TestCapped(t *testing.T) {
	for _, c := range []struct {
		text string
		cap  int64
		err  error
	}{
		{"abcd", 4, nil}, {"abc", 4, nil}, {"", 0, nil}, {"abcde", 4, errMemberTooLong}, {"a", 0, errMemberTooLong},
	} {
		// One byte a read, as a zip member may give them.
		r := &capped{r: iotest.OneByteReader(strings.NewReader(c.text)), left: c.cap}
		got, err := io.ReadAll(r)
		if !errors.Is(err, c.err) {
			t.Errorf("%q with a cap of %d: %v, want %v", c.text, c.cap, err, c.err)
		}
		if c.err == nil && string(got) != c.text {
			t.Errorf("%q with a cap of %d read as %q", c.text, c.cap, got)
		}
	}
}
