package zipmember

import (
	"bufio"
	"bytes"
	"encoding/binary"
	"errors"
	"fmt"
	"io"

	limitpkg "github.com/auditscope/auditscope/data/internal/limit"
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

// CheckCount refuses an archive with more than limit members. It counts
// them by walking the central directory's entries, as archive/zip reads
// them (until one does not start like an entry), not by the
// end-of-central-directory record's count: that is kept modulo 65,536 by
// many writers, and archive/zip accepts a record that says 50,888 for
// 3,000,008 members. The walk reads the directory once through a small
// buffer and stops at the first member past the limit; an archive it
// cannot make out is left to archive/zip, which says what is wrong.
func CheckCount(r io.ReaderAt, size int64, limit uint64) error {
	end, ok := readEnd(r, size)
	if !ok {
		return nil
	}
	n := walk(r, size, end, limit)
	if n > limit {
		return errors.New(limitpkg.Count("the archive has", limit, fmt.Sprintf("members (its directory counted, not its end record's %d)", end.records)))
	}
	return nil
}

// end is what the end-of-central-directory record (zip64's where there is
// one) says: the members, and where the directory is.
type end struct {
	records, dirSize, dirOffset uint64
	at                          int64 // where the record starts
}

// readEnd reads the end record from the tail of the file.
func readEnd(r io.ReaderAt, size int64) (end, bool) {
	const eocdLen, maxComment = 22, 65535
	tail := min(size, eocdLen+maxComment)
	buf := make([]byte, tail)
	if _, err := r.ReadAt(buf, size-tail); err != nil && err != io.EOF {
		return end{}, false
	}
	i := bytes.LastIndex(buf, []byte("PK\x05\x06"))
	if i < 0 || len(buf)-i < eocdLen {
		return end{}, false
	}
	e := end{records: uint64(binary.LittleEndian.Uint16(buf[i+10:])), dirSize: uint64(binary.LittleEndian.Uint32(buf[i+12:])),
		dirOffset: uint64(binary.LittleEndian.Uint32(buf[i+16:])), at: size - tail + int64(i)}
	if e.records != 0xFFFF && e.dirSize != 0xFFFFFFFF && e.dirOffset != 0xFFFFFFFF {
		return e, true
	}
	// Zip64: the locator just before the record gives the zip64 record's
	// offset: its count at 32, the directory's size at 40 and offset at 48.
	if i < 20 || !bytes.Equal(buf[i-20:i-16], []byte("PK\x06\x07")) {
		return e, true
	}
	off := int64(binary.LittleEndian.Uint64(buf[i-20+8:]))
	rec := make([]byte, 56)
	if off < 0 || off > size-56 {
		return e, true
	}
	if _, err := r.ReadAt(rec, off); err != nil || !bytes.Equal(rec[:4], []byte("PK\x06\x06")) {
		return e, true
	}
	e.records, e.dirSize, e.dirOffset = binary.LittleEndian.Uint64(rec[32:]), binary.LittleEndian.Uint64(rec[40:]), binary.LittleEndian.Uint64(rec[48:])
	e.at = off
	return e, true
}

// walk counts the central directory's entries, stopping past limit. A
// directory that does not start where the record says (data prepended to
// the archive, as archive/zip allows) is looked for where it ends, just
// before the record.
func walk(r io.ReaderAt, size int64, e end, limit uint64) uint64 {
	start := int64(e.dirOffset)
	if !entryAt(r, start) {
		start = e.at - int64(e.dirSize)
		if start < 0 || !entryAt(r, start) {
			return 0
		}
	}
	br := bufio.NewReaderSize(io.NewSectionReader(r, start, size-start), 64<<10)
	var head [46]byte
	var n uint64
	for n <= limit {
		if _, err := io.ReadFull(br, head[:]); err != nil || !bytes.Equal(head[:4], []byte("PK\x01\x02")) {
			break
		}
		n++
		skip := int(binary.LittleEndian.Uint16(head[28:])) + int(binary.LittleEndian.Uint16(head[30:])) + int(binary.LittleEndian.Uint16(head[32:]))
		if _, err := br.Discard(skip); err != nil {
			break
		}
	}
	return n
}

// entryAt reports whether a central directory entry starts at off.
func entryAt(r io.ReaderAt, off int64) bool {
	var sig [4]byte
	_, err := r.ReadAt(sig[:], off)
	return err == nil && bytes.Equal(sig[:], []byte("PK\x01\x02"))
}
