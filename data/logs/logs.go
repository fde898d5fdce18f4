// Package logs reads Petri transcript files and Inspect logs, a file or a
// folder of them, as one experiment: a bundle.Source that the store
// imports as it imports a bundle, so validation, atomicity, idempotency and
// storage are the bundle's. docs/FORMAT.md describes the mapping.
package logs

import (
	"cmp"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strconv"
	"strings"

	"github.com/auditscope/auditscope/data/bundle"
	"github.com/auditscope/auditscope/data/inspect"
	"github.com/auditscope/auditscope/data/model"
	"github.com/auditscope/auditscope/data/petri"

	"github.com/auditscope/auditscope/data/internal/digest"
	"github.com/auditscope/auditscope/data/internal/jsonin"
)

// Options are what an import's flags ask of the logs.
type Options struct {
	// Eval and Behavior set every audit's eval kind (one of model.Evals)
	// and planted behavior, over what the files' tags and metadata say.
	Eval, Behavior string
	// MaxValue limits one value of the input, in bytes (limit.Or).
	MaxValue int64
	// Files, when not nil, are the only files read (paths relative to the
	// folder) instead of every log under it.
	Files []string
	// PrefixLogs starts every Inspect sample's audit id with its log's
	// path, even when the import holds one log.
	PrefixLogs bool
	// Source, when set, is what the experiment's description names as
	// where it was imported from, instead of the folder (a local copy of a
	// bucket prefix is named by the prefix's URL).
	Source string
}

// IDs are the audit ids of the logs, in file order.
func (s *Source) IDs() []string { return s.ids }

// maxLabel caps a label made from sample metadata, in characters.
const maxLabel = 10000

// RunNames are the names an import of one Inspect log takes when its file's
// name holds another run already (claimExperiment): the file's name with
// the log's model, then with its run id too. A folder, or a Petri
// transcript, has none: its name is the folder's or the file's.
func (s *Source) RunNames() []string {
	if len(s.files) != 1 || s.files[0].kind != model.KindInspect {
		return nil
	}
	if st, err := os.Stat(s.root); err != nil || st.IsDir() {
		return nil
	}
	f := s.files[0]
	var out []string
	name := s.exp.ID
	if m := model.Slugify(f.model); m != "" {
		name += "-" + m
		out = append(out, name)
	}
	if r := model.Slugify(f.runID); r != "" {
		out = append(out, name+"-"+r)
	}
	return out
}

// logFile is one Petri transcript or Inspect log of an import.
type logFile struct {
	path string // as found (root joined with rel)
	rel  string // relative to the imported folder; the base name for a file
	kind string // model.KindPetri or model.KindInspect
	// prefix starts the audit ids of an Inspect log's samples when one
	// import holds several logs (their sample ids repeat).
	prefix string
	// dims lists the scalar scorers of an Inspect log whose every value is
	// a number from 1 to 10: those become judge dimensions.
	dims map[string]bool
	// paper tells an Inspect log that is an audit of the paper's kind: a
	// Petri run (an auditor role, a judge scorer) or one whose samples name
	// an eval or behavior. The samples of other logs are shown in Inspect's
	// terms, without auditor, target, behavior or eval.
	paper bool
	// log is the Inspect log's header as recorded.
	log *model.InspectLog
	// model and runID are the Inspect log's, to tell runs of one task apart.
	model, runID string
}

// Source is a set of Petri transcripts and Inspect logs seen as a
// bundle. Building it reads every file once for ids, models and
// behaviors; Audits reads them again, one transcript or sample at a time.
type Source struct {
	root     string
	opts     Options
	kind     string
	files    []*logFile
	exp      bundle.Experiment
	auditors []string
	notes    []string
	ids      []string // every audit id, in file order
}

func (s *Source) Name() string                           { return s.root }
func (s *Source) Kind() string                           { return s.kind }
func (s *Source) Notes() []string                        { return s.notes }
func (s *Source) Experiment() (bundle.Experiment, error) { return s.exp, nil }

// Transcripts and logs hold no runs, judgments, crux rows or metrics.

func (s *Source) Runs(func(bundle.Pos, *bundle.Run) error) error           { return nil }
func (s *Source) Judgments(func(bundle.Pos, *bundle.Judgment) error) error { return nil }
func (s *Source) Crux(func(bundle.Pos, *bundle.Crux) error) error          { return nil }
func (s *Source) Metrics(func(bundle.Pos, *bundle.Metric) error) error     { return nil }

func (s *Source) ReadFile(name string) ([]byte, error) {
	return nil, fmt.Errorf("transcript files and logs have no file %s", name)
}

func (s *Source) Auditors(fn func(bundle.Pos, *bundle.Auditor) error) error {
	for i, m := range s.auditors {
		if err := fn(bundle.Pos{File: s.root, Line: i + 1}, &bundle.Auditor{ID: m, Name: m, Kind: model.AuditorBaseline}); err != nil {
			return err
		}
	}
	return nil
}

// logIndex is what the first pass over the files collects.
type logIndex struct {
	ids                     map[string]string // audit id -> where it came from
	order                   []string          // the ids in file order
	auditors                map[string]bool
	behaviors               map[string]bool
	behaviorList            []string
	petri, inspect, samples int
	// distinct counts the logs' samples by id, epochs the most epochs of
	// one: samples counts every epoch of every sample.
	distinct, epochs int
}

func (x *logIndex) claim(id, where, file string) error {
	if prev, ok := x.ids[id]; ok {
		return &model.InputError{File: file, Offset: -1, Msg: fmt.Sprintf("audit id %q is used twice: by %s and by %s", id, prev, where)}
	}
	x.ids[id] = where
	x.order = append(x.order, id)
	return nil
}

func (s *Source) addAuditor(x *logIndex, model string) {
	if !x.auditors[model] {
		x.auditors[model] = true
		s.auditors = append(s.auditors, model)
	}
}

func (x *logIndex) addBehavior(b string) {
	if b != "" && !x.behaviors[b] {
		x.behaviors[b] = true
		x.behaviorList = append(x.behaviorList, b)
	}
}

// Open finds the logs under root and reads them once for audit
// ids (which must be unique), auditor models, behaviors and, for Inspect
// logs, which scorers are judge dimensions.
func Open(ctx context.Context, root string, opts Options) (*Source, error) {
	var files []*logFile
	var skipped []string
	var err error
	if opts.Files != nil {
		files, skipped, err = namedLogs(root, opts.Files)
	} else {
		files, skipped, err = listLogs(root)
	}
	if err != nil {
		return nil, err
	}
	if len(files) == 0 {
		return nil, &model.InputError{File: root, Offset: -1, Msg: "no Petri transcripts or Inspect logs (.json, .eval) found"}
	}
	files, copies, err := dropCopies(ctx, files)
	if err != nil {
		return nil, err
	}
	s := &Source{root: root, opts: opts, kind: model.KindPetri, files: files}
	x := &logIndex{ids: map[string]string{}, auditors: map[string]bool{}, behaviors: map[string]bool{}}
	for _, f := range files {
		if f.kind == model.KindInspect {
			x.inspect++
			s.kind = model.KindInspect
		} else {
			x.petri++
		}
	}
	for _, f := range files {
		if err := ctx.Err(); err != nil {
			return nil, err
		}
		if f.kind == model.KindInspect && (x.inspect > 1 || opts.PrefixLogs) {
			f.prefix = model.Slugify(f.rel) + "--"
		}
		if f.kind == model.KindPetri {
			err = s.indexPetri(f, x)
		} else {
			err = s.indexInspect(f, x)
		}
		if err != nil {
			return nil, err
		}
	}
	s.describe(x, skipped)
	if len(copies) > 0 {
		what := "copies"
		if len(copies) == 1 {
			what = "copy"
		}
		s.notes = append(s.notes, fmt.Sprintf("skipped %d byte-for-byte %s of another file: %s", len(copies), what, strings.Join(copies, ", ")))
	}
	s.ids = x.order
	return s, nil
}

// describe names the experiment, declares its behaviors and notes what was
// read and skipped.
func (s *Source) describe(x *logIndex, skipped []string) {
	for _, b := range x.behaviorList {
		s.exp.Behaviors = append(s.exp.Behaviors, bundle.Behavior{ID: b, Split: bundle.SplitTrain})
	}
	abs, err := filepath.Abs(s.root)
	if err != nil {
		abs = s.root
	}
	name := filepath.Base(abs)
	if st, err := os.Stat(s.root); err == nil && !st.IsDir() {
		name = strings.TrimSuffix(name, filepath.Ext(name))
	}
	s.exp.Name = name
	if s.exp.ID = model.Slugify(name); s.exp.ID == "" {
		s.exp.ID = "logs"
	}
	read := Read(x.petri, x.inspect, x.samples, x.distinct, x.epochs)
	s.exp.Description = Description(cmp.Or(s.opts.Source, s.root), read)
	s.notes = append(s.notes, "read "+read)
	if len(skipped) > 0 {
		shown := skipped
		if len(shown) > 5 {
			shown = shown[:5]
		}
		note := fmt.Sprintf("skipped %s that are not Petri transcripts or Inspect logs (%s", plural(len(skipped), "file"), strings.Join(shown, ", "))
		if len(skipped) > len(shown) {
			note += ", ..."
		}
		s.notes = append(s.notes, note+")")
	}
}

func plural(n int, what string) string {
	if n == 1 {
		return "1 " + what
	}
	return strconv.Itoa(n) + " " + what + "s"
}

// listLogs finds the Petri transcripts and Inspect logs at root: the file
// itself, or every one under the folder, in path order. Files of other
// kinds in a folder are returned as skipped.
func listLogs(root string) (files []*logFile, skipped []string, err error) {
	st, err := os.Stat(root)
	if err != nil {
		return nil, nil, fmt.Errorf("import: %w", err)
	}
	if !st.IsDir() {
		kind, err := logKind(root)
		if err != nil {
			return nil, nil, err
		}
		if kind == "" {
			return nil, nil, &model.InputError{File: root, Offset: -1, Msg: "not a Petri transcript (metadata and events) or an Inspect log (eval, samples)"}
		}
		return []*logFile{{path: root, rel: filepath.Base(root), kind: kind}}, nil, nil
	}
	err = filepath.WalkDir(root, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if p != root && strings.HasPrefix(d.Name(), ".") {
			// Hidden files and folders (.git, .DS_Store) are not logs.
			if d.IsDir() {
				return filepath.SkipDir
			}
			return nil
		}
		if d.IsDir() {
			return nil
		}
		rel, _ := filepath.Rel(root, p)
		rel = filepath.ToSlash(rel)
		if !d.Type().IsRegular() {
			skipped = append(skipped, rel)
			return nil
		}
		kind, err := logKind(p)
		if err != nil {
			return err
		}
		if kind == "" {
			skipped = append(skipped, rel)
			return nil
		}
		files = append(files, &logFile{path: p, rel: rel, kind: kind})
		return nil
	})
	if err != nil {
		if model.IsInputError(err) {
			return nil, nil, err
		}
		return nil, nil, fmt.Errorf("import %s: %w", root, err)
	}
	return files, skipped, nil
}

// namedLogs are the given files under root (relative paths), each a Petri
// transcript or an Inspect log.
func namedLogs(root string, rels []string) ([]*logFile, []string, error) {
	files := make([]*logFile, 0, len(rels))
	for _, rel := range rels {
		p := filepath.Join(root, filepath.FromSlash(rel))
		kind, err := logKind(p)
		if err != nil {
			return nil, nil, err
		}
		if kind == "" {
			return nil, nil, &model.InputError{File: p, Offset: -1, Msg: "not a Petri transcript (metadata and events) or an Inspect log (eval, samples)"}
		}
		files = append(files, &logFile{path: p, rel: filepath.ToSlash(rel), kind: kind})
	}
	return files, nil, nil
}

// DetectFolder tells whether a folder holds Inspect logs (model.KindInspect,
// even mixed with Petri transcripts), only Petri transcripts (model.KindPetri),
// or neither ("").
func DetectFolder(root string) (string, error) {
	files, _, err := listLogs(root)
	if err != nil {
		return "", err
	}
	kind := ""
	for _, f := range files {
		if f.kind == model.KindInspect {
			return model.KindInspect, nil
		}
		kind = model.KindPetri
	}
	return kind, nil
}

// logKind tells a Petri transcript from an Inspect log by extension and
// top-level keys; "" is neither. Broken JSON is an error: it is more
// likely a damaged log than a file to skip.
func logKind(path string) (string, error) {
	switch strings.ToLower(filepath.Ext(path)) {
	case ".eval":
		return model.KindInspect, nil
	case ".json":
	default:
		return "", nil
	}
	kind, _, err := jsonin.Sniff(path)
	if err != nil {
		return "", err
	}
	if kind == model.KindPetri || kind == model.KindInspect {
		return kind, nil
	}
	return "", nil
}

// logErr turns a reading error into an *model.InputError naming the file (and
// zip member), the line when known, and the JSON path.
func logErr(file string, err error) error {
	var ie *model.InputError
	var le *inspect.Error
	var pe *petri.ParseError
	var be *bundle.Error
	switch {
	case errors.As(err, &ie):
		return ie
	case errors.As(err, &le):
		out := &model.InputError{File: le.File, Offset: le.Offset, Path: le.Path, Msg: le.Msg}
		if le.Member != "" {
			out.File += ": " + le.Member
			out.Offset = -1
		} else if le.Offset >= 0 {
			out.Line = jsonin.LineAt(le.File, le.Offset)
		}
		return out
	case errors.As(err, &pe):
		out := &model.InputError{File: file, Offset: pe.Offset, Path: pe.Path, Msg: pe.Msg}
		if pe.Offset >= 0 {
			out.Line = jsonin.LineAt(file, pe.Offset)
		}
		return out
	case errors.As(err, &be):
		return &model.InputError{File: be.File, Line: be.Line, Offset: -1, Path: be.Field, Msg: be.Msg}
	}
	return fmt.Errorf("import %s: %w", file, err)
}

func (s *Source) Audits(fn func(bundle.Pos, *bundle.Audit, json.RawMessage) error) error {
	for _, f := range s.files {
		var err error
		if f.kind == model.KindPetri {
			err = s.petriAudit(f, fn)
		} else {
			err = s.inspectAudits(f, fn)
		}
		if err != nil {
			return err
		}
	}
	return nil
}

// CheckWithin refuses any of the files rels (relative to the folder root)
// that is a symbolic link, or that a link among its parent folders leads
// out of root: serve --watch reads only what lies in its folders. It is
// checked just before the files are read; a file swapped for a link in the
// moments between is not caught (docs/SECURITY.md).
func CheckWithin(root string, rels []string) error {
	r, err := os.OpenRoot(root)
	if err != nil {
		return fmt.Errorf("import: %w", err)
	}
	defer r.Close()
	for _, rel := range rels {
		p := filepath.Join(root, filepath.FromSlash(rel))
		st, err := r.Lstat(filepath.FromSlash(rel))
		if err != nil {
			var pe *os.PathError
			if errors.As(err, &pe) && strings.Contains(pe.Err.Error(), "escapes") {
				return &model.InputError{File: p, Offset: -1, Msg: "a link among its folders leads out of the watched folder; links are not followed"}
			}
			return fmt.Errorf("import %s: %w", p, err)
		}
		if st.Mode()&os.ModeSymlink != 0 {
			return &model.InputError{File: p, Offset: -1, Msg: "a symbolic link: links are not followed (one could lead out of the folder)"}
		}
		if !st.Mode().IsRegular() {
			return &model.InputError{File: p, Offset: -1, Msg: "not a regular file"}
		}
	}
	return nil
}

// dropCopies keeps the first of files that are byte for byte the same (a
// log copied or renamed into the folder would otherwise count its samples
// twice, and weigh twice in every comparison) and says which it dropped.
func dropCopies(ctx context.Context, files []*logFile) ([]*logFile, []string, error) {
	if len(files) < 2 {
		return files, nil, nil
	}
	first := map[string]string{}
	bySize := map[int64]int{}
	sizes := make([]int64, len(files))
	for i, f := range files {
		if st, err := os.Stat(f.path); err == nil {
			sizes[i] = st.Size()
			bySize[sizes[i]]++
		}
	}
	var kept []*logFile
	var copies []string
	for i, f := range files {
		// Only files that share a size can be copies: the others are not
		// read twice.
		if bySize[sizes[i]] < 2 {
			kept = append(kept, f)
			continue
		}
		if err := ctx.Err(); err != nil {
			return nil, nil, err
		}
		h, err := digest.File(f.path)
		if err != nil {
			return nil, nil, fmt.Errorf("import: %w", err)
		}
		if was, ok := first[h]; ok {
			copies = append(copies, f.rel+" (the same as "+was+")")
			continue
		}
		first[h] = f.rel
		kept = append(kept, f)
	}
	return kept, copies, nil
}

// Read says what an import of logs read: "3 Petri transcripts and 1
// Inspect log (10 samples × 5 epochs)". samples counts sample × epoch
// records, distinct the samples by id, epochs the most of one.
func Read(petri, inspect, samples, distinct, epochs int) string {
	var parts []string
	if petri > 0 {
		parts = append(parts, plural(petri, "Petri transcript"))
	}
	if inspect > 0 {
		counted := plural(samples, "sample")
		if epochs > 1 {
			counted = plural(distinct, "sample") + " × " + plural(epochs, "epoch")
			if distinct*epochs != samples {
				counted = plural(distinct, "sample") + " × up to " + plural(epochs, "epoch") + ": " + plural(samples, "sample run")
			}
		}
		parts = append(parts, plural(inspect, "Inspect log")+" ("+counted+")")
	}
	return strings.Join(parts, " and ")
}

// Description is an experiment of logs' description: where it was
// imported from and what it holds.
func Description(source, read string) string { return "Imported from " + source + ": " + read + "." }
