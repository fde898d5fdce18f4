package lake

import (
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"io"
	"os"
	"runtime"
	"time"
)

// A folder lake's data files are served through descriptors this process
// holds open, named /proc/self/fd/N to DuckDB: a file replaced after its
// generation was adopted (a rename over it, a copy renamed into place, the
// file removed) then still serves the bytes that were checked, so no
// response mixes a new file's rows with what was served before, and the
// last good state serves on while the new file is refused. A file written
// in place changes under any descriptor; that is told by its size and time
// (intact), and its name is left out until it is put right.
//
// Only Linux names an open descriptor as a path a second open reopens;
// elsewhere the files are served by their paths, as before.
var holdFiles = runtime.GOOS == "linux" && dirExists("/proc/self/fd")

// heldGrace is how long a descriptor no longer served stays open: a query
// bound to the views before a refresh may still open its path, and a
// descriptor number closed and reused by another file would read that file.
const heldGrace = 15 * time.Minute

func dirExists(p string) bool {
	st, err := os.Stat(p)
	return err == nil && st.IsDir()
}

// held is a data file held open: its descriptor, and the file as checked.
type held struct {
	f  *os.File
	st os.FileInfo
	// unserved is when a refresh last served without it (zero: served).
	unserved time.Time
}

// path is what DuckDB reads the held file by.
func (h *held) path() string { return fmt.Sprintf("/proc/self/fd/%d", h.f.Fd()) }

// intact reports whether the held file still has the bytes checked: a
// file written in place has another size or time.
func (h *held) intact() bool {
	st, err := h.f.Stat()
	return err == nil && sameState(st, h.st)
}

// sameState reports whether a and b are the same file, unchanged.
func sameState(a, b os.FileInfo) bool {
	return os.SameFile(a, b) && a.Size() == b.Size() && a.ModTime().Equal(b.ModTime())
}

// openChecked opens p and checks it against want through the descriptor,
// so the bytes checked are the bytes the descriptor serves.
func openChecked(p string, want File) (*held, string, error) {
	f, err := os.Open(p)
	if err != nil {
		return nil, "cannot be read: " + errText(err), err
	}
	st, err := f.Stat()
	if err != nil {
		f.Close()
		return nil, "cannot be read: " + errText(err), err
	}
	if st.Size() != want.Size {
		f.Close()
		return nil, sizeMismatch(st.Size(), want.Size), nil
	}
	h := sha256.New()
	if _, err := io.Copy(h, io.NewSectionReader(f, 0, want.Size)); err != nil {
		f.Close()
		return nil, "cannot be read: " + errText(err), err
	}
	if hex.EncodeToString(h.Sum(nil)) != want.SHA256 {
		f.Close()
		return nil, shaMismatch, nil
	}
	// Written while it was read: not the bytes checked.
	if now, err := f.Stat(); err != nil || !sameState(now, st) {
		f.Close()
		return nil, "changed while it was checked", nil
	}
	return &held{f: f, st: st}, "", nil
}
