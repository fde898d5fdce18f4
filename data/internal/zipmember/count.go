package zipmember

import (
	"bytes"
	"encoding/binary"
	"fmt"
	"io"
)

// MaxMembers is the most members a zip (a bundle, an .eval log) may have
// under the limit max on one value (a bound that follows it, as the item
// counts do): 1,000,000 at the default 96 MiB. archive/zip holds an entry
// of a few hundred bytes per member from the start: a zip of 3 million
// empty members took 1.2 GiB before a byte of one was read.
func MaxMembers(max, defaultMax int64) uint64 {
	scale := max / defaultMax
	if scale < 1 {
		scale = 1
	}
	return uint64(1_000_000 * scale)
}

// CheckCount refuses an archive whose end-of-central-directory record
// (zip64's where it has one) says it has more than limit members. It reads
// only the tail of the file; an archive it cannot make out is left to
// archive/zip, which says what is wrong.
func CheckCount(r io.ReaderAt, size int64, limit uint64) error {
	n, ok := count(r, size)
	if ok && n > limit {
		return fmt.Errorf("the archive has %d members, more than the %d that go with the limit on one value's size; raise both with --max-value", n, limit)
	}
	return nil
}

// count is the member count the end-of-central-directory record gives.
func count(r io.ReaderAt, size int64) (uint64, bool) {
	const eocdLen, maxComment = 22, 65535
	tail := min(size, eocdLen+maxComment)
	buf := make([]byte, tail)
	if _, err := r.ReadAt(buf, size-tail); err != nil && err != io.EOF {
		return 0, false
	}
	i := bytes.LastIndex(buf, []byte("PK\x05\x06"))
	if i < 0 || len(buf)-i < eocdLen {
		return 0, false
	}
	n := uint64(binary.LittleEndian.Uint16(buf[i+10:]))
	if n != 0xFFFF {
		return n, true
	}
	// Zip64: the locator just before the record gives the zip64 record's
	// offset, whose count is 8 bytes at 32.
	if i < 20 || !bytes.Equal(buf[i-20:i-16], []byte("PK\x06\x07")) {
		return n, true
	}
	off := int64(binary.LittleEndian.Uint64(buf[i-20+8:]))
	rec := make([]byte, 40)
	if off < 0 || off > size-40 {
		return n, true
	}
	if _, err := r.ReadAt(rec, off); err != nil || !bytes.Equal(rec[:4], []byte("PK\x06\x06")) {
		return n, true
	}
	return binary.LittleEndian.Uint64(rec[32:]), true
}
