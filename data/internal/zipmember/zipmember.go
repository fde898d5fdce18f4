// Package zipmember checks a zip archive's members (bundle zips, Inspect
// .eval logs) before any of their bytes are read.
package zipmember

import (
	"archive/zip"
	"errors"
	"fmt"
	"io/fs"
	"strings"
)

// Check refuses a member whose name could escape a folder (absolute, with
// a backslash, "..", or empty) or whose claimed uncompressed size is over
// max; tooBig words the size refusal, since what raises the limit depends
// on the format.
func Check(f *zip.File, max uint64, tooBig func(size uint64) string) error {
	name := f.Name
	if name == "" || strings.HasPrefix(name, "/") || strings.Contains(name, `\`) || !fs.ValidPath(strings.TrimSuffix(name, "/")) {
		return fmt.Errorf("refusing member with unsafe name %q", name)
	}
	if f.UncompressedSize64 > max {
		return errors.New(tooBig(f.UncompressedSize64))
	}
	return nil
}
