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
	// retry: a log whose append failed, which may be only because the
	// experiment holds its audit ids (a renamed transcript): the next
	// whole import tries it again.
	retry bool
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

// Done is closed when the watcher has stopped.
func (w *Watcher) Done() <-chan struct{} { return w.done }
