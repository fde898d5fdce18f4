package watch

import (
	"errors"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"time"
)

// shown is a path as problems name it: under a bucket prefix's copy, the
// object's URL.
func (w *Watcher) shown(p string) string {
	for _, r := range w.roots {
		if r.mirror == nil {
			continue
		}
		if p == r.dir {
			return r.url
		}
		if rel, ok := strings.CutPrefix(p, r.dir+string(filepath.Separator)); ok {
			return r.url + "/" + filepath.ToSlash(rel)
		}
	}
	return p
}

// Problems lists the files that could not be imported, by path.
func (w *Watcher) Problems() []Problem {
	w.mu.Lock()
	defer w.mu.Unlock()
	out := make([]Problem, 0, len(w.problems))
	for _, p := range w.problems {
		// Errors name the local copy of an object in a bucket: its URL
		// instead.
		if u := w.shown(p.File); u != p.File {
			p.Msg = strings.ReplaceAll(p.Msg, p.File, u)
			p.File = u
		}
		out = append(out, p)
	}
	slices.SortFunc(out, func(a, b Problem) int { return strings.Compare(a.File, b.File) })
	return out
}

func (w *Watcher) setProblem(file string, err error) {
	w.mu.Lock()
	defer w.mu.Unlock()
	msg := problemText(file, err)
	if p, ok := w.problems[file]; ok && p.Msg == msg {
		return
	}
	w.problems[file] = Problem{File: file, Msg: msg, At: time.Now().UTC()}
	w.changes++
	w.log.Warn("watch: cannot import", "file", w.shown(file), "err", msg)
}

func (w *Watcher) clearProblem(file string) {
	w.mu.Lock()
	defer w.mu.Unlock()
	if _, ok := w.problems[file]; ok {
		delete(w.problems, file)
		w.changes++
	}
}

// problemText is an error as a problem of file says it: the errors name
// the file, which the problem shows once ("f.json:3: x" reads "line 3: x").
func problemText(file string, err error) string {
	msg := err.Error()
	rest, ok := strings.CutPrefix(msg, file)
	if !ok {
		return msg
	}
	if n, after, ok := strings.Cut(strings.TrimPrefix(rest, ":"), ": "); ok && n != "" && strings.Trim(n, "0123456789") == "" {
		return "line " + n + ": " + after
	}
	return strings.TrimPrefix(strings.TrimPrefix(rest, ":"), " ")
}

// ProblemsVersion counts the changes to Problems, for caches of pages that
// show them.
func (w *Watcher) ProblemsVersion() int64 {
	w.mu.Lock()
	defer w.mu.Unlock()
	return w.changes
}

// errGone is the problem of a watched folder that is not there.
var errGone = errors.New("the watched folder is gone (deleted or moved away): what was imported from it is kept, and it is looked for every second and followed again when it is back")

// setGone records whether r's folder is gone, as a problem of the folder.
func (w *Watcher) setGone(r *root, gone bool) {
	if gone == r.gone {
		return
	}
	r.gone = gone
	if gone {
		w.setProblem(r.dir, errGone)
		return
	}
	w.clearProblem(r.dir)
}

// clearStale clears the problems of paths under the given ones (each a
// path or a folder) that list no longer reports as they were: files gone,
// links removed, folders readable again. Their last-seen state goes too,
// so the same problem coming back is reported again.
func (w *Watcher) clearStale(r *root, list []entry, under, gone []string) {
	keep := map[string]bool{}
	for _, e := range list {
		if e.err != nil || !r.files[e.rel].unread {
			keep[e.path] = true
		}
		if e.bundle != "" {
			keep[filepath.Join(r.dir, filepath.FromSlash(e.bundle))] = true
		}
	}
	within := func(p string, dirs []string) bool {
		for _, d := range dirs {
			if p == d || strings.HasPrefix(p, d+string(filepath.Separator)) {
				return true
			}
		}
		return false
	}
	for rel, st := range r.files {
		p := filepath.Join(r.dir, filepath.FromSlash(rel))
		if st.unread && !keep[p] && (within(p, under) || within(p, gone)) {
			w.clearProblem(p)
			if st.held && !within(p, gone) {
				// Readable again: its audits are still in the experiment,
				// so it is not forgotten (it would be a new file, and its
				// audit ids taken) but seen as changed.
				st.unread, st.size = false, -1
				r.files[rel] = st
				continue
			}
			delete(r.files, rel)
		}
	}
	w.mu.Lock()
	var stale []string
	for p := range w.problems {
		// Any problem of a path under r that is no longer there goes, not
		// only those under the paths synced: an error may name another
		// file (an append's "used twice" names the file it clashed with).
		if !keep[p] && (within(p, gone) || p != r.dir && within(p, []string{r.dir}) && !w.exists(p)) {
			stale = append(stale, p)
		}
	}
	w.mu.Unlock()
	for _, p := range stale {
		w.clearProblem(p)
	}
}

// exists reports whether p is there (not following a link).
func (w *Watcher) exists(p string) bool {
	_, err := os.Lstat(p)
	return err == nil
}
