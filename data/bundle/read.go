package bundle

import (
	"archive/zip"
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path"
	"runtime"
	"strings"
	"sync"

	"github.com/auditscope/auditscope/data/internal/limit"
	"github.com/auditscope/auditscope/data/internal/regular"
	"github.com/auditscope/auditscope/data/internal/zipmember"

	"github.com/auditscope/auditscope/data/internal/jsonin"
)

// Pos is where a record came from: the file inside the bundle and its line.
type Pos struct {
	File string
	Line int
}

// Error is a problem at a position in a bundle.
type Error struct {
	Pos
	Field string
	Msg   string
}

func (e *Error) Error() string {
	s := e.File
	if e.Line > 0 {
		s += fmt.Sprintf(":%d", e.Line)
	}
	if e.Field != "" {
		s += ": " + e.Field
	}
	return s + ": " + e.Msg
}

// Source is a bundle to import: read from a folder or zip, or built in
// memory (the demo). Records are visited in file order.
type Source interface {
	Name() string // for messages: the folder, zip or "demo"
	Experiment() (Experiment, error)
	Runs(fn func(Pos, *Run) error) error
	Auditors(fn func(Pos, *Auditor) error) error
	// Audits visits audits; raw is the audit's transcript JSON when it was
	// inline in the file (nil for transcript_path or in-memory bundles).
	Audits(fn func(p Pos, a *Audit, rawTranscript json.RawMessage) error) error
	Judgments(fn func(Pos, *Judgment) error) error
	Crux(fn func(Pos, *Crux) error) error
	Metrics(fn func(Pos, *Metric) error) error
	// ReadFile reads a file the bundle refers to (transcript_path).
	ReadFile(name string) ([]byte, error)
}

// MaxMemberSize caps one file of a zipped bundle (uncompressed); a folder's
// files have no cap. The JSONL files are streamed a line at a time, so this
// only bounds how long an import reads; the limit on one value (Open's
// maxValue: a JSONL line, a file read whole) bounds its memory.
const MaxMemberSize = 4 << 30

// dirSource reads a bundle from an fs.FS (a folder or a zip).
type dirSource struct {
	ctx    context.Context // ends the reads (Open)
	name   string
	max    int64 // the limit on one value
	fsys   fs.FS
	root   *os.Root // of a folder: files are opened through it (regular)
	prefix string   // folder inside a zip that holds experiment.json
	closer io.Closer
}

// Open opens a bundle folder or .zip file. Close it when done. maxValue
// limits one value: a JSONL line, or a file read whole (experiment.json, a
// transcript); 0 means limit.Default.
//
// Reading its files ends with ctx's error once ctx ends: a zip that
// inflates to gigabytes of blank lines calls back nothing for minutes, so
// the reads themselves stop (Ctrl-C took 18 s to act on one).
func Open(ctx context.Context, p string, maxValue int64) (Source, io.Closer, error) {
	maxValue = limit.Or(maxValue)
	st, err := os.Stat(p)
	if err != nil {
		return nil, nil, err
	}
	if st.IsDir() {
		// An os.Root, unlike os.DirFS, refuses symbolic links that lead out
		// of the folder.
		root, err := os.OpenRoot(p)
		if err != nil {
			return nil, nil, err
		}
		return &dirSource{ctx: ctx, name: p, max: maxValue, fsys: root.FS(), root: root}, root, nil
	}
	if !st.Mode().IsRegular() {
		return nil, nil, &Error{Pos: Pos{File: p}, Msg: regular.Kind(st.Mode()) + ", not a regular file: only regular files are read"}
	}
	if err := checkMembers(p, st.Size(), maxValue); err != nil {
		return nil, nil, &Error{Pos: Pos{File: p}, Msg: err.Error()}
	}
	zr, err := zip.OpenReader(p)
	if err != nil {
		return nil, nil, &Error{Pos: Pos{File: p}, Msg: "not a readable zip file: " + err.Error()}
	}
	prefix, err := zipPrefix(zr.File)
	if err != nil {
		zr.Close()
		var be *Error
		if errors.As(err, &be) {
			be.Pos.File = p + be.Pos.File
			return nil, nil, be
		}
		return nil, nil, &Error{Pos: Pos{File: p}, Msg: err.Error()}
	}
	return &dirSource{ctx: ctx, name: p, max: maxValue, fsys: zr, prefix: prefix, closer: zr}, zr, nil
}

// zipPrefix checks a bundle zip's members and returns the folder that holds
// experiment.json ("" for the top level). A zip whose meaning is ambiguous
// is refused rather than read one way: a member name that appears twice (the
// first would be read, the second ignored), two experiment.json files, or
// members outside the bundle's folder. macOS's __MACOSX/ folder is ignored.
func zipPrefix(files []*zip.File) (string, error) {
	seen := make(map[string]bool, len(files))
	var bundles []string
	for _, f := range files {
		if err := checkMember(f); err != nil {
			return "", &Error{Pos: Pos{File: ":" + f.Name}, Msg: err.Error()}
		}
		if seen[f.Name] {
			return "", fmt.Errorf("the zip holds two members named %q: refusing to pick one", f.Name)
		}
		seen[f.Name] = true
		if path.Base(f.Name) == FileExperiment && strings.Count(strings.Trim(f.Name, "/"), "/") <= 1 {
			bundles = append(bundles, strings.TrimSuffix(f.Name, FileExperiment))
		}
	}
	switch len(bundles) {
	case 0:
		return "", errors.New("zip has no experiment.json at its top level (an auditscope bundle needs one)")
	case 1:
	default:
		return "", fmt.Errorf("the zip holds %d bundles (%sexperiment.json and %sexperiment.json): zip one bundle per file", len(bundles), bundles[0], bundles[1])
	}
	prefix := bundles[0]
	for _, f := range files {
		if !strings.HasPrefix(f.Name, prefix) && !strings.HasPrefix(f.Name, "__MACOSX/") && !strings.HasSuffix(f.Name, "/") {
			return "", fmt.Errorf("member %q lies outside the bundle's folder %q: zip one bundle per file", f.Name, prefix)
		}
	}
	return prefix, nil
}

// checkMember refuses zip members that would escape the bundle or claim an
// unreasonable size, before any of their bytes are read.
func checkMember(f *zip.File) error {
	return zipmember.Check(f, MaxMemberSize, func(size uint64) string {
		return fmt.Sprintf("refusing member claiming %d bytes uncompressed (limit %d)", size, int64(MaxMemberSize))
	})
}

func (s *dirSource) Name() string { return s.name }

func (s *dirSource) open(name string) (io.ReadCloser, error) {
	rc, err := s.openFile(name)
	if err != nil || s.ctx == nil {
		return rc, err
	}
	return ctxReader{rc, s.ctx}, nil
}

func (s *dirSource) openFile(name string) (io.ReadCloser, error) {
	var f io.ReadCloser
	var err error
	if s.root != nil {
		// Not through root.FS(): its Open waits for a writer on a FIFO.
		f, err = regular.OpenIn(s.root, name)
	} else {
		f, err = s.fsys.Open(s.prefix + name)
	}
	if err != nil {
		return nil, err
	}
	if s.closer == nil {
		// A folder's file is read to its end, however long: a million
		// audits' audits.jsonl is 7.5 GB.
		return f, nil
	}
	// A zip member may lie about its size: reading past the cap is an
	// error, never a quiet end of the file, which would drop the lines
	// after it.
	return struct {
		io.Reader
		io.Closer
	}{&capped{r: f, left: MaxMemberSize}, f}, nil
}

// ctxReader is a file whose reads fail once ctx ends.
type ctxReader struct {
	io.ReadCloser
	ctx context.Context
}

func (r ctxReader) Read(p []byte) (int, error) {
	if err := r.ctx.Err(); err != nil {
		return 0, err
	}
	return r.ReadCloser.Read(p)
}

// errMemberTooLong is a zip member that goes on past MaxMemberSize.
var errMemberTooLong = fmt.Errorf("the member is longer than %d bytes, the limit on one file of a zipped bundle (or than its header claims): unzip the bundle and import its folder", int64(MaxMemberSize))

// capped reads r up to left bytes and fails if r goes on.
type capped struct {
	r    io.Reader
	left int64
}

func (c *capped) Read(p []byte) (int, error) {
	if c.left <= 0 {
		var one [1]byte
		for {
			n, err := c.r.Read(one[:])
			if n > 0 {
				return 0, errMemberTooLong
			}
			if err != nil {
				return 0, err
			}
		}
	}
	if int64(len(p)) > c.left {
		p = p[:c.left]
	}
	n, err := c.r.Read(p)
	c.left -= int64(n)
	return n, err
}

func (s *dirSource) ReadFile(name string) ([]byte, error) {
	if !fs.ValidPath(name) || strings.Contains(name, "\\") {
		return nil, fmt.Errorf("path %q leaves the bundle", name)
	}
	f, err := s.open(name)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	b, err := io.ReadAll(io.LimitReader(f, s.max+1))
	if err != nil {
		return nil, fmt.Errorf("%s: %s", name, describeReadErr(err))
	}
	if int64(len(b)) > s.max {
		return nil, errors.New(limit.Message(name, s.max))
	}
	if i := jsonin.FirstInvalidUTF8(b); i >= 0 {
		return nil, fmt.Errorf("%s is not valid UTF-8 (at byte offset %d)", name, i)
	}
	b = bytes.TrimPrefix(b, jsonin.BOM)
	if err := jsonin.CheckItems(b, jsonin.ItemsFor(s.max)); err != nil {
		return nil, fmt.Errorf("%s: %w", name, err)
	}
	return b, nil
}

func (s *dirSource) Experiment() (Experiment, error) {
	var e Experiment
	b, err := s.ReadFile(FileExperiment)
	if err != nil {
		return e, &Error{Pos: Pos{File: FileExperiment}, Msg: err.Error()}
	}
	if err := decodeStrict(b, &e); err != nil {
		return e, &Error{Pos: Pos{File: FileExperiment, Line: lineOfErr(b, err)}, Msg: describeJSONErr(err)}
	}
	return e, nil
}

// eachLine decodes a JSONL file line by line into a fresh T. A missing
// optional file visits nothing.
func eachLine[T any](s *dirSource, name string, optional bool, fn func(Pos, *T, []byte) error) error {
	f, err := s.open(name)
	if err != nil {
		if optional && errors.Is(err, fs.ErrNotExist) {
			return nil
		}
		return &Error{Pos: Pos{File: name}, Msg: err.Error()}
	}
	defer f.Close()
	br := bufio.NewReaderSize(f, 1<<20)
	for line := 1; ; line++ {
		line += skipNewlines(br)
		b, err := readLine(br, s.max)
		if err == io.EOF {
			return nil
		}
		if err != nil {
			return &Error{Pos: Pos{File: name, Line: line}, Msg: describeReadErr(err)}
		}
		b = bytes.TrimSpace(b)
		if line == 1 {
			b = bytes.TrimPrefix(b, jsonin.BOM)
		}
		if len(b) == 0 {
			continue
		}
		if i := jsonin.FirstInvalidUTF8(b); i >= 0 {
			return &Error{Pos: Pos{File: name, Line: line}, Msg: fmt.Sprintf("not valid UTF-8 (byte %d of the line)", i+1)}
		}
		if err := jsonin.CheckItems(b, jsonin.ItemsFor(s.max)); err != nil {
			return &Error{Pos: Pos{File: name, Line: line}, Msg: err.Error()}
		}
		v := new(T)
		if err := decodeStrict(b, v); err != nil {
			return &Error{Pos: Pos{File: name, Line: line}, Msg: describeJSONErr(err)}
		}
		if err := fn(Pos{File: name, Line: line}, v, b); err != nil {
			return err
		}
	}
}

// skipNewlines reads past the empty lines ("\n" alone) at br's position a
// buffer at a time, and returns how many it passed: gigabytes of blank
// lines took minutes a line at a time.
func skipNewlines(br *bufio.Reader) int {
	n := 0
	for {
		buf, _ := br.Peek(max(1, br.Buffered()))
		i := 0
		for i < len(buf) && buf[i] == '\n' {
			i++
		}
		br.Discard(i)
		n += i
		if i < len(buf) || len(buf) == 0 {
			return n
		}
	}
}

func readLine(br *bufio.Reader, max int64) ([]byte, error) {
	var buf []byte
	for {
		chunk, err := br.ReadSlice('\n')
		buf = append(buf, chunk...)
		if int64(len(buf)) > max {
			return nil, errTooLong{max}
		}
		if err == bufio.ErrBufferFull {
			continue
		}
		if err == io.EOF && len(buf) > 0 {
			return buf, nil
		}
		return buf, err
	}
}

func (s *dirSource) Runs(fn func(Pos, *Run) error) error {
	return eachLine(s, FileRuns, false, func(p Pos, v *Run, _ []byte) error { return fn(p, v) })
}

func (s *dirSource) Auditors(fn func(Pos, *Auditor) error) error {
	return eachLine(s, FileAuditors, false, func(p Pos, v *Auditor, _ []byte) error { return fn(p, v) })
}

// auditLine keeps the inline transcript raw so it is stored exactly as given.
type auditLine struct {
	Audit
	RawTranscript json.RawMessage `json:"transcript,omitempty"`
}

func (s *dirSource) Audits(fn func(Pos, *Audit, json.RawMessage) error) error {
	return eachLineParallel(s, FileAudits, func(p Pos, v *auditLine) error {
		raw := bytes.TrimSpace(v.RawTranscript)
		if len(raw) > 0 && !bytes.Equal(raw, []byte("null")) {
			if raw[0] != '{' {
				return &Error{Pos: p, Field: "transcript", Msg: "want a Petri transcript object"}
			}
		} else {
			raw = nil
		}
		return fn(p, &v.Audit, raw)
	})
}

func (s *dirSource) Judgments(fn func(Pos, *Judgment) error) error {
	return eachLine(s, FileJudgments, true, func(p Pos, v *Judgment, _ []byte) error { return fn(p, v) })
}

func (s *dirSource) Crux(fn func(Pos, *Crux) error) error {
	return eachLine(s, FileCrux, true, func(p Pos, v *Crux, _ []byte) error { return fn(p, v) })
}

func (s *dirSource) Metrics(fn func(Pos, *Metric) error) error {
	return eachLine(s, FileMetrics, true, func(p Pos, v *Metric, _ []byte) error { return fn(p, v) })
}

// Verdicts visits verdicts.jsonl, which a bundle may leave out.
func (s *dirSource) Verdicts(fn func(Pos, *Verdict) error) error {
	return eachLine(s, FileVerdicts, true, func(p Pos, v *Verdict, _ []byte) error { return fn(p, v) })
}

// decodeStrict decodes one JSON value and refuses trailing data.
func decodeStrict(b []byte, v any) error {
	dec := json.NewDecoder(bytes.NewReader(b))
	if err := dec.Decode(v); err != nil {
		return err
	}
	if dec.More() {
		return errors.New("unexpected data after the JSON value")
	}
	return nil
}

// describeReadErr words an error reading a bundle file; a zip member whose
// data does not match its header fails with zip.ErrFormat or ErrChecksum.
func describeReadErr(err error) string {
	if errors.Is(err, zip.ErrFormat) || errors.Is(err, zip.ErrChecksum) {
		return "corrupt zip member, or larger than its header claims (" + err.Error() + ")"
	}
	return err.Error()
}

func describeJSONErr(err error) string {
	var typ *json.UnmarshalTypeError
	var syn *json.SyntaxError
	switch {
	case errors.As(err, &typ):
		return jsonin.Describe(typ)
	case errors.As(err, &syn):
		return fmt.Sprintf("invalid JSON at byte %d: %v", syn.Offset, syn)
	case errors.Is(err, io.ErrUnexpectedEOF):
		return "the JSON ends early (truncated?)"
	case errors.Is(err, io.EOF):
		return "the file is empty: want a JSON object"
	}
	return err.Error()
}

func lineOfErr(b []byte, err error) int {
	var off int64 = -1
	var typ *json.UnmarshalTypeError
	var syn *json.SyntaxError
	switch {
	case errors.As(err, &typ):
		off = typ.Offset
	case errors.As(err, &syn):
		off = syn.Offset
	}
	if off < 0 || off > int64(len(b)) {
		return 0
	}
	return bytes.Count(b[:off], []byte("\n")) + 1
}

// memSource serves an in-memory Bundle as a Source.
type memSource struct {
	b      *Bundle
	name   string
	noJSON bool
}

// FromBundle wraps an in-memory bundle (e.g. the demo) as a Source. With
// withJSON false the transcripts are not marshalled: the importer is then
// expected to serve them from memory (see data.ImportOptions.Transcripts).
func FromBundle(b *Bundle, name string, withJSON bool) Source {
	return &memSource{b: b, name: name, noJSON: !withJSON}
}

func (m *memSource) Name() string                    { return m.name }
func (m *memSource) Experiment() (Experiment, error) { return m.b.Experiment, nil }
func (m *memSource) ReadFile(name string) ([]byte, error) {
	return nil, fmt.Errorf("in-memory bundle has no file %s", name)
}

func each[T any](file string, list []T, fn func(Pos, *T) error) error {
	for i := range list {
		if err := fn(Pos{File: file, Line: i + 1}, &list[i]); err != nil {
			return err
		}
	}
	return nil
}

func (m *memSource) Runs(fn func(Pos, *Run) error) error { return each(FileRuns, m.b.Runs, fn) }
func (m *memSource) Auditors(fn func(Pos, *Auditor) error) error {
	return each(FileAuditors, m.b.Auditors, fn)
}

// Audits marshals the in-memory transcripts on every core, a chunk at a
// time, and hands each audit its JSON with the struct still attached.
func (m *memSource) Audits(fn func(Pos, *Audit, json.RawMessage) error) error {
	if m.noJSON {
		return each(FileAudits, m.b.Audits, func(p Pos, a *Audit) error { return fn(p, a, nil) })
	}
	const chunk = 2048
	workers := runtime.GOMAXPROCS(0)
	raws := make([]json.RawMessage, chunk)
	errs := make([]error, chunk)
	for start := 0; start < len(m.b.Audits); start += chunk {
		end := min(start+chunk, len(m.b.Audits))
		var wg sync.WaitGroup
		for w := 0; w < workers; w++ {
			wg.Add(1)
			go func(w int) {
				defer wg.Done()
				for i := start + w; i < end; i += workers {
					raws[i-start], errs[i-start] = nil, nil
					if t := m.b.Audits[i].Transcript; t != nil {
						raws[i-start], errs[i-start] = json.Marshal(t)
					}
				}
			}(w)
		}
		wg.Wait()
		for i := start; i < end; i++ {
			p := Pos{File: FileAudits, Line: i + 1}
			if err := errs[i-start]; err != nil {
				return &Error{Pos: p, Field: "transcript", Msg: err.Error()}
			}
			if err := fn(p, &m.b.Audits[i], raws[i-start]); err != nil {
				return err
			}
		}
	}
	return nil
}
func (m *memSource) Judgments(fn func(Pos, *Judgment) error) error {
	return each(FileJudgments, m.b.Judgments, fn)
}
func (m *memSource) Crux(fn func(Pos, *Crux) error) error { return each(FileCrux, m.b.Crux, fn) }
func (m *memSource) Metrics(fn func(Pos, *Metric) error) error {
	return each(FileMetrics, m.b.Metrics, fn)
}
func (m *memSource) Verdicts(fn func(Pos, *Verdict) error) error {
	return each(FileVerdicts, m.b.Verdicts, fn)
}

// errTooLong is a JSONL line over the limit on one value.
type errTooLong struct{ max int64 }

func (e errTooLong) Error() string { return limit.Message("the line", e.max) }

// checkMembers refuses a zip with more members than go with maxValue
// (zipmember.MaxMembers), reading only its tail.
func checkMembers(p string, size, maxValue int64) error {
	f, err := regular.Open(p)
	if err != nil {
		return err
	}
	defer f.Close()
	return zipmember.CheckCount(f, size, zipmember.MaxMembers(maxValue, limit.Default))
}
