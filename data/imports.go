package data

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"

	"github.com/auditscope/auditscope/data/bundle"
	"github.com/auditscope/auditscope/data/internal/regular"
	"github.com/auditscope/auditscope/data/logs"
	"github.com/auditscope/auditscope/data/model"

	"github.com/auditscope/auditscope/data/internal/digest"
	"github.com/auditscope/auditscope/data/internal/imports"
	"github.com/auditscope/auditscope/data/internal/jsonin"
	"github.com/auditscope/auditscope/data/internal/load"
)

// ImportOptions control one import.
type ImportOptions struct {
	// Name is the dataset or experiment id; empty derives it from the file.
	Name string
	// Replace allows replacing an existing dataset or experiment of the same
	// name whose content differs.
	Replace bool
	// Progress, when set, is called with bytes read so far and the total.
	Progress func(done, total int64)
	// Synthetic marks the imported data as synthetic demo data.
	Synthetic bool
	// Eval and Behavior, for Petri transcripts and Inspect logs, set every
	// audit's eval kind (one of model.Evals) and planted behavior, over what
	// the files' tags and metadata say.
	Eval     string
	Behavior string
	// Transcripts, for an in-memory bundle, serves each audit's transcript
	// JSON on demand instead of storing it: the built-in demo generates its
	// transcripts when a page asks, which keeps start-up fast. The store
	// holds the function for the life of the process.
	Transcripts func(auditID string) ([]byte, error)
	// MaxValue limits one value of the input, in bytes: a comparison, a CSV
	// record, a JSONL line, a transcript file, a zip member, an Inspect
	// sample. 0 means limit.Default (96 MiB). A larger value is refused with
	// its place and the flag that raises the limit.
	MaxValue int64
	// Texts, for an AnnotatedPairs file, merges prompts and responses from a
	// base dataset by a metadata key (see TextsMerge).
	Texts *TextsMerge
	// Files, for a folder of Petri transcripts and Inspect logs, imports
	// only these files (paths relative to the folder) instead of every log
	// under it: serve --watch leaves out bundles and datasets in the same
	// folder, and files it could not read.
	Files []string
	// PrefixLogs starts every Inspect sample's audit id with its log's path,
	// even when the import holds one log, so that the ids do not depend on
	// how many logs a watched folder held when they were imported.
	PrefixLogs bool
	// Source, when set, is what the import's source is recorded as: the
	// URL of the bucket prefix a local copy was fetched from.
	Source string
	// DeferScores leaves the long audit_scores table to BuildPendingScores,
	// which the built-in demo runs once the server is up: it is a second of
	// start-up. Until then score filters read each audit's scores JSON.
	DeferScores bool
}

// errUnchanged aborts an import whose content is already in the store.
var errUnchanged = load.ErrUnchanged

// alreadyImported finds an import of the same kind family with this hash
// (and this name, when one is given), so repeated imports are no-ops without
// reading the file again.
func (s *Store) alreadyImported(ctx context.Context, kind, name, hash string) (model.ImportResult, bool, error) {
	var r model.ImportResult
	err := s.db.QueryRowContext(ctx,
		`SELECT kind, name, source FROM imports i WHERE hash = ? AND base IS NULL AND kind IN (SELECT unnest(?::VARCHAR[])) AND (? = '' OR name = ?)
			AND NOT EXISTS (SELECT 1 FROM imports x WHERE x.base = i.id) ORDER BY id DESC LIMIT 1`,
		hash, imports.Family(kind), name, name).Scan(&r.Kind, &r.Name, &r.Source)
	if errors.Is(err, errNoRows) {
		return r, false, nil
	}
	if err != nil {
		return r, false, fmt.Errorf("data: check import: %w", err)
	}
	r.Hash, r.Unchanged = hash, true
	return r, true, nil
}

// Import imports one file or folder, detecting its kind.
func (s *Store) Import(ctx context.Context, path string, opts ImportOptions) ([]model.ImportResult, error) {
	if opts.Name != "" && !model.ValidName(opts.Name) {
		return nil, fmt.Errorf("--name %q: use lower-case letters, digits, '.', '_' and '-' (e.g. %q)", opts.Name, model.Slugify(opts.Name))
	}
	kind, err := DetectKind(path)
	if err != nil {
		return nil, err
	}
	var r model.ImportResult
	switch kind {
	case model.KindAnnotatedPairs:
		r, err = s.ImportAnnotatedPairs(ctx, path, opts)
	case model.KindPreferenceCSV:
		r, err = s.ImportPreferenceCSV(ctx, path, opts)
	case model.KindBundle:
		r, err = s.ImportBundleFile(ctx, path, opts)
	case model.KindPetri:
		r, err = s.ImportPetri(ctx, path, opts)
	case model.KindInspect:
		r, err = s.ImportInspect(ctx, path, opts)
	default:
		return nil, &model.InputError{File: path, Offset: -1, Msg: fmt.Sprintf("%s files are not supported", kind)}
	}
	if err != nil {
		return nil, err
	}
	return []model.ImportResult{r}, nil
}

// DetectKind tells what an import path holds, by its extension and, for
// JSON, by its top-level keys.
func DetectKind(path string) (string, error) {
	st, err := os.Stat(path)
	if err != nil {
		return "", fmt.Errorf("import: %w", err)
	}
	if st.IsDir() {
		if _, err := os.Stat(filepath.Join(path, bundle.FileExperiment)); err == nil {
			return model.KindBundle, nil
		}
		// A bundle without its experiment.json is refused, as the same
		// bundle zipped is, rather than read as a folder of the Petri
		// transcripts it may hold.
		for _, f := range []string{bundle.FileAudits, bundle.FileAuditors, bundle.FileRuns, bundle.FileJudgments, bundle.FileCrux, bundle.FileMetrics} {
			if _, err := os.Stat(filepath.Join(path, f)); err == nil {
				return "", &model.InputError{File: path, Offset: -1, Msg: "folder has " + f + " but no experiment.json at its top level (an auditscope bundle needs one)"}
			}
		}
		// A folder of Petri transcripts and Inspect logs.
		if kind, err := logs.DetectFolder(path); err != nil || kind != "" {
			return kind, err
		}
		return "", &model.InputError{File: path, Offset: -1, Msg: "folder has no experiment.json (an auditscope bundle needs one) and no Petri transcripts or Inspect logs (.json, .eval)"}
	}
	if !st.Mode().IsRegular() {
		// Never opened: a named pipe would wait for a writer forever.
		return "", &model.InputError{File: path, Offset: -1, Msg: regular.Kind(st.Mode()) + ", not a regular file: only regular files are read"}
	}
	if st.Size() == 0 {
		return "", &model.InputError{File: path, Offset: -1, Msg: "the file is empty (0 bytes): nothing to import"}
	}
	switch strings.ToLower(filepath.Ext(path)) {
	case ".csv":
		return model.KindPreferenceCSV, nil
	case ".zip":
		return model.KindBundle, nil
	case ".eval":
		return model.KindInspect, nil
	case ".json":
		return sniffJSON(path)
	}
	return "", &model.InputError{File: path, Offset: -1, Msg: "unknown file type: want an AnnotatedPairs, Petri or Inspect .json, an Inspect .eval, a preference .csv, or a bundle folder or .zip"}
}

// sniffJSON reads top-level keys until one tells the format apart.
func sniffJSON(path string) (string, error) {
	kind, object, err := jsonin.Sniff(path)
	switch {
	case err != nil:
		return "", err
	case !object:
		return "", &model.InputError{File: path, Offset: 0, Line: 1, Msg: "want a JSON object at the top level"}
	case kind == "":
		return "", &model.InputError{File: path, Offset: -1, Msg: "not an AnnotatedPairs, Petri or Inspect file: want comparisons (AnnotatedPairs), metadata beside events or messages (a Petri transcript), or eval and samples (an Inspect log) at the top level"}
	}
	return kind, nil
}

// ImportAll imports every path, each with the options opts gives it, as one
// batch: all of them land, or none does.
func (s *Store) ImportAll(ctx context.Context, paths []string, opts func(path string) ImportOptions) ([]model.ImportResult, error) {
	bctx, b := imports.WithBatch(ctx)
	var out []model.ImportResult
	// A file given twice, or two byte-identical files, count once: the
	// later is "unchanged", as it would be imported after the first.
	first := map[string]model.ImportResult{}
	for _, p := range paths {
		h := ""
		if st, err := os.Stat(p); err == nil && st.Mode().IsRegular() {
			if h, err = digest.File(p); err != nil {
				return nil, errors.Join(fmt.Errorf("import: %w", err), s.imp.DropBatch(ctx, b))
			}
			if r, ok := first[h]; ok {
				out = append(out, model.ImportResult{Kind: r.Kind, Name: r.Name, Source: r.Source, Hash: r.Hash, Unchanged: true})
				continue
			}
		}
		rs, err := s.Import(bctx, p, opts(p))
		if err != nil {
			return nil, errors.Join(err, s.imp.DropBatch(ctx, b))
		}
		if h != "" && len(rs) == 1 {
			first[h] = rs[0]
		}
		out = append(out, rs...)
	}
	if err := s.imp.MarkBatch(ctx, b); err != nil {
		return nil, err
	}
	return out, nil
}
