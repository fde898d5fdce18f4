// Package watch keeps a store in step with folders while a server runs
// (auditscope serve --watch): it imports every supported file under them at
// start, then notices new, grown and changed files and imports what
// changed.
//
// What a watched folder holds:
//
//   - a bundle (the folder itself, or a subfolder, with experiment.json):
//     any change re-imports it as a new generation of its experiment;
//   - AnnotatedPairs .json and preference .csv files: each a dataset,
//     re-imported as a new generation when it changes;
//   - Petri transcripts and Inspect logs anywhere else under it: together
//     one experiment named after the folder. A new transcript or log, or
//     new samples of a log still being written, are appended to it
//     (data.Store.AppendLogs reads only those files); a transcript that
//     changed after it was imported makes the experiment be imported again.
//
// A file that cannot be read is a Problem, named on the home page and in
// the log; the other files go on, and it is tried again when it changes.
// Deleting a file removes nothing: what was imported stays.
//
// Changes are noticed through fsnotify; a file is read once it has been
// quiet for Options.Settle. With Options.Poll (for network filesystems,
// where change notifications do not arrive) every folder is scanned at
// that interval instead.
package watch

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"log/slog"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"time"

	"github.com/fsnotify/fsnotify"

	"github.com/auditscope/auditscope/data"
	"github.com/auditscope/auditscope/data/bucket"
	"github.com/auditscope/auditscope/data/logs"
	"github.com/auditscope/auditscope/data/model"
)

// Options control a Watcher.
type Options struct {
	// Poll, when positive, scans every folder at this interval instead of
	// waiting for change notifications (network filesystems).
	Poll time.Duration
	// Settle is how long a file must be unchanged before it is read, so a
	// file is not read while it is being written (default 300 ms).
	Settle time.Duration
	// Import holds the options every import takes (MaxValue).
	Import data.ImportOptions
}

// Problem is a file that could not be imported.
type Problem struct {
	File, Msg string
	At        time.Time
}

// Watcher watches folders and imports what changes under them.
type Watcher struct {
	store *data.Store
	log   *slog.Logger
	opts  Options
	roots []*root

	mu       sync.Mutex
	problems map[string]Problem
	changes  int64 // of problems

	syncMu sync.Mutex // one sync at a time
	loops  sync.WaitGroup
	done   chan struct{}
}

// root is one watched folder.
type root struct {
	dir  string
	name string // the experiment its logs make up
	// mirror, for a bucket prefix (s3://…), keeps dir a copy of it; url
	// is the prefix's URL, which problems and imports name instead of dir.
	mirror *bucket.Mirror
	url    string
	// files are what was last seen of every file: logs, datasets and the
	// files of bundles.
	files map[string]fileState
	// synced is set once the folder's logs went through a full import:
	// the first sync of a folder imports them whole (a no-op when nothing
	// changed since), which also makes the ids follow the watcher's rules.
	synced bool
	// rebuild is a whole import of the logs that is due but put off while
	// a file whose audits are in the experiment cannot be read (held): the
	// import would leave its audits out.
	rebuild bool
	// gone is set while the folder itself is not there (deleted or moved
	// away); it is looked for again until it is back.
	gone bool
}

type fileState struct {
	size int64
	mod  time.Time
	// mode is part of what is compared: a file or folder made readable
	// again changes only its mode.
	mode fs.FileMode
	ok   bool   // imported as it is now (or skipped as not ours)
	kind string // of a log imported: model.KindPetri or model.KindInspect
	// unread: a link or a path that could not be read (entry.err), not a
	// file whose import failed.
	unread bool
	// held: a log whose audits an earlier import put in the experiment,
	// and which cannot be imported as it is now (emptied, cut short,
	// broken, unreadable). Its audits are kept, and no whole import runs
	// without it, until it can be read again or is deleted.
	held bool
}

// imported reports whether the audits of the log last seen as st are in
// the experiment.
func (st fileState) imported() bool { return (st.ok || st.held) && st.kind != "" }

// heldNote ends the problem of a held file.
const heldNote = "; the audits imported from it before are kept until it can be read again or is deleted"

// hold sets e aside as held (see fileState.held): its problem says why
// and that its audits are kept.
func (w *Watcher) hold(r *root, e entry, prev fileState, err error) {
	w.setProblem(e.path, fmt.Errorf("%w%s", err, heldNote))
	r.files[e.rel] = fileState{size: e.size, mod: e.mod, mode: e.mode, kind: prev.kind, held: true, unread: e.err != nil}
}

// New prepares a watcher of dirs; Start imports and begins watching.
func New(store *data.Store, logger *slog.Logger, dirs []string, opts Options) (*Watcher, error) {
	if opts.Settle <= 0 {
		opts.Settle = 300 * time.Millisecond
	}
	w := &Watcher{store: store, log: logger, opts: opts, problems: map[string]Problem{}, done: make(chan struct{})}
	seen := map[string]bool{}
	for _, d := range dirs {
		if bucket.IsURL(d) {
			r, err := w.bucketRoot(d)
			if err != nil {
				w.removeMirrors()
				return nil, err
			}
			w.roots = append(w.roots, r)
			continue
		}
		abs, err := filepath.Abs(d)
		if err != nil {
			return nil, err
		}
		st, err := os.Stat(abs)
		if err != nil {
			return nil, fmt.Errorf("watch: %w", err)
		}
		if !st.IsDir() {
			return nil, fmt.Errorf("watch: %s is not a folder (watch the folder that holds it)", d)
		}
		if seen[abs] {
			continue
		}
		seen[abs] = true
		w.roots = append(w.roots, &root{dir: abs, name: rootName(abs), files: map[string]fileState{}})
	}
	return w, nil
}

// rootName is the experiment a folder's logs make up: its name.
func rootName(dir string) string {
	if name := model.Slugify(filepath.Base(dir)); name != "" {
		return name
	}
	return "logs"
}

// bucketRoot is a watched bucket prefix: a temporary folder, named as the
// prefix's last part, kept a copy of it (Options.Poll, or every 2 s).
func (w *Watcher) bucketRoot(u string) (*root, error) {
	name, prefix, err := bucket.Parse(u)
	if err != nil {
		return nil, fmt.Errorf("watch: %w", err)
	}
	b, err := bucket.Open(context.Background(), u)
	if err != nil {
		return nil, fmt.Errorf("watch: %w", err)
	}
	tmp, err := os.MkdirTemp("", "auditscope-watch-")
	if err != nil {
		return nil, fmt.Errorf("watch: %w", err)
	}
	base := name
	if prefix != "" {
		base = prefix[strings.LastIndexByte(prefix, '/')+1:]
	}
	dir := filepath.Join(tmp, base)
	if err := os.Mkdir(dir, 0o755); err != nil {
		os.RemoveAll(tmp)
		return nil, fmt.Errorf("watch: %w", err)
	}
	return &root{dir: dir, name: rootName(dir), files: map[string]fileState{}, mirror: bucket.NewMirror(b, dir), url: strings.TrimSuffix(b.String(), "/")}, nil
}

// removeMirrors removes the local copies of watched bucket prefixes.
func (w *Watcher) removeMirrors() {
	for _, r := range w.roots {
		if r.mirror != nil {
			os.RemoveAll(filepath.Dir(r.dir))
		}
	}
}

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

// Start imports everything under the folders (returning once it has), then
// watches them until ctx ends.
func (w *Watcher) Start(ctx context.Context) error {
	err := w.start(ctx)
	if err != nil {
		w.removeMirrors()
		return err
	}
	go func() {
		w.loops.Wait()
		w.removeMirrors()
		close(w.done)
	}()
	return nil
}

func (w *Watcher) start(ctx context.Context) error {
	local := false
	for _, r := range w.roots {
		if r.mirror == nil {
			local = true
		} else if _, err := w.mirrorSync(ctx, r); err != nil {
			return fmt.Errorf("watch: %w", err)
		}
	}
	// Files written just now are read once they settle (for a few rounds:
	// a file written without pause is left to the watching that follows).
	for range 20 {
		again, err := w.sync(ctx, true)
		if err != nil {
			return err
		}
		if !again {
			break
		}
		time.Sleep(w.opts.Settle)
	}
	if slices.ContainsFunc(w.roots, func(r *root) bool { return r.mirror != nil }) {
		w.loops.Add(1)
		go w.bucketLoop(ctx)
	}
	if !local {
		return nil
	}
	if w.opts.Poll > 0 {
		w.loops.Add(1)
		go w.pollLoop(ctx)
		return nil
	}
	fw, err := fsnotify.NewWatcher()
	if err != nil {
		w.log.Warn("watch: change notifications unavailable, polling every 2s", "err", err)
		w.opts.Poll = 2 * time.Second
		w.loops.Add(1)
		go w.pollLoop(ctx)
		return nil
	}
	for _, r := range w.roots {
		if r.mirror != nil {
			continue
		}
		if err := addTree(fw, r.dir); err != nil {
			fw.Close()
			return fmt.Errorf("watch %s: %w", r.dir, err)
		}
	}
	w.loops.Add(1)
	go w.notifyLoop(ctx, fw)
	return nil
}

// bucketLoop follows the watched bucket prefixes: every Options.Poll (2 s
// by default) it lists each, copies what changed (by ETag and size), and
// imports as for a folder. A prefix that cannot be listed is a problem
// until it can.
func (w *Watcher) bucketLoop(ctx context.Context) {
	defer w.loops.Done()
	every := w.opts.Poll
	if every <= 0 {
		every = 2 * time.Second
	}
	t := time.NewTicker(every)
	defer t.Stop()
	for {
		select {
		case <-ctx.Done():
			return
		case <-t.C:
			for _, r := range w.roots {
				if r.mirror == nil {
					continue
				}
				changed, err := w.mirrorSync(ctx, r)
				if err != nil || !changed {
					continue
				}
				if _, err := w.syncPaths(ctx, r, nil); err != nil && ctx.Err() == nil {
					w.log.Error("watch: import", "prefix", r.url, "err", err)
				}
			}
		}
	}
}

// mirrorSync brings r's copy of its bucket prefix up to date; a prefix
// that cannot be listed or read is a problem of the prefix until it can.
func (w *Watcher) mirrorSync(ctx context.Context, r *root) (bool, error) {
	changed, skipped, err := r.mirror.Sync(ctx)
	if err != nil {
		if ctx.Err() == nil {
			w.setProblem(r.dir, err)
		}
		return changed, err
	}
	w.clearProblem(r.dir)
	for u, err := range skipped {
		w.setProblem(u, err)
	}
	return changed, nil
}

// source is what an import of p is recorded as: under a bucket prefix's
// copy, the object's URL; else "" (the path itself).
func (w *Watcher) source(p string) string {
	if u := w.shown(p); u != p {
		return u
	}
	return ""
}

// Done is closed when the watcher has stopped.
func (w *Watcher) Done() <-chan struct{} { return w.done }

// addTree watches dir and every folder under it but hidden ones. Links
// are not followed. A folder that cannot be read is left out: its parent's
// notifications tell when it changes (a chmod), and it is added then. Only
// the folder itself failing is an error.
func addTree(fw *fsnotify.Watcher, dir string) error {
	return filepath.WalkDir(dir, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			if p == dir && d == nil {
				return err
			}
			return filepath.SkipDir
		}
		if !d.IsDir() {
			return nil
		}
		if p != dir && strings.HasPrefix(d.Name(), ".") {
			return filepath.SkipDir
		}
		if err := fw.Add(p); err != nil {
			if p == dir && !errors.Is(err, fs.ErrPermission) {
				return err
			}
			return filepath.SkipDir
		}
		return nil
	})
}

func (w *Watcher) pollLoop(ctx context.Context) {
	defer w.loops.Done()
	t := time.NewTicker(w.opts.Poll)
	defer t.Stop()
	for {
		select {
		case <-ctx.Done():
			return
		case <-t.C:
			if _, err := w.sync(ctx, false); err != nil && ctx.Err() == nil {
				w.log.Error("watch: scan", "err", err)
			}
		}
	}
}

// notifyLoop waits for change notifications and syncs the folders they
// name once they have been quiet for Settle. No notification, no work.
func (w *Watcher) notifyLoop(ctx context.Context, fw *fsnotify.Watcher) {
	defer w.loops.Done()
	defer fw.Close()
	var timer *time.Timer
	var fire <-chan time.Time
	dirty := map[*root][]string{}
	// A watched folder that is removed loses its notifications: it is
	// looked for every second until it is back, then watched and scanned
	// again.
	var recheck *time.Ticker
	var rechecks <-chan time.Time
	defer func() {
		if recheck != nil {
			recheck.Stop()
		}
	}()
	for {
		select {
		case <-ctx.Done():
			return
		case <-rechecks:
			missing := false
			for _, r := range w.roots {
				w.syncMu.Lock()
				gone := r.gone // (set under syncMu)
				w.syncMu.Unlock()
				if !gone {
					continue
				}
				if st, err := os.Lstat(r.dir); err != nil || !st.IsDir() {
					missing = true
					continue
				}
				if err := addTree(fw, r.dir); err != nil {
					missing = true
					continue
				}
				if _, err := w.syncPaths(ctx, r, nil); err != nil && ctx.Err() == nil {
					w.log.Error("watch: import", "dir", r.dir, "err", err)
				}
			}
			if !missing {
				recheck.Stop()
				recheck, rechecks = nil, nil
			}
		case ev, ok := <-fw.Events:
			if !ok {
				return
			}
			if r := w.rootOf(ev.Name); r != nil && ev.Name == r.dir && (ev.Has(fsnotify.Remove) || ev.Has(fsnotify.Rename)) {
				w.syncMu.Lock()
				w.setGone(r, true)
				w.syncMu.Unlock()
				if recheck == nil {
					recheck = time.NewTicker(time.Second)
					rechecks = recheck.C
				}
				continue
			}
			// A new folder, or one made readable: watched from now on
			// (Lstat: a link to a folder is not).
			if ev.Has(fsnotify.Create) || ev.Has(fsnotify.Chmod) {
				if st, err := os.Lstat(ev.Name); err == nil && st.IsDir() {
					addTree(fw, ev.Name)
				}
			}
			if r := w.rootOf(ev.Name); r != nil && !slices.Contains(dirty[r], ev.Name) {
				dirty[r] = append(dirty[r], ev.Name)
			}
			if timer == nil {
				timer = time.NewTimer(w.opts.Settle)
			} else {
				timer.Reset(w.opts.Settle)
			}
			fire = timer.C
		case err, ok := <-fw.Errors:
			if !ok {
				return
			}
			w.log.Warn("watch: notifications", "err", err)
		case <-fire:
			fire = nil
			later := map[*root][]string{}
			for r, paths := range dirty {
				again, err := w.syncPaths(ctx, r, paths)
				if err != nil && ctx.Err() == nil {
					w.log.Error("watch: import", "dir", r.dir, "err", err)
				}
				if again {
					later[r] = paths // still being written: look again
				}
			}
			dirty = later
			if len(dirty) > 0 {
				timer.Reset(w.opts.Settle)
				fire = timer.C
			}
		}
	}
}

func (w *Watcher) rootOf(path string) *root {
	for _, r := range w.roots {
		if path == r.dir || strings.HasPrefix(path, r.dir+string(filepath.Separator)) {
			return r
		}
	}
	return nil
}

// Sync scans every folder and imports what changed since the last scan
// (of a bucket prefix, what changed in its local copy since the last
// scan: the copy is kept by the watcher's own loop).
func (w *Watcher) Sync(ctx context.Context) error {
	_, err := w.sync(ctx, true)
	return err
}

// sync is Sync, reporting whether a file was left because it is still
// being written; bucket prefixes' copies are scanned only with mirrors.
func (w *Watcher) sync(ctx context.Context, mirrors bool) (again bool, err error) {
	// A folder that fails does not keep the others from being scanned.
	var errs []error
	for _, r := range w.roots {
		if r.mirror != nil && !mirrors {
			continue
		}
		a, err := w.syncPaths(ctx, r, nil)
		if err != nil {
			errs = append(errs, fmt.Errorf("%s: %w", r.dir, err))
		}
		again = again || a
	}
	return again, errors.Join(errs...)
}

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
		if !info.Mode().IsRegular() || seen[rel] {
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

// syncPaths imports what changed under r: every file when paths is nil,
// else those paths. It reports whether a file was left for later because
// it is still being written.
func (w *Watcher) syncPaths(ctx context.Context, r *root, paths []string) (again bool, err error) {
	w.syncMu.Lock()
	defer w.syncMu.Unlock()
	var list []entry
	var gone []string
	if paths == nil {
		list, err = r.scan()
		if errors.Is(err, fs.ErrNotExist) && r.mirror == nil {
			if _, serr := os.Lstat(r.dir); errors.Is(serr, fs.ErrNotExist) {
				w.setGone(r, true)
				return false, nil
			}
		}
	} else {
		list, gone, err = r.entries(paths)
	}
	if err != nil {
		return false, err
	}
	if paths == nil {
		w.setGone(r, false)
	}
	// Problems of paths gone, or of links and folders that are no longer
	// links or unreadable, are cleared; those still there are kept.
	under := paths
	if paths == nil {
		under = []string{r.dir}
	}
	w.clearStale(r, list, under, gone)
	now := time.Now()
	bundles := map[string]bool{}
	var logFiles []entry
	rebuild := false
	for _, e := range list {
		st, seen := r.files[e.rel]
		if seen && st.size == e.size && st.mod.Equal(e.mod) && st.mode == e.mode && st.unread == (e.err != nil) {
			continue // as last seen: imported, or failed and waiting for a change
		}
		if e.err != nil {
			if seen && st.imported() {
				w.hold(r, e, st, e.err)
				continue
			}
			w.setProblem(e.path, e.err)
			r.files[e.rel] = fileState{size: e.size, mod: e.mod, mode: e.mode, unread: true}
			continue
		}
		// (A bucket prefix's copy holds whole objects only.)
		if r.mirror == nil && now.Sub(e.mod) < w.opts.Settle {
			again = true // still being written
			continue
		}
		state := fileState{size: e.size, mod: e.mod, mode: e.mode}
		if e.bundle != "" {
			bundles[e.bundle] = true
			r.files[e.rel] = state
			continue
		}
		if !importable(e.rel) {
			state.ok = true // not ours: READMEs, scripts, notes
			r.files[e.rel] = state
			continue
		}
		// Checked again just before it is read: a link put in its place
		// since the scan is not followed.
		kind, err := "", logs.CheckWithin(r.dir, []string{e.rel})
		if err == nil {
			kind, err = data.DetectKind(e.path)
		}
		if err != nil {
			if seen && st.imported() {
				w.hold(r, e, st, err)
				continue
			}
			w.setProblem(e.path, err)
			r.files[e.rel] = state
			continue
		}
		switch kind {
		case model.KindAnnotatedPairs, model.KindPreferenceCSV:
			opts := w.opts.Import
			opts.Replace, opts.Source = true, w.source(e.path)
			if res, err := w.store.Import(ctx, e.path, opts); err != nil {
				w.setProblem(e.path, err)
			} else {
				w.clearProblem(e.path)
				state.ok = true
				w.log.Info("watch: imported", "file", e.path, "size", e.size, "result", summary(res))
			}
			r.files[e.rel] = state
		case model.KindPetri, model.KindInspect:
			// An imported file that changed other than by growing (a
			// transcript rewritten, a .json log, an .eval that shrank: a new
			// run in its place) makes the experiment be imported whole.
			// A held file readable again is imported whole with the rest.
			if seen && st.imported() &&
				(st.held || kind == model.KindPetri || !strings.EqualFold(filepath.Ext(e.rel), ".eval") || e.size < st.size) {
				rebuild = true
			}
			e.kind = kind
			e.imported = seen && st.imported()
			logFiles = append(logFiles, e)
		default:
			state.ok = true // not ours
			r.files[e.rel] = state
		}
	}
	for b := range bundles {
		dir := filepath.Join(r.dir, filepath.FromSlash(b))
		opts := w.opts.Import
		opts.Replace, opts.Source = true, w.source(dir)
		if res, err := w.store.Import(ctx, dir, opts); err != nil {
			w.setProblem(dir, err)
		} else {
			w.clearProblem(dir)
			w.log.Info("watch: imported", "bundle", dir, "result", summary(res))
		}
	}
	// A whole import put off for a held file runs once none is held (it
	// was read again, or deleted).
	if len(logFiles) > 0 || r.rebuild {
		if err := w.importLogs(ctx, r, logFiles, rebuild || r.rebuild); err != nil {
			return again, err
		}
	}
	return again, nil
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

// summary is what an import did, for the log: each result's line, which
// says "unchanged" when the same content was imported before (a file seen
// twice while it was written is imported once).
func summary(res []model.ImportResult) string {
	lines := make([]string, len(res))
	for i, r := range res {
		lines[i] = r.String()
	}
	return strings.Join(lines, "; ")
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
		if !keep[p] && (within(p, gone) || within(p, under) && !w.exists(p)) {
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

// importLogs brings new and changed transcripts and logs into r's
// experiment. New files are appended; the experiment is imported whole
// from every log file of the folder when it does not exist yet, on the
// folder's first sync, and when an imported file changed (rebuild).
//
// A whole import never leaves out a file whose audits are in the
// experiment: it would delete them. While such a file cannot be read
// (held), the whole import is put off (r.rebuild) and the new files are
// appended; one that fails during the import is held, and the same
// happens. A new file that fails is set aside as a problem and the others
// go ahead.
func (w *Watcher) importLogs(ctx context.Context, r *root, batch []entry, rebuild bool) error {
	_, err := w.store.Experiment(ctx, r.name)
	exists := err == nil
	if err != nil && !errors.Is(err, data.ErrNotFound) {
		return err
	}
	if exists && r.synced && !rebuild {
		return w.appendLogs(ctx, r, batch)
	}
	// The whole set: the batch and every log file imported before that is
	// still there.
	inBatch := map[string]bool{}
	for _, e := range batch {
		inBatch[e.rel] = true
	}
	var whole []entry
	held := false
	for rel, st := range r.files {
		if !st.imported() || inBatch[rel] {
			continue
		}
		p := filepath.Join(r.dir, filepath.FromSlash(rel))
		if _, err := os.Stat(p); errors.Is(err, fs.ErrNotExist) {
			delete(r.files, rel) // deleted: what it gave stays until a whole import
			continue
		} else if err != nil && !st.held {
			w.hold(r, entry{rel: rel, path: p, size: st.size, mod: st.mod, mode: st.mode, err: unreadable(err)}, st, unreadable(err))
		}
		if r.files[rel].held {
			held = true
			continue
		}
		whole = append(whole, entry{rel: rel, path: p, size: st.size, mod: st.mod, mode: st.mode, kind: st.kind, imported: true})
	}
	if held && exists {
		return w.putOff(ctx, r, batch)
	}
	whole = append(whole, batch...)
	for len(whole) > 0 {
		opts := w.opts.Import
		opts.Name, opts.PrefixLogs, opts.Replace, opts.Source = r.name, true, true, w.source(r.dir)
		opts.Files = make([]string, len(whole))
		for i, e := range whole {
			opts.Files[i] = e.rel
		}
		slices.Sort(opts.Files)
		_, err := w.store.ImportPetri(ctx, r.dir, opts)
		if err == nil {
			for _, e := range whole {
				r.files[e.rel] = fileState{size: e.size, mod: e.mod, mode: e.mode, ok: true, kind: e.kind}
				w.clearProblem(e.path)
			}
			r.synced, r.rebuild = true, false
			w.log.Info("watch: imported", "experiment", r.name, "files", len(whole))
			return nil
		}
		bad, ok := culprit(err, whole)
		if !ok {
			return w.setAside(r, whole, err)
		}
		e := whole[bad]
		if exists && e.imported {
			// Give the whole import up rather than lose the file's audits;
			// the new files are appended meanwhile.
			w.hold(r, e, fileState{kind: e.kind}, err)
			return w.putOff(ctx, r, slices.DeleteFunc(slices.Clone(batch), func(b entry) bool { return b.rel == e.rel }))
		}
		w.setProblem(e.path, err)
		r.files[e.rel] = fileState{size: e.size, mod: e.mod, mode: e.mode}
		whole = slices.Delete(whole, bad, bad+1)
	}
	return nil
}

// putOff puts r's whole import off until no file is held: the files of
// batch imported before are recorded as seen (their changes come in with
// the whole import), the new ones are appended.
func (w *Watcher) putOff(ctx context.Context, r *root, batch []entry) error {
	r.synced, r.rebuild = true, true
	var fresh []entry
	for _, e := range batch {
		if e.imported {
			r.files[e.rel] = fileState{size: e.size, mod: e.mod, mode: e.mode, ok: true, kind: e.kind}
			continue
		}
		fresh = append(fresh, e)
	}
	w.log.Info("watch: whole import put off while a file cannot be read", "experiment", r.name)
	return w.appendLogs(ctx, r, fresh)
}

// appendLogs appends files to r's experiment, setting aside as a problem
// each file an append cannot read, and appending the rest.
func (w *Watcher) appendLogs(ctx context.Context, r *root, left []entry) error {
	for len(left) > 0 {
		rels := make([]string, len(left))
		for i, e := range left {
			rels[i] = e.rel
		}
		opts := w.opts.Import
		opts.PrefixLogs, opts.Source = true, w.source(r.dir)
		_, err := w.store.AppendLogs(ctx, r.name, r.dir, rels, opts)
		if err == nil {
			for _, e := range left {
				r.files[e.rel] = fileState{size: e.size, mod: e.mod, mode: e.mode, ok: true, kind: e.kind}
				w.clearProblem(e.path)
			}
			w.log.Info("watch: appended", "experiment", r.name, "files", len(left))
			return nil
		}
		bad, ok := culprit(err, left)
		if !ok {
			return w.setAside(r, left, err)
		}
		if !r.rebuild && w.lostFile(r) {
			// A file whose audits are in the experiment is gone: a renamed
			// or moved transcript, whose audit ids the new name cannot
			// take while the old one's audits are there. The experiment
			// is imported whole from the files as they are.
			return w.importLogs(ctx, r, left, true)
		}
		w.setProblem(left[bad].path, err)
		r.files[left[bad].rel] = fileState{size: left[bad].size, mod: left[bad].mod, mode: left[bad].mode}
		left = slices.Delete(left, bad, bad+1)
	}
	return nil
}

// lostFile reports whether a log whose audits are in r's experiment is no
// longer there.
func (w *Watcher) lostFile(r *root) bool {
	for rel, st := range r.files {
		if st.imported() {
			if _, err := os.Lstat(filepath.Join(r.dir, filepath.FromSlash(rel))); errors.Is(err, fs.ErrNotExist) {
				return true
			}
		}
	}
	return false
}

// culprit finds the file an import error names.
func culprit(err error, files []entry) (int, bool) {
	var ie *model.InputError
	if !errors.As(err, &ie) {
		return 0, false
	}
	for i, e := range files {
		if ie.File == e.path || strings.HasPrefix(ie.File, e.path+":") {
			return i, true
		}
	}
	return 0, false
}

// setAside records an error no single file explains: an input error for
// every file (each is tried again when it changes), any other error
// returned for the log.
func (w *Watcher) setAside(r *root, files []entry, err error) error {
	if !model.IsInputError(err) {
		return err
	}
	for _, e := range files {
		w.setProblem(e.path, err)
		r.files[e.rel] = fileState{size: e.size, mod: e.mod, mode: e.mode}
	}
	return nil
}
