package limit

import (
	"errors"
	"io"
	"strings"
	"testing"
)

func TestReader(t *testing.T) {
	r := &Reader{R: strings.NewReader(strings.Repeat("x", 100)), Max: 10, Slack: 5}
	buf := make([]byte, 4)
	read := 0
	for {
		n, err := r.Read(buf)
		read += n
		if errors.Is(err, ErrTooLarge) {
			break
		}
		if err != nil {
			t.Fatal(err)
		}
	}
	if read != 16 || !r.Tripped() {
		t.Fatalf("read %d bytes before the limit (tripped %v), want 16", read, r.Tripped())
	}
	// A mark moves the window: values under the limit read on.
	r = &Reader{R: strings.NewReader(strings.Repeat("x", 100)), Max: 10}
	for off := int64(0); ; off += 4 {
		r.Mark(off)
		if _, err := r.Read(buf); err == io.EOF {
			break
		} else if err != nil {
			t.Fatalf("at %d: %v", off, err)
		}
	}
}

func TestMessage(t *testing.T) {
	got := Message("comparisons[3]", 96<<20)
	for _, want := range []string{"comparisons[3]", "96MiB", "--max-value", "384MiB"} {
		if !strings.Contains(got, want) {
			t.Errorf("%q lacks %q", got, want)
		}
	}
	if Or(0) != Default || Or(5) != 5 {
		t.Error("Or")
	}
}

// TestCount: every count bound's refusal reads the same way and says how
// to raise it.
func TestCount(t *testing.T) {
	got := Count("the archive has", 1000000, "members")
	want := "the archive has more than 1000000 members, the limit that goes with the limit on one value's size; raise both with --max-value"
	if got != want {
		t.Errorf("%q, want %q", got, want)
	}
}
