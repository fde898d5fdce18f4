package watch

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"time"

	"github.com/auditscope/auditscope/data"
	"github.com/auditscope/auditscope/data/model"
)

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

// importLogs brings new and changed transcripts and logs into r's
// experiment. New files are appended; the experiment is imported whole
// from every log file of the folder when it does not exist yet, on the
// folder's first sync, and when an imported file changed (rebuild).
//
// A whole import never leaves out a file whose audits are in the
// experiment: it would delete them. While such a file cannot be read
// (held), or any path that might be one under another name cannot be (see
// wholeSet), the whole import is put off (r.rebuild) and the new files are
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
	whole, blocked, err := w.wholeSet(r, batch)
	if err != nil {
		return err
	}
	if blocked && exists {
		return w.putOff(ctx, r, batch)
	}
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
		r.files[left[bad].rel] = fileState{size: left[bad].size, mod: left[bad].mod, mode: left[bad].mode, retry: true}
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

// errMayHold ends the problem of a path that cannot be read while a whole
// import is due: it may be a file whose audits are in the experiment,
// renamed (a rename keeps no trace of the old name), so the import waits.
const errMayHold = "; the folder's re-import waits until it can be read or is deleted (it may be an imported file renamed, whose audits the re-import would drop)"

// wholeSet lists the logs a whole import of r's folder takes: the folder
// as it is now (scanned again), not the files last seen, so a log that
// failed to append while the import was put off (a renamed transcript,
// whose audit ids its old name held) comes in with it. blocked reports a
// path that cannot be read and may hold audits in the experiment: a held
// file, or any unreadable file or folder under the folder, since a rename
// of an imported file cannot be told from a new one.
func (w *Watcher) wholeSet(r *root, batch []entry) (whole []entry, blocked bool, err error) {
	list, err := r.scan()
	if err != nil {
		return nil, false, err
	}
	inBatch := map[string]entry{}
	for _, e := range batch {
		inBatch[e.rel] = e
	}
	present := map[string]bool{}
	for _, e := range list {
		present[e.rel] = true
		st := r.files[e.rel]
		if b, ok := inBatch[e.rel]; ok {
			whole = append(whole, b)
			continue
		}
		if e.bundle != "" || (!importable(e.rel) && e.err == nil) {
			continue
		}
		if e.err != nil {
			if e.err == errLink {
				continue // never read, whatever it was before
			}
			blocked = true
			if st.imported() && !st.held {
				w.hold(r, e, st, e.err)
			} else if !st.held {
				w.setProblem(e.path, fmt.Errorf("%w%s", e.err, errMayHold))
			}
			continue
		}
		if st.held {
			blocked = true // unchanged since it failed
			continue
		}
		if st.imported() {
			// As it is now, even if it changed unseen: leaving it out
			// would drop its audits.
			e.kind, e.imported = st.kind, true
			whole = append(whole, e)
			continue
		}
		if st.ok || time.Since(e.mod) < w.opts.Settle && r.mirror == nil {
			continue // not a log, or still being written: it comes later
		}
		kind, err := data.DetectKind(e.path)
		switch {
		case err != nil && !model.IsInputError(err):
			blocked = true
			w.setProblem(e.path, fmt.Errorf("%w%s", unreadable(err), errMayHold))
		case !st.retry && st.size == e.size && st.mod.Equal(e.mod) && st.mode == e.mode:
			// Failed on its own as it is: tried again when it changes.
		case kind == model.KindPetri || kind == model.KindInspect:
			e.kind, e.imported = kind, st.imported()
			whole = append(whole, e)
		}
	}
	// The last-seen state of logs no longer there goes: what they gave
	// goes with this import.
	for rel, st := range r.files {
		if !present[rel] && st.kind != "" {
			delete(r.files, rel)
		}
	}
	return whole, blocked, nil
}
