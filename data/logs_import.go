package data

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"maps"
	"os"
	"path/filepath"
	"slices"
	"sort"
	"strconv"
	"strings"
	"unicode/utf8"

	"github.com/auditscope/auditscope/data/bundle"
	"github.com/auditscope/auditscope/data/inspect"
	"github.com/auditscope/auditscope/data/model"
	"github.com/auditscope/auditscope/data/petri"

	"github.com/auditscope/auditscope/data/internal/limit"

	"gonum.org/v1/gonum/stat"

	"github.com/auditscope/auditscope/data/internal/jsonin"
)

// Petri transcript files and Inspect logs are imported by presenting them
// as a bundle (a bundle.Source) to ImportBundle, so validation, atomicity,
// idempotency and storage are the bundle's: one experiment, one audit per
// transcript file or per Inspect sample × epoch, one baseline auditor per
// auditor model. docs/FORMAT.md describes the mapping.

// maxLabel caps a label made from sample metadata, in characters.
const maxLabel = 10000

// ImportPetri imports a Petri transcript file, or a folder of transcripts
// and Inspect logs (searched recursively), as one experiment.
func (s *Store) ImportPetri(ctx context.Context, path string, opts ImportOptions) (ImportResult, error) {
	return s.importLogs(ctx, path, opts)
}

// ImportInspect imports an Inspect log (.eval or .json), or a folder of
// logs and Petri transcripts (searched recursively), as one experiment.
func (s *Store) ImportInspect(ctx context.Context, path string, opts ImportOptions) (ImportResult, error) {
	return s.importLogs(ctx, path, opts)
}

func (s *Store) importLogs(ctx context.Context, path string, opts ImportOptions) (ImportResult, error) {
	if opts.Name != "" && !validName(opts.Name) {
		return ImportResult{}, fmt.Errorf("--name %q: use lower-case letters, digits, '.', '_' and '-' (e.g. %q)", opts.Name, Slugify(opts.Name))
	}
	if opts.Eval != "" && !isEval(opts.Eval) {
		return ImportResult{}, fmt.Errorf("--eval %q: want one of %s", opts.Eval, strings.Join(model.Evals, ", "))
	}
	var hash string
	var err error
	if opts.Files != nil {
		if err := CheckWithin(path, opts.Files); err != nil {
			return ImportResult{}, err
		}
		hash, err = hashFiles(path, opts.Files)
	} else {
		hash, err = hashBundle(path)
	}
	if err != nil {
		return ImportResult{}, fmt.Errorf("import %s: %w", path, err)
	}
	if opts.PrefixLogs {
		// Prefixed ids are other content than the same files imported
		// without (auditscope import of a folder of one log).
		hash = hashBytes([]byte(hash + "\x00prefix-logs"))
	}
	if opts.Eval != "" || opts.Behavior != "" {
		// The flags change what is imported: the same files with other
		// flags are other content.
		hash = hashBytes([]byte(hash + "\x00eval=" + opts.Eval + "\x00behavior=" + opts.Behavior))
	}
	if r, ok, err := s.alreadyImported(ctx, KindPetri, opts.Name, hash); err != nil || ok {
		return r, err
	}
	src, err := newLogSource(ctx, path, opts)
	if err != nil {
		return ImportResult{}, err
	}
	return s.ImportBundle(ctx, src, hash, opts)
}

// runNames are the names an import of one Inspect log takes when its file's
// name holds another run already (claimExperiment): the file's name with
// the log's model, then with its run id too. A folder, or a Petri
// transcript, has none: its name is the folder's or the file's.
func (s *logSource) runNames() []string {
	if len(s.files) != 1 || s.files[0].kind != KindInspect {
		return nil
	}
	if st, err := os.Stat(s.root); err != nil || st.IsDir() {
		return nil
	}
	f := s.files[0]
	var out []string
	name := s.exp.ID
	if m := Slugify(f.model); m != "" {
		name += "-" + m
		out = append(out, name)
	}
	if r := Slugify(f.runID); r != "" {
		out = append(out, name+"-"+r)
	}
	return out
}

func isEval(e string) bool {
	for _, x := range model.Evals {
		if x == e {
			return true
		}
	}
	return false
}

// logFile is one Petri transcript or Inspect log of an import.
type logFile struct {
	path string // as found (root joined with rel)
	rel  string // relative to the imported folder; the base name for a file
	kind string // KindPetri or KindInspect
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
	log *bundle.InspectLog
	// model and runID are the Inspect log's, to tell runs of one task apart.
	model, runID string
}

// logSource is a set of Petri transcripts and Inspect logs seen as a
// bundle. Building it reads every file once for ids, models and
// behaviors; Audits reads them again, one transcript or sample at a time.
type logSource struct {
	root     string
	opts     ImportOptions
	kind     string
	files    []*logFile
	exp      bundle.Experiment
	auditors []string
	notes    []string
	ids      []string // every audit id, in file order
}

func (s *logSource) Name() string                           { return s.root }
func (s *logSource) Kind() string                           { return s.kind }
func (s *logSource) Notes() []string                        { return s.notes }
func (s *logSource) Experiment() (bundle.Experiment, error) { return s.exp, nil }

// Transcripts and logs hold no runs, judgments, crux rows or metrics.

func (s *logSource) Runs(func(bundle.Pos, *bundle.Run) error) error           { return nil }
func (s *logSource) Judgments(func(bundle.Pos, *bundle.Judgment) error) error { return nil }
func (s *logSource) Crux(func(bundle.Pos, *bundle.Crux) error) error          { return nil }
func (s *logSource) Metrics(func(bundle.Pos, *bundle.Metric) error) error     { return nil }

func (s *logSource) ReadFile(name string) ([]byte, error) {
	return nil, fmt.Errorf("transcript files and logs have no file %s", name)
}

func (s *logSource) Auditors(fn func(bundle.Pos, *bundle.Auditor) error) error {
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
}

func (x *logIndex) claim(id, where, file string) error {
	if prev, ok := x.ids[id]; ok {
		return &model.InputError{File: file, Offset: -1, Msg: fmt.Sprintf("audit id %q is used twice: by %s and by %s", id, prev, where)}
	}
	x.ids[id] = where
	x.order = append(x.order, id)
	return nil
}

func (s *logSource) addAuditor(x *logIndex, model string) {
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

// newLogSource finds the logs under root and reads them once for audit
// ids (which must be unique), auditor models, behaviors and, for Inspect
// logs, which scorers are judge dimensions.
func newLogSource(ctx context.Context, root string, opts ImportOptions) (*logSource, error) {
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
	s := &logSource{root: root, opts: opts, kind: KindPetri, files: files}
	x := &logIndex{ids: map[string]string{}, auditors: map[string]bool{}, behaviors: map[string]bool{}}
	for _, f := range files {
		if f.kind == KindInspect {
			x.inspect++
			s.kind = KindInspect
		} else {
			x.petri++
		}
	}
	for _, f := range files {
		if err := ctx.Err(); err != nil {
			return nil, err
		}
		if f.kind == KindInspect && (x.inspect > 1 || opts.PrefixLogs) {
			f.prefix = Slugify(f.rel) + "--"
		}
		if f.kind == KindPetri {
			err = s.indexPetri(f, x)
		} else {
			err = s.indexInspect(f, x)
		}
		if err != nil {
			return nil, err
		}
	}
	s.describe(x, skipped)
	s.ids = x.order
	return s, nil
}

func (s *logSource) indexPetri(f *logFile, x *logIndex) error {
	b, err := readPetriFile(f.path, s.opts.MaxValue)
	if err != nil {
		return err
	}
	var head struct {
		Metadata json.RawMessage `json:"metadata"`
	}
	if err := petri.Decode(b, &head); err != nil {
		return logErr(f.path, err)
	}
	info, err := s.petriInfo(f, head.Metadata)
	if err != nil {
		return err
	}
	if err := x.claim(info.id, f.path, f.path); err != nil {
		return err
	}
	s.addAuditor(x, info.auditor)
	x.addBehavior(info.behavior)
	return nil
}

func (s *logSource) indexInspect(f *logFile, x *logIndex) error {
	l, err := inspect.Open(f.path, s.opts.MaxValue)
	if err != nil {
		return logErr(f.path, err)
	}
	defer l.Close()
	h := &l.Header
	f.model, f.runID = h.Eval.Model, h.Eval.RunID
	s.addAuditor(x, inspectAuditor(h))
	f.paper = s.opts.Eval != "" || s.opts.Behavior != "" || h.Eval.RoleModel("auditor") != ""
	// in[name]: every value of the scalar scorer name so far is a number
	// from 1 to 10.
	in := map[string]bool{}
	samples := 0
	err = l.Summaries(func(smp *inspect.Sample) error {
		x.samples++
		samples++
		if err := x.claim(f.prefix+smp.Key(), f.path+": "+smp.Member, f.path); err != nil {
			return err
		}
		tags, meta := inspectTags(h, smp), inspectMeta(h, smp)
		if namesAudit(tags, meta) {
			f.paper = true
		}
		_, behavior := s.classify(tags, meta, false)
		x.addBehavior(behavior)
		for name, sc := range smp.Scores {
			if isObject(sc.Value) {
				f.paper = f.paper || isJudgeScore(name, &sc)
				continue
			}
			v, isNum := jsonNumber(sc.Value)
			ok, seen := in[name]
			in[name] = (ok || !seen) && isNum && v >= 1 && v <= 10
		}
		return nil
	})
	if err != nil {
		return logErr(f.path, err)
	}
	f.dims = map[string]bool{}
	for name, ok := range in {
		// A plain Inspect scorer's 1-10 numbers stay its own column.
		if ok && f.paper {
			f.dims[name] = true
		}
	}
	f.log, err = inspectLogRecord(f, l, samples)
	return err
}

// namesAudit reports whether a sample's tags or metadata place it in the
// paper's terms: an eval kind or a behavior.
func namesAudit(tags []string, meta func(string) string) bool {
	if isEval(meta("eval")) || strings.TrimSpace(meta("behavior")) != "" {
		return true
	}
	for _, t := range tags {
		if isEval(t) || strings.HasPrefix(t, "behavior:") {
			return true
		}
	}
	return false
}

// inspectLogRecord is the header of an Inspect log as the import records
// it: its task, model, status and its scorers' reported metrics.
func inspectLogRecord(f *logFile, l *inspect.Log, samples int) (*bundle.InspectLog, error) {
	h := &l.Header
	rec := &bundle.InspectLog{Log: f.rel, Task: h.Eval.Task, Model: orUnknown(h.Eval.Model), Status: h.Status,
		Created: firstOf(h.Eval.Created, h.Stats.StartedAt), Samples: samples}
	if rec.Status == "" {
		rec.Status = "unknown"
	}
	res, err := l.ParseResults()
	if err != nil {
		return nil, logErr(f.path, err)
	}
	if res == nil {
		return rec, nil
	}
	total := res.TotalSamples
	rec.Total = &total
	type metric struct {
		Name  string   `json:"name"`
		Value *float64 `json:"value"`
	}
	type score struct {
		Name    string               `json:"name"`
		Scorer  string               `json:"scorer"`
		Metrics []metric             `json:"metrics"`
		Reduced *model.ReducedScores `json:"reduced,omitempty"`
	}
	reduced, err := reducedScores(l)
	if err != nil {
		return nil, logErr(f.path, err)
	}
	out := make([]score, 0, len(res.Scores))
	for _, sc := range res.Scores {
		o := score{Name: sc.Name, Scorer: sc.Scorer, Metrics: []metric{}}
		// A scalar scorer's reductions are under its name; a dictionary
		// scorer's under the scorer, by the key its result names; each by
		// the reducer its result was reduced with.
		red := reducerName(sc.Reducer)
		if r, ok := reduced[[3]string{sc.Name, red, ""}]; ok {
			o.Reduced = r
		} else if r, ok := reduced[[3]string{sc.Scorer, red, sc.Name}]; ok && sc.Scorer != "" {
			o.Reduced = r
		}
		for _, name := range sc.MetricNames() {
			m := metric{Name: name}
			if v, ok := sc.Metrics[name].Number(); ok {
				m.Value = &v
			}
			o.Metrics = append(o.Metrics, m)
		}
		out = append(out, o)
	}
	rec.Results, err = json.Marshal(out)
	return rec, err
}

// reducerName is a reducer as reductions.json and the results name it: none
// named is Inspect's default, the mean.
func reducerName(r string) string {
	if r == "" {
		return "mean"
	}
	return r
}

// reducedScores summarises a .eval log's epoch-reduced scores
// (reductions.json) by scorer, reducer (a scorer reduced two ways has an
// entry for each) and, for a dictionary value, key: one value per sample,
// mapped as Inspect's value_to_float does.
func reducedScores(l *inspect.Log) (map[[3]string]*model.ReducedScores, error) {
	reds, err := l.Reductions()
	if err != nil || len(reds) == 0 {
		return nil, err
	}
	return summarizeReductions(reds), nil
}

// summarizeReductions is reducedScores of reductions already read.
func summarizeReductions(reds []inspect.Reduction) map[[3]string]*model.ReducedScores {
	type acc struct {
		reducer     string
		vals        []float64
		unconverted int
	}
	by := map[[3]string]*acc{}
	add := func(k [3]string, reducer string, raw json.RawMessage) {
		a := by[k]
		if a == nil {
			a = &acc{reducer: reducer}
			by[k] = a
		}
		v, ok := inspect.ValueToFloat(raw)
		if !ok {
			a.unconverted++
		}
		a.vals = append(a.vals, v)
	}
	for _, r := range reds {
		red := reducerName(r.Reducer)
		for _, smp := range r.Samples {
			var dict map[string]json.RawMessage
			if raw := bytes.TrimSpace(smp.Value); len(raw) > 0 && raw[0] == '{' && json.Unmarshal(raw, &dict) == nil {
				for key, v := range dict {
					add([3]string{r.Scorer, red, key}, r.Reducer, v)
				}
				continue
			}
			add([3]string{r.Scorer, red, ""}, r.Reducer, smp.Value)
		}
	}
	out := make(map[[3]string]*model.ReducedScores, len(by))
	for k, a := range by {
		mean, sd := stat.MeanStdDev(a.vals, nil)
		if len(a.vals) == 1 {
			sd = 0
		}
		binary := true
		for _, v := range a.vals {
			binary = binary && (v == 0 || v == 1)
		}
		out[k] = &model.ReducedScores{Reducer: a.reducer, N: len(a.vals), Mean: mean, SD: sd, Binary: binary,
			Min: slices.Min(a.vals), Max: slices.Max(a.vals), Unconverted: a.unconverted}
	}
	return out
}

// InspectLogs hands over the headers of the Inspect logs, in path order.
func (s *logSource) InspectLogs(fn func(bundle.Pos, *bundle.InspectLog) error) error {
	for _, f := range s.files {
		if f.log == nil {
			continue
		}
		if err := fn(bundle.Pos{File: f.path}, f.log); err != nil {
			return err
		}
	}
	return nil
}

// describe names the experiment, declares its behaviors and notes what was
// read and skipped.
func (s *logSource) describe(x *logIndex, skipped []string) {
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
	if s.exp.ID = Slugify(name); s.exp.ID == "" {
		s.exp.ID = "logs"
	}
	var parts []string
	if x.petri > 0 {
		parts = append(parts, plural(x.petri, "Petri transcript"))
	}
	if x.inspect > 0 {
		parts = append(parts, plural(x.inspect, "Inspect log")+" ("+plural(x.samples, "sample")+")")
	}
	read := strings.Join(parts, " and ")
	s.exp.Description = "Imported from " + s.root + ": " + read + "."
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

// detectLogFolder tells whether a folder holds Inspect logs (KindInspect,
// even mixed with Petri transcripts), only Petri transcripts (KindPetri),
// or neither ("").
func detectLogFolder(root string) (string, error) {
	files, _, err := listLogs(root)
	if err != nil {
		return "", err
	}
	kind := ""
	for _, f := range files {
		if f.kind == KindInspect {
			return KindInspect, nil
		}
		kind = KindPetri
	}
	return kind, nil
}

// logKind tells a Petri transcript from an Inspect log by extension and
// top-level keys; "" is neither. Broken JSON is an error: it is more
// likely a damaged log than a file to skip.
func logKind(path string) (string, error) {
	switch strings.ToLower(filepath.Ext(path)) {
	case ".eval":
		return KindInspect, nil
	case ".json":
	default:
		return "", nil
	}
	kind, _, err := jsonKindOf(path)
	if err != nil {
		return "", err
	}
	if kind == KindPetri || kind == KindInspect {
		return kind, nil
	}
	return "", nil
}

// readPetriFile reads a transcript file, without a UTF-8 byte-order mark.
// A transcript is one JSON document, read whole: maxValue limits it.
func readPetriFile(path string, maxValue int64) ([]byte, error) {
	st, err := os.Stat(path)
	if err != nil {
		return nil, fmt.Errorf("import: %w", err)
	}
	if maxValue = limit.Or(maxValue); st.Size() > maxValue {
		return nil, &model.InputError{File: path, Offset: -1, Msg: limit.Message("the transcript file", maxValue)}
	}
	b, err := os.ReadFile(path)
	if err != nil {
		return nil, fmt.Errorf("import: %w", err)
	}
	// encoding/json would turn invalid UTF-8 into U+FFFD in what it decodes
	// while the file's bytes are stored as given: refuse it.
	if i := jsonin.FirstInvalidUTF8(b); i >= 0 {
		return nil, &model.InputError{File: path, Offset: int64(i), Line: lineAt(path, int64(i)), Msg: "not valid UTF-8"}
	}
	return bytes.TrimPrefix(b, jsonin.BOM), nil
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
			out.Line = lineAt(le.File, le.Offset)
		}
		return out
	case errors.As(err, &pe):
		out := &model.InputError{File: file, Offset: pe.Offset, Path: pe.Path, Msg: pe.Msg}
		if pe.Offset >= 0 {
			out.Line = lineAt(file, pe.Offset)
		}
		return out
	case errors.As(err, &be):
		return &model.InputError{File: be.File, Line: be.Line, Offset: -1, Path: be.Field, Msg: be.Msg}
	}
	return fmt.Errorf("import %s: %w", file, err)
}

// petriInfo is what an audit takes from a transcript's metadata.
type petriInfo struct {
	id, auditor, target, eval, behavior, seed string
	md                                        petri.Metadata
}

// petriInfo reads a transcript's metadata block.
func (s *logSource) petriInfo(f *logFile, raw json.RawMessage) (petriInfo, error) {
	var info petriInfo
	if len(raw) == 0 {
		return info, &model.InputError{File: f.path, Offset: -1, Path: "metadata", Msg: "missing: a Petri transcript has a metadata object"}
	}
	if err := petri.Decode(raw, &info.md); err != nil {
		return info, logErr(f.path, prefixParseErr("metadata", err))
	}
	var extra map[string]json.RawMessage
	if err := petri.Decode(raw, &extra); err != nil {
		return info, logErr(f.path, prefixParseErr("metadata", err))
	}
	md := &info.md
	info.id = md.TranscriptID
	if info.id == "" {
		info.id = Slugify(strings.TrimSuffix(f.rel, filepath.Ext(f.rel)))
	}
	info.auditor = orUnknown(md.AuditorModel)
	info.target = orUnknown(md.TargetModel)
	meta := func(key string) string { return jsonString(extra[key]) }
	info.eval, info.behavior = s.classify(md.Tags, meta, true)
	info.seed = meta("seed")
	if info.seed == "" && md.Description != "" {
		info.seed = descriptionSeed(md.Description)
	}
	return info, nil
}

func prefixParseErr(prefix string, err error) error {
	var pe *petri.ParseError
	if errors.As(err, &pe) {
		return &petri.ParseError{Path: petri.JoinPath(prefix, pe.Path), Offset: -1, Msg: pe.Msg}
	}
	return err
}

func orUnknown(s string) string {
	if strings.TrimSpace(s) == "" {
		return "unknown"
	}
	return s
}

// descriptionSeed names the scenario a transcript started from by its
// special instructions: audits of the same instructions share a seed.
func descriptionSeed(desc string) string {
	slug := Slugify(desc)
	if len(slug) > 48 {
		slug = strings.TrimRight(slug[:48], "-.")
	}
	return slug + "-" + hashBytes([]byte(desc))[:8]
}

// classify picks an audit's eval kind and behavior: the --eval and
// --behavior flags; else the metadata fields eval (when it names an eval
// kind) and behavior; else the tags: a tag equal to an eval kind, a tag
// behavior:NAME. With convention (Petri transcripts), tags written the way
// auditscope writes them, [eval] or [eval, behavior], give the behavior
// too.
func (s *logSource) classify(tags []string, meta func(string) string, convention bool) (eval, behavior string) {
	eval, behavior = s.opts.Eval, s.opts.Behavior
	if eval == "" {
		if e := meta("eval"); isEval(e) {
			eval = e
		}
	}
	if behavior == "" {
		behavior = strings.TrimSpace(meta("behavior"))
	}
	evalTag := ""
	var bare []string
	for _, t := range tags {
		switch {
		case isEval(t) && evalTag == "":
			evalTag = t
		case strings.HasPrefix(t, "behavior:"):
			if behavior == "" {
				behavior = strings.TrimSpace(strings.TrimPrefix(t, "behavior:"))
			}
		case !strings.Contains(t, ":") && !isEval(t):
			bare = append(bare, t)
		}
	}
	if eval == "" {
		eval = evalTag
	}
	if behavior == "" && convention && evalTag != "" && len(bare) == 1 && len(tags) == 2 {
		behavior = bare[0]
	}
	if eval == "" {
		eval = model.EvalAuditQuality
	}
	return eval, behavior
}

// jsonString returns a JSON string's text ("" for other values).
func jsonString(raw json.RawMessage) string {
	var s string
	if len(raw) == 0 || json.Unmarshal(raw, &s) != nil {
		return ""
	}
	return s
}

// jsonNumber returns a JSON number's value.
func jsonNumber(raw json.RawMessage) (float64, bool) {
	raw = bytes.TrimSpace(raw)
	if len(raw) == 0 || !(raw[0] == '-' || raw[0] >= '0' && raw[0] <= '9') {
		return 0, false
	}
	v, err := strconv.ParseFloat(string(raw), 64)
	return v, err == nil
}

func isObject(raw json.RawMessage) bool {
	raw = bytes.TrimSpace(raw)
	return len(raw) > 0 && raw[0] == '{'
}

// jsonText is a JSON value as label text: strings as they are, other
// values as JSON, at most maxLabel characters.
func jsonText(raw json.RawMessage) string {
	var s string
	if err := json.Unmarshal(raw, &s); err != nil {
		var buf bytes.Buffer
		if json.Compact(&buf, raw) == nil {
			s = buf.String()
		} else {
			s = string(bytes.TrimSpace(raw))
		}
	}
	if utf8.RuneCountInString(s) > maxLabel {
		r := []rune(s)
		s = string(r[:maxLabel]) + "…"
	}
	return s
}

func (s *logSource) Audits(fn func(bundle.Pos, *bundle.Audit, json.RawMessage) error) error {
	for _, f := range s.files {
		var err error
		if f.kind == KindPetri {
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

// petriAudit reads one transcript file as an audit; the transcript is
// stored as the file gives it.
func (s *logSource) petriAudit(f *logFile, fn func(bundle.Pos, *bundle.Audit, json.RawMessage) error) error {
	b, err := readPetriFile(f.path, s.opts.MaxValue)
	if err != nil {
		return err
	}
	t, err := petri.Parse(b)
	if err != nil {
		return logErr(f.path, err)
	}
	var head struct {
		Metadata json.RawMessage `json:"metadata"`
	}
	if err := json.Unmarshal(b, &head); err != nil {
		return logErr(f.path, err)
	}
	info, err := s.petriInfo(f, head.Metadata)
	if err != nil {
		return err
	}
	views, err := t.Views()
	if err != nil {
		var re *petri.ReplayError
		if errors.As(err, &re) {
			return &model.InputError{File: f.path, Offset: -1, Path: fmt.Sprintf("events[%d]", re.Event), Msg: re.Msg}
		}
		return logErr(f.path, err)
	}
	a := &bundle.Audit{ID: info.id, Auditor: info.auditor, Eval: info.eval, Behavior: info.behavior, Seed: info.seed,
		Target: info.target, Turns: petri.Turns(views), Transcript: t, Labels: map[string]string{"source": f.rel}}
	if len(t.Metadata.Tags) > 0 {
		a.Labels["tags"] = strings.Join(t.Metadata.Tags, ", ")
	}
	if jo := t.Metadata.JudgeOutput; jo != nil {
		a.Summary = jo.Summary
		dims := make([]string, 0, len(jo.Scores))
		for d := range jo.Scores {
			dims = append(dims, d)
		}
		sort.Strings(dims)
		for _, d := range dims {
			if v := jo.Scores[d]; !(v >= 1 && v <= 10) {
				return &model.InputError{File: f.path, Offset: -1, Path: "metadata.judge_output.scores." + d, Msg: fmt.Sprintf("want a score from 1 to 10, found %v", v)}
			}
		}
		if len(jo.Scores) > 0 {
			a.Scores = jo.Scores
		}
	}
	return fn(bundle.Pos{File: f.path}, a, b)
}

// inspectAuditor is the model that plays the auditor: the auditor role's
// model (Petri runs as an Inspect task with roles), else the eval's model.
func inspectAuditor(h *inspect.Header) string {
	if m := h.Eval.RoleModel("auditor"); m != "" {
		return m
	}
	return orUnknown(h.Eval.Model)
}

// inspectTags are the eval's tags and the sample's metadata tags.
func inspectTags(h *inspect.Header, smp *inspect.Sample) []string {
	tags := append([]string(nil), h.Eval.Tags...)
	var more []string
	if raw, ok := smp.Metadata["tags"]; ok && json.Unmarshal(raw, &more) == nil {
		tags = append(tags, more...)
	}
	return tags
}

// inspectMeta looks a key up in the sample's metadata, then the eval's.
func inspectMeta(h *inspect.Header, smp *inspect.Sample) func(string) string {
	return func(key string) string {
		if v := jsonString(smp.Metadata[key]); v != "" {
			return v
		}
		return jsonString(h.Eval.Metadata[key])
	}
}

// reservedLabels are the labels an Inspect sample gets besides its
// metadata; metadata keys of these names are prefixed with "metadata.".
var reservedLabels = map[string]bool{"task": true, "sample": true, "epoch": true, "source": true, "status": true, "error": true, "tags": true}

// inspectAudits reads an Inspect log's samples as audits; each transcript
// is the sample's conversation converted to a legacy Petri transcript.
func (s *logSource) inspectAudits(f *logFile, fn func(bundle.Pos, *bundle.Audit, json.RawMessage) error) error {
	l, err := inspect.Open(f.path, s.opts.MaxValue)
	if err != nil {
		return logErr(f.path, err)
	}
	defer l.Close()
	h := &l.Header
	auditor := inspectAuditor(h)
	err = l.Samples(func(smp *inspect.Sample) error {
		a, t, err := s.inspectAudit(f, h, auditor, smp)
		if err != nil {
			return err
		}
		raw, err := json.Marshal(t)
		if err != nil {
			return fmt.Errorf("%s: %s: %w", f.path, smp.Member, err)
		}
		return fn(bundle.Pos{File: f.path + ": " + smp.Member}, a, raw)
	})
	if err != nil {
		return logErr(f.path, err)
	}
	return nil
}

func (s *logSource) inspectAudit(f *logFile, h *inspect.Header, auditor string, smp *inspect.Sample) (*bundle.Audit, *petri.Transcript, error) {
	tags := inspectTags(h, smp)
	meta := inspectMeta(h, smp)
	labels := inspectLabels(f, h, smp, tags)
	sc, err := inspectScores(f, smp, labels)
	if err != nil {
		return nil, nil, err
	}
	a := &bundle.Audit{ID: f.prefix + smp.Key(), Auditor: auditor, Seed: f.prefix + smp.ID, Labels: labels,
		Scorers: sc.scorers, Columns: sc.columns}
	if f.paper {
		a.Eval, a.Behavior = s.classify(tags, meta, false)
		a.Target = meta("target_model")
		if a.Target == "" {
			a.Target = h.Eval.RoleModel("target")
		}
		if a.Target == "" {
			a.Target = orUnknown(h.Eval.Model)
		}
	} else {
		// A plain Inspect sample: no eval, behavior or target to invent.
		a.Sample = true
	}
	if len(sc.dims) > 0 {
		a.Scores = sc.dims
	}
	if sc.judge != nil {
		a.Summary = sc.judge.Summary
	} else {
		a.Summary = strings.Join(sc.summary, "; ")
	}
	for _, m := range smp.Messages {
		if m.Role == "user" {
			a.Turns++
		}
	}
	created := firstOf(smp.StartedAt, h.Eval.Created, h.Stats.StartedAt)
	t := &petri.Transcript{
		Metadata: petri.Metadata{
			TranscriptID: a.ID,
			AuditorModel: auditor,
			TargetModel:  a.Target,
			CreatedAt:    created,
			UpdatedAt:    firstOf(smp.CompletedAt, h.Stats.CompletedAt, created),
			Version:      "v3.0",
			Description:  smp.Input,
			Tags:         tags,
			JudgeOutput:  sc.judge,
		},
		Messages: smp.Messages,
	}
	a.Transcript = t
	return a, t, nil
}

// inspectLabels are a sample's labels: where it comes from, its status,
// tags and metadata.
func inspectLabels(f *logFile, h *inspect.Header, smp *inspect.Sample, tags []string) map[string]string {
	labels := map[string]string{"task": h.Eval.Task, "sample": smp.ID, "epoch": strconv.Itoa(smp.Epoch), "source": f.rel}
	// A running log's status is its header's, which changes as it finishes
	// (the scorer table shows it); a sample's labels stay as imported.
	if h.Status != "" && h.Status != "success" && h.Status != inspect.StatusStarted {
		labels["status"] = h.Status
	}
	if smp.Error != "" {
		labels["error"] = smp.Error
	}
	if len(tags) > 0 {
		labels["tags"] = strings.Join(tags, ", ")
	}
	for k, v := range smp.Metadata {
		if reservedLabels[k] || strings.HasPrefix(k, "score:") {
			k = "metadata." + k
		}
		labels[k] = jsonText(v)
	}
	return labels
}

// sampleScores is what a sample's scores become: judge dimensions, the
// Petri judge's output if a scorer is one, every score as the scorer gave
// it, the numbers filed as score columns, and a line per scorer for the
// summary.
type sampleScores struct {
	dims    map[string]float64
	judge   *petri.JudgeOutput
	scorers []bundle.SampleScore
	columns map[string]float64
	summary []string
}

// inspectScores reads a sample's scores. In a Petri log, a number from 1
// to 10 is a judge dimension (a scalar scorer only when all its numbers in
// the log are in range). Every other number value_to_float can read is a
// score column of the scorer's name (scorer.key for a dictionary value).
func inspectScores(f *logFile, smp *inspect.Sample, labels map[string]string) (sampleScores, error) {
	out := sampleScores{dims: map[string]float64{}, columns: map[string]float64{}}
	// record keeps one score; judge tells a judge dimension, inJudge any key
	// of a judge's scores (an out-of-range one is not a column of its own).
	record := func(name, key string, raw json.RawMessage, sc *inspect.Score, judge, inJudge bool) {
		num, ok := inspect.ValueToFloat(raw)
		ss := bundle.SampleScore{Log: f.rel, Scorer: name, Key: key, Value: jsonText(raw), Num: num, Converted: ok, Judge: judge}
		if key == "" {
			ss.Answer, ss.Explanation = sc.Answer, sc.Explanation
		}
		out.scorers = append(out.scorers, ss)
		col := name
		if key != "" {
			col = name + "." + key
		}
		if _, taken := out.dims[col]; ok && !inJudge && !taken {
			out.columns[col] = num
		}
	}
	for _, name := range slices.Sorted(maps.Keys(smp.Scores)) {
		sc := smp.Scores[name]
		if !isObject(sc.Value) {
			v, isNum := jsonNumber(sc.Value)
			dim := isNum && f.dims[name]
			if dim {
				out.dims[name] = v
			} else if f.paper {
				labels["score:"+name] = jsonText(sc.Value)
			}
			record(name, "", sc.Value, &sc, dim, dim)
			line := name + ": " + jsonText(sc.Value)
			if sc.Answer != "" {
				line += " (answer: " + truncate(sc.Answer, 200) + ")"
			}
			out.summary = append(out.summary, line)
			continue
		}
		var parts map[string]json.RawMessage
		if err := json.Unmarshal(sc.Value, &parts); err != nil {
			return out, &inspect.Error{File: f.path, Member: smp.Member, Path: "scores." + name + ".value", Offset: -1, Msg: err.Error()}
		}
		judge := f.paper && isJudgeScore(name, &sc)
		own := map[string]float64{}
		for _, k := range slices.Sorted(maps.Keys(parts)) {
			v, ok := jsonNumber(parts[k])
			if !f.paper || !ok || v < 1 || v > 10 {
				if f.paper {
					labels["score:"+name+"."+k] = jsonText(parts[k])
				}
				record(name, k, parts[k], &sc, false, judge)
				continue
			}
			dim := k
			if _, taken := out.dims[dim]; taken {
				dim = name + "." + k
			}
			out.dims[dim] = v
			own[k] = v
			record(name, k, parts[k], &sc, true, true)
		}
		if len(parts) > 0 && !judge {
			// A dictionary scorer's answer and explanation belong to it as a
			// whole: kept once, on its first key.
			first := &out.scorers[len(out.scorers)-len(parts)]
			first.Answer, first.Explanation = sc.Answer, sc.Explanation
		}
		if out.judge == nil && judge {
			jo, jerr := judgeOutput(&sc, own)
			if jerr != nil {
				return out, &inspect.Error{File: f.path, Member: smp.Member, Path: "scores." + name + ".metadata." + jerr.path, Offset: -1, Msg: jerr.msg}
			}
			out.judge = jo
		}
	}
	return out, nil
}

func firstOf(vals ...string) string {
	for _, v := range vals {
		if v != "" {
			return v
		}
	}
	return ""
}

func truncate(s string, n int) string {
	if utf8.RuneCountInString(s) <= n {
		return s
	}
	return string([]rune(s)[:n]) + "…"
}

// isJudgeScore tells a Petri alignment-judge score: an object of
// dimensions whose metadata carries highlights or score descriptions.
func isJudgeScore(name string, sc *inspect.Score) bool {
	_, hl := sc.Metadata["highlights"]
	_, sd := sc.Metadata["score_descriptions"]
	return hl || sd || strings.Contains(name, "judge")
}

type judgeErr struct{ path, msg string }

// judgeOutput builds the judge verdict of a Petri judge score: answer is
// the summary, explanation the justification; the metadata supplies the
// response, the score descriptions and the highlights.
func judgeOutput(sc *inspect.Score, scores map[string]float64) (*petri.JudgeOutput, *judgeErr) {
	jo := &petri.JudgeOutput{Summary: sc.Answer, Justification: sc.Explanation, Scores: scores,
		Response: jsonString(sc.Metadata["response"])}
	if raw, ok := sc.Metadata["score_descriptions"]; ok && !bytes.Equal(bytes.TrimSpace(raw), []byte("null")) {
		if err := petri.Decode(raw, &jo.ScoreDescriptions); err != nil {
			return nil, parseErrPath("score_descriptions", err)
		}
	}
	if raw, ok := sc.Metadata["highlights"]; ok && !bytes.Equal(bytes.TrimSpace(raw), []byte("null")) {
		if err := petri.Decode(raw, &jo.Highlights); err != nil {
			return nil, parseErrPath("highlights", err)
		}
	}
	return jo, nil
}

func parseErrPath(prefix string, err error) *judgeErr {
	var pe *petri.ParseError
	if errors.As(err, &pe) {
		return &judgeErr{petri.JoinPath(prefix, pe.Path), pe.Msg}
	}
	return &judgeErr{prefix, err.Error()}
}
