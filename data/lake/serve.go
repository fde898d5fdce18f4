package lake

import (
	"bytes"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"

	"github.com/auditscope/auditscope/data/model"
)

// Reader is what a server reading a lake remembers between refreshes: the
// manifest it serves and its generations, the files already checked, and
// the newest manifest it could not serve, with why. The store serves the
// generations (views over their files) and asks the Reader what changed.
type Reader struct {
	mu       sync.Mutex
	dir      string
	manifest []byte            // the manifest's bytes, to tell a change
	gens     map[string]string // family + "\x00" + name -> generation
	// failed is a manifest that could not be served, and failedErr why.
	failed    []byte
	failedErr error
	// checked are the files whose size and checksum matched the manifest,
	// by path, with what they matched: files are written once, so each is
	// read through once, when a generation naming it is first adopted.
	checked  map[string]File
	problem  atomic.Pointer[model.InputError] // why the newest manifest is not served
	problems atomic.Int64                     // changes to problem, for caches of the pages that show it
}

// NewReader reads the lake at dir, which must be absolute.
func NewReader(dir string) *Reader {
	return &Reader{dir: dir, gens: map[string]string{}, checked: map[string]File{}}
}

// Dir is the lake's folder.
func (l *Reader) Dir() string { return l.dir }

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
}

// Next reads the manifest and returns what to serve, nil when it is what is
// served already, when it failed before unchanged (its error again), or
// when another refresh is running (requests that come meanwhile serve the
// state there is rather than queue behind it). A non-nil Update must be
// ended with Done. A manifest or file that cannot be read or does not match
// the manifest's checksum is an error naming the file, and the last good
// state serves on.
func (l *Reader) Next() (*Update, error) {
	if !l.mu.TryLock() {
		return nil, nil
	}
	u, err := l.next()
	if u == nil {
		l.mu.Unlock()
	}
	return u, err
}

func (l *Reader) next() (*Update, error) {
	p := filepath.Join(l.dir, "manifest.json")
	b, err := os.ReadFile(p)
	if err != nil {
		l.setProblem(&model.InputError{File: p, Offset: -1, Msg: "cannot be read: " + errText(err)})
		return nil, fmt.Errorf("lake %s: %w", l.dir, err)
	}
	if bytes.Equal(b, l.manifest) {
		l.setProblem(nil) // read again after a failed read: as served
		return nil, nil
	}
	// A manifest that failed is tried again only when it changes.
	if l.failedErr != nil && bytes.Equal(b, l.failed) {
		return nil, l.failedErr
	}
	u, err := l.update(p, b)
	if err != nil {
		return nil, l.fail(p, b, err)
	}
	return u, nil
}

// update checks the manifest b (read from p) and the files it names.
func (l *Reader) update(p string, b []byte) (*Update, error) {
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
	if err := l.check(m, u.gens); err != nil {
		return nil, err
	}
	for _, t := range Tables {
		for _, name := range m.Names(t.Family) {
			gen := m.Gen(t.Family, name)
			f := filepath.Join(GenDir(l.dir, t.Name, t.Family, name, gen), "data.parquet")
			if _, err := os.Stat(f); err != nil {
				return nil, &model.InputError{File: f, Offset: -1, Msg: "missing: the manifest names this generation, but its file is not there (a write not finished, or files removed)"}
			}
			u.Parts[t.Name] = append(u.Parts[t.Name], Part{Name: name, Gen: gen, File: f})
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

// Done ends an update: err is nil when the store serves it now, else why
// it could not, which is returned (the last good state serves on).
func (l *Reader) Done(u *Update, err error) error {
	defer l.mu.Unlock()
	if err != nil {
		return l.fail(filepath.Join(l.dir, "manifest.json"), u.b, err)
	}
	l.manifest, l.gens = u.b, u.gens
	l.failed, l.failedErr = nil, nil
	l.setProblem(nil)
	return nil
}

// fail records the manifest b (at p) as one that could not be served.
func (l *Reader) fail(p string, b []byte, err error) error {
	l.failed, l.failedErr = b, err
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

// check compares the files of the generations gens (of manifest m) with
// the sizes and checksums m records, before any of them is served: a file
// cut short, changed or damaged after it was written is refused, naming
// it, and the last good generation serves on. Files already checked are
// not read again. A manifest without checksums (a lake written before
// they were recorded) is served unchecked.
func (l *Reader) check(m Manifest, gens map[string]string) error {
	if len(m.Files) == 0 {
		return nil
	}
	for k, gen := range gens {
		fam, name := k[:strings.IndexByte(k, 0)], k[strings.IndexByte(k, 0)+1:]
		for _, t := range Tables {
			if t.Family != fam {
				continue
			}
			rel := FileRel(t.Name, fam, name, gen)
			want, ok := m.Files[rel]
			p := filepath.Join(l.dir, filepath.FromSlash(rel))
			if !ok {
				return &model.InputError{File: p, Offset: -1, Msg: "the manifest records no checksum for this file"}
			}
			if l.checked[rel] == want {
				continue
			}
			st, err := os.Stat(p)
			if err != nil {
				return &model.InputError{File: p, Offset: -1, Msg: "missing: the manifest names this generation, but its file is not there (a write not finished, or files removed)"}
			}
			if st.Size() != want.Size {
				return &model.InputError{File: p, Offset: -1, Msg: fmt.Sprintf("%d bytes, but the manifest says %d: the file was cut short or changed after it was written", st.Size(), want.Size)}
			}
			got, err := checksum(p)
			if err != nil {
				return &model.InputError{File: p, Offset: -1, Msg: "cannot be read: " + err.Error()}
			}
			if got != want {
				return &model.InputError{File: p, Offset: -1, Msg: "its SHA-256 does not match the manifest's: the file was changed or damaged after it was written"}
			}
			l.checked[rel] = want
		}
	}
	return nil
}

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
	return err.Error()
}
