// Package regular opens input files for reading only when they are regular
// files. A named pipe (FIFO) in a folder being imported blocked the import
// in open(2) forever, where no signal but SIGKILL ended it; a device or a
// socket is no input either. Files are opened without blocking and checked
// on the open descriptor, so nothing can be swapped in between a check and
// the open.
package regular

import (
	"fmt"
	"io"
	"io/fs"
	"os"
	"syscall"
)

// flags open for reading without waiting for a writer (a FIFO); on a
// regular file O_NONBLOCK has no effect.
const flags = os.O_RDONLY | syscall.O_NONBLOCK

// Open opens the file at path for reading, refusing anything but a
// regular file.
func Open(path string) (*os.File, error) {
	return check(os.OpenFile(path, flags, 0))
}

// OpenIn opens name under root for reading, refusing anything but a
// regular file.
func OpenIn(root *os.Root, name string) (*os.File, error) {
	return check(root.OpenFile(name, flags, 0))
}

// ReadFile reads the regular file at path.
func ReadFile(path string) ([]byte, error) {
	f, err := Open(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	return io.ReadAll(f)
}

func check(f *os.File, err error) (*os.File, error) {
	if err != nil {
		return nil, err
	}
	st, err := f.Stat()
	if err != nil {
		f.Close()
		return nil, err
	}
	if !st.Mode().IsRegular() && !st.IsDir() {
		f.Close()
		return nil, &fs.PathError{Op: "open", Path: f.Name(), Err: fmt.Errorf("%s, not a regular file: only regular files are read", Kind(st.Mode()))}
	}
	return f, nil
}

// Kind names what a mode that is not a regular file is.
func Kind(m fs.FileMode) string {
	switch {
	case m&fs.ModeNamedPipe != 0:
		return "a named pipe (FIFO)"
	case m&fs.ModeSocket != 0:
		return "a socket"
	case m&fs.ModeDevice != 0:
		return "a device"
	case m&fs.ModeSymlink != 0:
		return "a symbolic link"
	case m.IsDir():
		return "a folder"
	}
	return "not a regular file"
}
