package lake

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/auditscope/auditscope/data/bucket"
	"github.com/auditscope/auditscope/data/model"
)

// Reader is what a server reading a lake remembers between refreshes: the
// manifest it serves and its generations, the files already checked, and
// the newest manifest it could not serve, with why. The store serves the
// generations (views over their files) and asks the Reader what changed.
type Reader struct {
	mu       sync.Mutex
	src      source
	manifest []byte            // the manifest's bytes, to tell a change
	gens     map[string]string // family + "\x00" + name -> generation
	// failed is a manifest that could not be served, and failedErr why.
	failed    []byte
	failedErr error
	// parts are the files served, by family and name (Done), which serve
	// on for a name whose newer generation has a bad file (update).
	parts map[string][]tablePart
	// filesChecked is when the served files of a folder were last looked
	// at for changes (local.changed).
	filesChecked time.Time
	problem      atomic.Pointer[model.InputError] // why the newest manifest is not served
	// served is the file refused in the manifest served (a name serves its
	// last good generation, or nothing), nil when it was served whole.
	served   *model.InputError
	problems atomic.Int64 // changes to problem, for caches of the pages that show it
}

// NewReader reads the lake at dir, which must be absolute.
func NewReader(dir string) *Reader {
	return newReader(&local{dir: dir, checked: map[string]checkedFile{}, refused: map[string]os.FileInfo{}, holds: map[string]*held{}})
}

func newReader(src source) *Reader { return &Reader{src: src, gens: map[string]string{}} }

// Where is the lake's folder or URL.
func (l *Reader) Where() string { return l.src.String() }

// A source is where a Reader reads a lake: a local folder, or a bucket
// prefix whose files it copies into a local cache.
type source interface {
	String() string
	// manifestName names the manifest in messages.
	manifestName() string
	readManifest(ctx context.Context) ([]byte, error)
	// file is the local path to serve the data file rel (FileRel) from,
	// after checking it against want, the size and checksum the manifest
	// records (nil when the manifest records none: a lake written before
	// they were). An error is an *model.InputError naming the file.
	file(ctx context.Context, rel string, want *File) (string, error)
	// prepare is told, before any file is asked for, every file a manifest
	// names; served, after a manifest is served, the paths it serves from.
	prepare(want map[string]File) error
	served(paths []string)
	// intact reports whether a path file returned still serves the bytes
	// checked then, so a name whose new file is refused serves it on.
	intact(path string) bool
	close()
}

// tablePart is a served Part and its table.
type tablePart struct {
	table string
	part  Part
}

// Part is one dataset's or experiment's generation of a table: its file.
type Part struct {
	Name, Gen, File string
}

// An Update is a manifest to serve: for each table the files of its
// generations, and the names whose generation changed or went away.
type Update struct {
	Parts   map[string][]Part // by table name
	Changed []string
	b       []byte
	gens    map[string]string
	parts   map[string][]tablePart // family + "\x00" + name -> its parts
	// problem is the first file refused (its name serves its last good
	// generation, or nothing), nil when every file was good.
	problem *model.InputError
}

// Next reads the manifest and returns what to serve, nil when it is what is
// served already, when it failed before unchanged (its error again), or
// when another refresh is running (requests that come meanwhile serve the
// state there is rather than queue behind it). A non-nil Update must be
// ended with Done. A manifest or file that cannot be read or does not match
// the manifest's checksum is an error naming the file, and the last good
// state serves on.
func (l *Reader) Next(ctx context.Context) (*Update, error) {
	if !l.mu.TryLock() {
		return nil, nil
	}
	u, err := l.next(ctx)
	if u == nil {
		l.mu.Unlock()
	}
	return u, err
}

func (l *Reader) next(ctx context.Context) (*Update, error) {
	p := l.src.manifestName()
	b, err := l.src.readManifest(ctx)
	if err != nil {
		l.setProblem(&model.InputError{File: p, Offset: -1, Msg: "cannot be read: " + errText(err)})
		return nil, fmt.Errorf("lake %s: %w", l.src, err)
	}
	if bytes.Equal(b, l.manifest) {
		// A folder's files served may have been replaced since: looked at
		// every second at most, and the manifest served again if so.
		lc, isLocal := l.src.(*local)
		if !isLocal || time.Since(l.filesChecked) < time.Second {
			if l.served == nil {
				l.setProblem(nil) // read again after a failed read: as served
			}
			return nil, nil
		}
		l.filesChecked = time.Now()
		if !lc.changed() {
			if l.served == nil {
				l.setProblem(nil)
			}
			return nil, nil
		}
	}
	// A manifest that failed is tried again only when it changes.
	if l.failedErr != nil && bytes.Equal(b, l.failed) {
		return nil, l.failedErr
	}
	u, err := l.update(ctx, p, b)
	if err != nil {
		return nil, l.fail(p, b, err)
	}
	return u, nil
}

// update checks the manifest b (read from p) and the files it names: a
// file cut short, changed or damaged after it was written is refused,
// naming it, before any of them is served, and the last good generation
// serves on. A manifest without checksums (a lake written before they were
// recorded) is served unchecked from a folder.
func (l *Reader) update(ctx context.Context, p string, b []byte) (*Update, error) {
	m, err := ParseManifest(p, b)
	if err != nil {
		return nil, err
	}
	u := &Update{Parts: map[string][]Part{}, b: b, gens: map[string]string{}}
	for _, fam := range []string{"dataset", "experiment"} {
		for _, name := range m.Names(fam) {
			gen := m.Gen(fam, name)
			if !model.ValidName(name) || !isHexGen(gen) {
				return nil, &model.InputError{File: p, Offset: -1, Msg: fmt.Sprintf("%s %q: generation %q: want a URL-safe name and 16 hex digits", fam, name, gen)}
			}
			u.gens[fam+"\x00"+name] = gen
		}
	}
	want, err := l.wantFiles(p, m)
	if err != nil {
		return nil, err
	}
	if err := l.src.prepare(want); err != nil {
		return nil, err
	}
	// A name whose file is refused (cut short, changed, damaged) serves its
	// last good generation when that is another file, else nothing, and
	// the others are served: one experiment's bad file stopped a server
	// from starting at all. A file that cannot be fetched now (transient)
	// fails the whole update, to be tried again.
	u.parts = map[string][]tablePart{}
	bad := map[string]bool{}
	for _, t := range Tables {
		for _, name := range m.Names(t.Family) {
			k := t.Family + "\x00" + name
			if bad[k] {
				continue
			}
			gen := m.Gen(t.Family, name)
			rel := FileRel(t.Name, t.Family, name, gen)
			if _, ok := want[rel]; !ok && t.Since > 0 {
				continue // none in this generation (above): read as empty
			}
			var w *File
			if len(m.Files) > 0 {
				f := want[rel]
				w = &f
			}
			f, err := l.src.file(ctx, rel, w)
			var ie *model.InputError
			var tr *transient
			if err != nil && (errors.As(err, &tr) || !errors.As(err, &ie)) {
				return nil, err
			}
			if err != nil {
				bad[k] = true
				if u.problem == nil {
					u.problem = ie
				}
				continue
			}
			u.parts[k] = append(u.parts[k], tablePart{t.Name, Part{Name: name, Gen: gen, File: f}})
		}
	}
	for k := range bad {
		delete(u.parts, k)
		delete(u.gens, k)
		if old, ok := l.parts[k]; ok && l.gens[k] != m.Gen(k[:strings.IndexByte(k, 0)], k[strings.IndexByte(k, 0)+1:]) {
			u.parts[k], u.gens[k] = old, l.gens[k]
		} else if ok && l.intact(old) {
			// The same generation's file changed after it was adopted:
			// the bytes checked then are held, and serve on.
			u.parts[k], u.gens[k] = old, l.gens[k]
		}
	}
	for _, ps := range u.parts {
		for _, tp := range ps {
			u.Parts[tp.table] = append(u.Parts[tp.table], tp.part)
		}
	}
	for k, g := range u.gens {
		if l.gens[k] != g {
			u.Changed = append(u.Changed, k[strings.IndexByte(k, 0)+1:])
		}
	}
	for k := range l.gens {
		if _, ok := u.gens[k]; !ok {
			u.Changed = append(u.Changed, k[strings.IndexByte(k, 0)+1:])
		}
	}
	return u, nil
}

// wantFiles are the files manifest m (read from p) names, with the
// checksums it records: refused when one every lake has is not recorded,
// or a checksum is not one.
func (l *Reader) wantFiles(p string, m Manifest) (map[string]File, error) {
	want := map[string]File{}
	for _, t := range Tables {
		for _, name := range m.Names(t.Family) {
			rel := FileRel(t.Name, t.Family, name, m.Gen(t.Family, name))
			f, ok := m.Files[rel]
			if !ok && t.Since > 0 {
				continue // a generation written before the table was: it has none
			}
			if !ok && len(m.Files) > 0 {
				return nil, &model.InputError{File: l.src.String() + "/" + rel, Offset: -1, Msg: "the manifest records no checksum for this file"}
			}
			// A bucket's cache names its copies by the checksum: one that is
			// not 64 hex digits would name a path anywhere.
			if ok && (!isHexSHA(f.SHA256) || f.Size < 0) {
				return nil, &model.InputError{File: p, Offset: -1, Msg: fmt.Sprintf("files[%q]: want a size and a SHA-256 of 64 lower-case hex digits", rel)}
			}
			want[rel] = f
		}
	}
	return want, nil
}

// intact reports whether every file of parts still serves what was
// checked.
func (l *Reader) intact(parts []tablePart) bool {
	for _, p := range parts {
		if !l.src.intact(p.part.File) {
			return false
		}
	}
	return true
}

// Close lets go of what the Reader holds: its files, its cache folder.
func (l *Reader) Close() {
	l.mu.Lock()
	defer l.mu.Unlock()
	l.src.close()
}

// Done ends an update: err is nil when the store serves it now, else why
// it could not, which is returned (the last good state serves on).
func (l *Reader) Done(u *Update, err error) error {
	defer l.mu.Unlock()
	if err != nil {
		return l.fail(l.src.manifestName(), u.b, err)
	}
	var paths []string
	for _, parts := range u.Parts {
		for _, p := range parts {
			paths = append(paths, p.File)
		}
	}
	l.src.served(paths)
	l.manifest, l.gens, l.parts = u.b, u.gens, u.parts
	l.failed, l.failedErr = nil, nil
	l.served = u.problem
	l.setProblem(u.problem)
	return nil
}

// fail records the manifest b (at p) as one that could not be served.
func (l *Reader) fail(p string, b []byte, err error) error {
	// A file that could not be fetched (the bucket out of reach) is tried
	// again at the next look, though the manifest is the same.
	var tr *transient
	if !errors.As(err, &tr) {
		l.failed, l.failedErr = b, err
	}
	var ie *model.InputError
	if !errors.As(err, &ie) {
		ie = &model.InputError{File: p, Offset: -1, Msg: err.Error()}
	}
	l.setProblem(ie)
	return err
}

// Problem is why the lake's newest manifest is not served, nil when it is.
// It takes no lock, so a page that shows it does not wait for a refresh
// reading files.
func (l *Reader) Problem() *model.InputError { return l.problem.Load() }

// ProblemVersion counts the changes to Problem, for caches of the pages
// that show it.
func (l *Reader) ProblemVersion() int64 { return l.problems.Load() }

// setProblem records why the newest manifest is not served (nil: it is).
func (l *Reader) setProblem(ie *model.InputError) {
	old := l.problem.Swap(ie)
	if (old == nil) != (ie == nil) || old != nil && old.Error() != ie.Error() {
		l.problems.Add(1)
	}
}

// local is a lake in a local folder, served where it is.
type local struct {
	dir string
	// checked are the files whose size and checksum matched the manifest,
	// by path, with what they matched and the file as it was then: files
	// are written once, so each is read through once, when a generation
	// naming it is first adopted, and again only if it changes (changed).
	checked map[string]checkedFile
	// refused are the files that did not match, by path, with the file as
	// it was (nil: missing): one put right is tried again (changed).
	refused map[string]os.FileInfo
	// holds are the files held open (held.go), by the path they serve.
	holds map[string]*held
	// The manifest as last read, and its file then (readManifest).
	manifestStat os.FileInfo
	manifestBody []byte
}

// checkedFile is a data file whose checksum matched, its file then, and
// the path it is served by (its held descriptor's, or its own).
type checkedFile struct {
	want  File
	st    os.FileInfo
	serve string
}

func (s *local) String() string       { return s.dir }
func (s *local) manifestName() string { return filepath.Join(s.dir, "manifest.json") }

// readManifest reads the manifest, bounded by maxManifest; one unchanged
// since the last read (its size, time and file the same) is not read
// again: it was read on every request.
func (s *local) readManifest(context.Context) ([]byte, error) {
	f, err := os.Open(s.manifestName())
	if err != nil {
		return nil, err
	}
	defer f.Close()
	st, err := f.Stat()
	if err != nil {
		return nil, err
	}
	if s.manifestStat != nil && os.SameFile(st, s.manifestStat) && st.Size() == s.manifestStat.Size() && st.ModTime().Equal(s.manifestStat.ModTime()) {
		return s.manifestBody, nil
	}
	if st.Size() > maxManifest {
		return nil, fmt.Errorf("%d bytes, more than a manifest's %d", st.Size(), maxManifest)
	}
	b, err := io.ReadAll(io.LimitReader(f, maxManifest+1))
	if err != nil {
		return nil, err
	}
	if len(b) > maxManifest {
		return nil, fmt.Errorf("more than a manifest's %d bytes", maxManifest)
	}
	s.manifestStat, s.manifestBody = st, b
	return b, nil
}

func (s *local) prepare(map[string]File) error { return nil }

// served closes the held files no refresh has served for heldGrace.
func (s *local) served(paths []string) {
	now := time.Now()
	for p, h := range s.holds {
		switch {
		case slices.Contains(paths, p):
			h.unserved = time.Time{}
		case h.unserved.IsZero():
			h.unserved = now
		case now.Sub(h.unserved) > heldGrace:
			h.f.Close()
			delete(s.holds, p)
		}
	}
}

func (s *local) intact(path string) bool {
	h, ok := s.holds[path]
	return ok && h.intact()
}

func (s *local) close() {
	for p, h := range s.holds {
		h.f.Close()
		delete(s.holds, p)
	}
}

func (s *local) file(_ context.Context, rel string, want *File) (string, error) {
	p := filepath.Join(s.dir, filepath.FromSlash(rel))
	if c, ok := s.checked[rel]; want != nil && ok && c.want == *want {
		return c.serve, nil
	}
	path, st, err := s.check(p, want)
	if err != nil {
		st, _ := os.Stat(p)
		s.refused[rel] = st
		return "", err
	}
	delete(s.refused, rel)
	if want != nil {
		s.checked[rel] = checkedFile{want: *want, st: st, serve: path}
	}
	return path, nil
}

// check checks the file p against want (nil: not at all) and returns the
// path to serve it by (a held descriptor's where files are held) and the
// file as checked.
func (s *local) check(p string, want *File) (string, os.FileInfo, error) {
	st, err := os.Stat(p)
	if err != nil {
		return "", nil, &model.InputError{File: p, Offset: -1, Msg: "missing: the manifest names this generation, but its file is not there (a write not finished, or files removed)"}
	}
	if want == nil {
		return p, st, nil
	}
	if st.Size() != want.Size {
		return "", nil, &model.InputError{File: p, Offset: -1, Msg: sizeMismatch(st.Size(), want.Size)}
	}
	if holdFiles {
		h, msg, _ := openChecked(p, *want)
		if h == nil {
			return "", nil, &model.InputError{File: p, Offset: -1, Msg: msg}
		}
		s.holds[h.path()] = h
		return h.path(), h.st, nil
	}
	got, err := checksum(p)
	if err != nil {
		return "", nil, &model.InputError{File: p, Offset: -1, Msg: "cannot be read: " + err.Error()}
	}
	if got != *want {
		return "", nil, &model.InputError{File: p, Offset: -1, Msg: shaMismatch}
	}
	return p, st, nil
}

// changed forgets, and reports, the checked files that are not as they
// were checked (their size, time or file): a file replaced after its
// generation was adopted was served unchecked, and one response mixed the
// new file's rows with the old search text.
func (s *local) changed() bool {
	any := false
	for rel, c := range s.checked {
		st, err := os.Stat(filepath.Join(s.dir, filepath.FromSlash(rel)))
		if err != nil || !sameState(st, c.st) || !s.intact(c.serve) && c.serve != filepath.Join(s.dir, filepath.FromSlash(rel)) {
			delete(s.checked, rel)
			any = true
		}
	}
	// A refused file that changed since (put right, or come) is tried
	// again: its problem would otherwise stay until the manifest changed.
	for rel, was := range s.refused {
		st, err := os.Stat(filepath.Join(s.dir, filepath.FromSlash(rel)))
		if (err == nil) != (was != nil) || err == nil && !sameState(st, was) {
			delete(s.refused, rel)
			any = true
		}
	}
	return any
}

// transient is a file that could not be read now but may be later.
type transient struct{ *model.InputError }

func (t *transient) Unwrap() error { return t.InputError }

func sizeMismatch(got, want int64) string {
	return fmt.Sprintf("%d bytes, but the manifest says %d: the file was cut short or changed after it was written", got, want)
}

const shaMismatch = "its SHA-256 does not match the manifest's: the file was changed or damaged after it was written"

func isHexGen(g string) bool {
	if len(g) != 16 {
		return false
	}
	_, err := strconv.ParseUint(g, 16, 64)
	return err == nil
}

// errText is an error's text without the path a *PathError repeats.
func errText(err error) string {
	var pe *os.PathError
	if errors.As(err, &pe) {
		return pe.Err.Error()
	}
	var be *bucket.Error
	if errors.As(err, &be) {
		return be.Err.Error()
	}
	return err.Error()
}
