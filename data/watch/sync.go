package watch

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"time"

	"github.com/auditscope/auditscope/data"
	"github.com/auditscope/auditscope/data/logs"
	"github.com/auditscope/auditscope/data/model"
)

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

// syncPaths imports what changed under r: every file when paths is nil,
// else those paths. It reports whether a file was left for later because
// it is still being written.
func (w *Watcher) syncPaths(ctx context.Context, r *root, paths []string) (again bool, err error) {
	w.syncMu.Lock()
	defer w.syncMu.Unlock()
	list, gone, ok, err := w.listPaths(r, paths)
	if !ok {
		return false, err
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
			state.ok = w.importFile(ctx, e)
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
	w.importBundles(ctx, r, bundles)
	// A whole import put off for a held file runs once none is held (it
	// was read again, or deleted).
	if len(logFiles) > 0 || r.rebuild {
		if err := w.importLogs(ctx, r, logFiles, rebuild || r.rebuild); err != nil {
			return again, err
		}
	}
	return again, nil
}

// listPaths lists what syncPaths looks at under r: every file when paths
// is nil, else those paths, with the ones no longer there (gone). A scan
// marks r's folder as gone or there; ok is false when it is gone, or with
// an error.
func (w *Watcher) listPaths(r *root, paths []string) (list []entry, gone []string, ok bool, err error) {
	if paths == nil {
		list, err = r.scan()
		if errors.Is(err, fs.ErrNotExist) && r.mirror == nil {
			if _, serr := os.Lstat(r.dir); errors.Is(serr, fs.ErrNotExist) {
				w.setGone(r, true)
				return nil, nil, false, nil
			}
		}
	} else {
		list, gone, err = r.entries(paths)
	}
	if err != nil {
		return nil, nil, false, err
	}
	if paths == nil {
		w.setGone(r, false)
	}
	return list, gone, true, nil
}

// importFile imports a dataset file (AnnotatedPairs or a preference CSV)
// in place of what an earlier import of it stored, and reports whether it
// was imported; a failure is the file's problem until it changes.
func (w *Watcher) importFile(ctx context.Context, e entry) bool {
	opts := w.opts.Import
	opts.Replace, opts.Source = true, w.source(e.path)
	res, err := w.store.Import(ctx, e.path, opts)
	if err != nil {
		w.setProblem(e.path, err)
		return false
	}
	w.clearProblem(e.path)
	w.log.Info("watch: imported", "file", e.path, "size", e.size, "result", summary(res))
	return true
}

// importBundles imports each bundle folder that changed under r (bundles,
// by their paths relative to r.dir) in place of what an earlier import of
// it stored.
func (w *Watcher) importBundles(ctx context.Context, r *root, bundles map[string]bool) {
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
