package watch

import (
	"context"
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"time"

	"github.com/fsnotify/fsnotify"
)

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
	arm := func() { // (re)starts the settle timer
		if timer == nil {
			timer = time.NewTimer(w.opts.Settle)
		} else {
			timer.Reset(w.opts.Settle)
		}
		fire = timer.C
	}
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
			if !w.recheckGone(ctx, fw, dirty, arm) {
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
			arm()
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

// recheckGone looks for the watched folders that were removed: one that
// is back is watched and scanned again, and marked dirty (arm starts the
// settle timer) when a file in it is still settling. It reports whether a
// folder is still missing.
func (w *Watcher) recheckGone(ctx context.Context, fw *fsnotify.Watcher, dirty map[*root][]string, arm func()) (missing bool) {
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
		again, err := w.syncPaths(ctx, r, nil)
		if err != nil && ctx.Err() == nil {
			w.log.Error("watch: import", "dir", r.dir, "err", err)
		}
		if again {
			// A file written just after the folder came back is still
			// settling, and no notification will name it: the folder is
			// looked at again once it settles.
			dirty[r] = append(dirty[r], r.dir)
			arm()
		}
	}
	return missing
}

func (w *Watcher) rootOf(path string) *root {
	for _, r := range w.roots {
		if path == r.dir || strings.HasPrefix(path, r.dir+string(filepath.Separator)) {
			return r
		}
	}
	return nil
}
