package watch

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"time"

	"github.com/auditscope/auditscope/data/internal/regular"
)

// entry is one file found by a scan.
type entry struct {
	rel    string
	path   string
	size   int64
	mod    time.Time
	bundle string // the bundle folder it belongs to (relative), "" for none
	kind   string // for a log: model.KindPetri or model.KindInspect
	mode   fs.FileMode
	// err is why the path is not read: a symbolic link, a file or folder
	// that cannot be read. It is a problem until the path changes.
	err error
	// imported: its audits from an earlier import are in the experiment.
	imported bool
}

// errLink is a symbolic link in a watched folder: never followed, at start
// or later, since it may lead out of the folder (to any file the server's
// user can read).
var errLink = errors.New("a symbolic link: the watcher reads no links (one could lead out of the watched folder); copy the file in instead")

// notRegular is the problem of a path named as an input (x.json) that is
// not a file: a named pipe, a socket, a device. It is never opened (a pipe
// would wait for a writer), and is a problem until it changes, since an
// imported file replaced by one may be on its way back.
func notRegular(m fs.FileMode) error {
	return fmt.Errorf("%s, not a regular file: never opened; tried again when it changes", regular.Kind(m))
}

// unreadable is the problem of a path the watcher cannot read.
func unreadable(err error) error {
	var pe *fs.PathError
	if errors.As(err, &pe) {
		err = pe.Err
	}
	return fmt.Errorf("cannot be read (%v); tried again when it changes", err)
}

// scan lists the files under r: hidden ones are left out. A symbolic link
// (to a file or a folder) and a file or folder that cannot be read are
// listed with the reason, and nothing under them is read.
func (r *root) scan() ([]entry, error) {
	var out []entry
	bundles := map[string]bool{}
	err := filepath.WalkDir(r.dir, func(p string, d fs.DirEntry, err error) error {
		rel, _ := filepath.Rel(r.dir, p)
		rel = filepath.ToSlash(rel)
		if err != nil {
			if p != r.dir && errors.Is(err, fs.ErrNotExist) {
				return nil // gone while we looked
			}
			if p == r.dir && d == nil {
				return err // the folder itself is not there
			}
			// A folder that cannot be listed (or the folder itself): a
			// problem, the rest goes on.
			var mode fs.FileMode
			if d != nil {
				mode = d.Type()
			}
			out = append(out, entry{rel: rel, path: p, mode: mode, err: unreadable(err)})
			return filepath.SkipDir
		}
		if p != r.dir && strings.HasPrefix(d.Name(), ".") {
			if d.IsDir() {
				return filepath.SkipDir
			}
			return nil
		}
		if d.Type()&fs.ModeSymlink != 0 {
			out = append(out, linkEntry(rel, p))
			return nil
		}
		if d.IsDir() {
			if st, err := os.Lstat(filepath.Join(p, "experiment.json")); err == nil && st.Mode().IsRegular() {
				bundles[rel] = true
			}
			return nil
		}
		if !d.Type().IsRegular() {
			if importable(rel) {
				out = append(out, entry{rel: rel, path: p, mode: d.Type(), err: notRegular(d.Type())})
			}
			return nil
		}
		info, err := d.Info()
		if err != nil {
			return nil
		}
		out = append(out, entry{rel: rel, path: p, size: info.Size(), mod: info.ModTime(), mode: info.Mode()})
		return nil
	})
	for i := range out {
		for b := range bundles {
			if b == "." || strings.HasPrefix(out[i].rel, b+"/") {
				out[i].bundle = b
			}
		}
	}
	return out, err
}

// linkEntry is a symbolic link found at rel, with what the link says (its
// size and time, so a changed link is a change).
func linkEntry(rel, p string) entry {
	e := entry{rel: rel, path: p, mode: fs.ModeSymlink, err: errLink}
	if st, err := os.Lstat(p); err == nil {
		e.size, e.mod = st.Size(), st.ModTime()
	}
	return e
}

// entries stats the given paths under r, without scanning the rest: a
// folder among them is scanned whole (it may be new, or readable again),
// a file in a bundle names its bundle. gone lists the paths no longer
// there.
func (r *root) entries(paths []string) (out []entry, gone []string, err error) {
	seen := map[string]bool{}
	for _, p := range paths {
		rel, err := filepath.Rel(r.dir, p)
		if err != nil || strings.HasPrefix(rel, "..") {
			continue
		}
		rel = filepath.ToSlash(rel)
		if hidden(rel) {
			continue
		}
		// Lstat: a link is reported as one, never followed.
		info, err := os.Lstat(p)
		if errors.Is(err, fs.ErrNotExist) {
			gone = append(gone, p)
			continue
		}
		if err != nil {
			// Not gone: a folder above it cannot be searched (its
			// permissions). A problem until it changes.
			if !seen[rel] {
				seen[rel] = true
				out = append(out, entry{rel: rel, path: p, err: unreadable(err), bundle: r.bundleOf(rel)})
			}
			continue
		}
		if info.Mode()&fs.ModeSymlink != 0 {
			if !seen[rel] {
				seen[rel] = true
				out = append(out, linkEntry(rel, p))
			}
			continue
		}
		if info.IsDir() {
			sub := &root{dir: p}
			list, err := sub.scan()
			if err != nil {
				return nil, nil, err
			}
			for _, e := range list {
				e.rel = filepath.ToSlash(filepath.Join(rel, e.rel))
				e.bundle = r.bundleOf(e.rel)
				if !seen[e.rel] {
					seen[e.rel] = true
					out = append(out, e)
				}
			}
			continue
		}
		if seen[rel] {
			continue
		}
		if !info.Mode().IsRegular() {
			if importable(rel) {
				seen[rel] = true
				out = append(out, entry{rel: rel, path: p, mode: info.Mode(), err: notRegular(info.Mode()), bundle: r.bundleOf(rel)})
			}
			continue
		}
		seen[rel] = true
		out = append(out, entry{rel: rel, path: p, size: info.Size(), mod: info.ModTime(), mode: info.Mode(), bundle: r.bundleOf(rel)})
	}
	return out, gone, nil
}

// bundleOf is the bundle folder (relative to r) holding rel, if any: the
// nearest folder up from it, up to r itself, with an experiment.json.
func (r *root) bundleOf(rel string) string {
	for d := filepath.ToSlash(filepath.Dir(rel)); ; d = filepath.ToSlash(filepath.Dir(d)) {
		if st, err := os.Lstat(filepath.Join(r.dir, filepath.FromSlash(d), "experiment.json")); err == nil && st.Mode().IsRegular() {
			return d
		}
		if d == "." || d == "/" || d == "" {
			return ""
		}
	}
}

// importable reports whether a file's extension is one an import reads:
// anything else in a watched folder is left alone, not reported.
func importable(rel string) bool {
	switch strings.ToLower(filepath.Ext(rel)) {
	case ".json", ".csv", ".eval", ".zip":
		return true
	}
	return false
}

// hidden reports whether a relative path has a part starting with ".".
func hidden(rel string) bool {
	for _, part := range strings.Split(rel, "/") {
		if strings.HasPrefix(part, ".") && part != "." {
			return true
		}
	}
	return false
}
