package zipmember

import (
	"archive/zip"
	"bytes"
	"encoding/binary"
	"fmt"
	"strings"
	"testing"
)

// zipOf is a zip of n empty members, with a comment and data before it
// when asked: what CheckCount must see through.
func zipOf(t *testing.T, n int, prefix, comment string) []byte {
	t.Helper()
	var b bytes.Buffer
	b.WriteString(prefix)
	zw := zip.NewWriter(&b)
	zw.SetOffset(int64(len(prefix)))
	for i := range n {
		if _, err := zw.Create(fmt.Sprintf("m/%d", i)); err != nil {
			t.Fatal(err)
		}
	}
	if err := zw.SetComment(comment); err != nil {
		t.Fatal(err)
	}
	if err := zw.Close(); err != nil {
		t.Fatal(err)
	}
	return b.Bytes()
}

// TestCheckCount counts members by the central directory, at a limit small
// enough to test here (data's TestHostileCounts, and BenchmarkHostileCounts
// at the default million, import such archives whole): at the limit an
// archive passes, one past it is refused naming both counts, also when data
// precedes the archive (the record's offsets then point short of the
// directory) and when a comment follows it.
func TestCheckCount(t *testing.T) {
	for _, tt := range []struct {
		name            string
		n               int
		prefix, comment string
	}{
		{"plain", 0, "", ""},
		{"data before", 0, strings.Repeat("x", 4096), ""},
		{"a comment after", 0, "", "made by hand"},
	} {
		for _, n := range []int{999, 1000, 1001, 5000} {
			b := zipOf(t, n, tt.prefix, tt.comment)
			err := CheckCount(bytes.NewReader(b), int64(len(b)), 1000)
			if n <= 1000 {
				if err != nil {
					t.Errorf("%s, %d members: %v", tt.name, n, err)
				}
				continue
			}
			if err == nil || !strings.Contains(err.Error(), "more than 1000 members") || !strings.Contains(err.Error(), fmt.Sprintf("end record's %d", n)) {
				t.Errorf("%s, %d members: %v; want a refusal naming the limit and the record's count", tt.name, n, err)
			}
		}
	}
}

// TestCheckCountLyingRecord: a zip64 archive of 70,000 members whose end
// records keep the count modulo 65,536 (4,464), as many writers leave it,
// is counted by its directory.
func TestCheckCountLyingRecord(t *testing.T) {
	b := zipOf(t, 70_000, "", "")
	i := bytes.LastIndex(b, []byte("PK\x06\x06"))
	if i < 0 {
		t.Fatal("no zip64 end record")
	}
	binary.LittleEndian.PutUint64(b[i+24:], 70_000%65536)
	binary.LittleEndian.PutUint64(b[i+32:], 70_000%65536)
	err := CheckCount(bytes.NewReader(b), int64(len(b)), 66_000)
	if err == nil || !strings.Contains(err.Error(), "more than 66000 members") || !strings.Contains(err.Error(), "end record's 4464") {
		t.Errorf("%v; want a refusal counting past 66,000 while the record says 4,464", err)
	}
	if err := CheckCount(bytes.NewReader(b), int64(len(b)), 70_000); err != nil {
		t.Errorf("at its own count: %v", err)
	}
	// Not a zip at all: left to archive/zip to say what is wrong.
	if err := CheckCount(strings.NewReader("not a zip"), 9, 10); err != nil {
		t.Errorf("not a zip: %v", err)
	}
}

func TestMaxMembers(t *testing.T) {
	for _, tt := range []struct {
		max  int64
		want uint64
	}{{96 << 20, 1_000_000}, {10 << 20, 1_000_000}, {192 << 20, 2_000_000}, {960 << 20, 10_000_000}} {
		if got := MaxMembers(tt.max, 96<<20); got != tt.want {
			t.Errorf("MaxMembers(%d MiB) = %d, want %d", tt.max>>20, got, tt.want)
		}
	}
}
