package data

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"time"

	"github.com/auditscope/auditscope/data/bundle"
	"github.com/auditscope/auditscope/data/logs"
	"github.com/auditscope/auditscope/data/model"

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
	// DeferScores leaves the long audit_scores table to BuildPendingScores,
	// which the built-in demo runs once the server is up: it is a second of
	// start-up. Until then score filters read each audit's scores JSON.
	DeferScores bool
}

// errUnchanged aborts an import whose content is already in the store.
var errUnchanged = load.ErrUnchanged

// Claim decides what an import may do with the name it targets: a no-op when
// the same content is there (errUnchanged), an error when other content is
// there and replace is off. With replace on, the old generation stays until
// the new one is marked complete, and inImport deletes it then.
func (tx *importTx) Claim(kind, name, hash string, replace bool) error {
	return tx.ClaimLater(kind, name, func() (string, error) { return hash, nil }, replace)
}

// ClaimLater is claim for an import whose hash is still being worked out:
// it waits for it only when the name was imported before.
func (tx *importTx) ClaimLater(kind, name string, hashOf func() (string, error), replace bool) error {
	if b := batchOf(tx.ctx); b != nil {
		if err := b.claimName(kind, name); err != nil {
			return fmt.Errorf("%w: %s %q: %w; give one of them another name (import it alone with --name)", ErrExists, familySQLName(kind), name, err)
		}
	}
	var oldHash, oldSource string
	var oldID int64
	err := tx.conn.QueryRowContext(tx.ctx,
		`SELECT id, hash, source FROM imports WHERE name = ? AND base IS NULL AND kind IN (SELECT unnest(?::VARCHAR[])) ORDER BY id DESC LIMIT 1`,
		name, familyOf(kind)).Scan(&oldID, &oldHash, &oldSource)
	switch {
	case errors.Is(err, errNoRows):
		return nil
	case err != nil:
		return fmt.Errorf("check existing %s: %w", name, err)
	}
	var appends int
	if err := tx.conn.QueryRowContext(tx.ctx, `SELECT count(*) FROM imports WHERE base = ?`, oldID).Scan(&appends); err != nil {
		return fmt.Errorf("check existing %s: %w", name, err)
	}
	hash, err := hashOf()
	if err != nil {
		return err
	}
	// Appends make the content differ from the base's hash.
	if oldHash == hash && appends == 0 {
		return errUnchanged
	}
	if !replace {
		// --replace is offered only for a new version of the same input:
		// for another input that happens to take the name (another run of
		// a task, a folder of the same name elsewhere) it would drop that
		// one's data.
		what := familySQLName(kind)
		if !sameSource(oldSource, tx.source) {
			return fmt.Errorf("%w: %s %q holds another input already (%s); import this one under another name with --name (--replace would drop that %s)", ErrExists, what, name, oldSource, what)
		}
		return fmt.Errorf("%w: %s %q was imported before from %s with different content; use --replace to replace it", ErrExists, what, name, oldSource)
	}
	tx.superseded = append(tx.superseded, oldID)
	// Its appends go with it.
	rows, err := tx.conn.QueryContext(tx.ctx, `SELECT id FROM imports WHERE base = ?`, oldID)
	if err != nil {
		return fmt.Errorf("check existing %s: %w", name, err)
	}
	defer rows.Close()
	for rows.Next() {
		var id int64
		if err := rows.Scan(&id); err != nil {
			return err
		}
		tx.superseded = append(tx.superseded, id)
	}
	return rows.Err()
}

func isExperimentKind(kind string) bool {
	return kind == model.KindBundle || kind == model.KindPetri || kind == model.KindInspect
}

// familyOf lists the kinds that share a namespace with kind: datasets and
// experiments are named separately.
func familyOf(kind string) []string {
	if isExperimentKind(kind) {
		return []string{model.KindBundle, model.KindPetri, model.KindInspect}
	}
	return []string{model.KindAnnotatedPairs, model.KindPreferenceCSV}
}

// Record keeps the imports row, which inImport writes once the import's
// rows have committed, and returns its id: the import's generation. The
// row count is read from r then, as the importer sets it last.
func (tx *importTx) Record(r *model.ImportResult) (int64, error) {
	detail, err := json.Marshal(map[string]any{"counts": r.Counts, "notes": r.Notes})
	if err != nil {
		return 0, err
	}
	tx.marker = &importMarker{kind: r.Kind, name: r.Name, source: r.Source, hash: r.Hash, result: r, detail: string(detail), at: time.Now().UTC()}
	return tx.gen, nil
}

// alreadyImported finds an import of the same kind family with this hash
// (and this name, when one is given), so repeated imports are no-ops without
// reading the file again.
func (s *Store) alreadyImported(ctx context.Context, kind, name, hash string) (model.ImportResult, bool, error) {
	var r model.ImportResult
	err := s.db.QueryRowContext(ctx,
		`SELECT kind, name, source FROM imports i WHERE hash = ? AND base IS NULL AND kind IN (SELECT unnest(?::VARCHAR[])) AND (? = '' OR name = ?)
			AND NOT EXISTS (SELECT 1 FROM imports x WHERE x.base = i.id) ORDER BY id DESC LIMIT 1`,
		hash, familyOf(kind), name, name).Scan(&r.Kind, &r.Name, &r.Source)
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
		return "", &model.InputError{File: path, Offset: -1, Msg: "not an AnnotatedPairs, Petri or Inspect file: none of comparisons, events or samples at the top level"}
	}
	return kind, nil
}

// sameSource reports whether two import sources name the same input: the
// same path, or the same file or folder reached another way.
func sameSource(a, b string) bool {
	if a == "" || b == "" {
		return a == b
	}
	if filepath.Clean(a) == filepath.Clean(b) {
		return true
	}
	sa, err1 := os.Stat(a)
	sb, err2 := os.Stat(b)
	return err1 == nil && err2 == nil && os.SameFile(sa, sb)
}
