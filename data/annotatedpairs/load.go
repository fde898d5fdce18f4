package annotatedpairs

import (
	"encoding/json"
	"errors"
	"fmt"
	"hash/maphash"
	"maps"
	"path/filepath"
	"strconv"
	"strings"

	"github.com/auditscope/auditscope/data/internal/limit"
	"github.com/auditscope/auditscope/data/internal/load"
	"github.com/auditscope/auditscope/data/model"
)

// Loader receives a dataset as it is decoded (it is the Sink of Decode and
// DecodeCSV) and appends it to the store's tables in the import's
// transaction: comparisons, their metadata, the annotators, then the
// dataset's own row, which says the rest is in.
type Loader struct {
	tx        Tx
	file      string
	dataset   string // id rows are appended under
	finalName string // id once known (may differ when metadata comes late)
	nameFixed bool   // --name given
	claimed   bool
	hash      string
	// hashing, when set, gives the hash, which is worked out beside the
	// import (see ImportAnnotatedPairs); hash is "" until it has.
	hashing func() Hash
	// unchangedAs is the earlier import of the same content that an
	// import found at its end (load.ErrUnchanged).
	unchangedAs *model.ImportResult
	replace     bool
	synthetic   bool
	format      string

	meta        Metadata
	haveMeta    bool
	annIdx      map[string]int
	annIDs      []string
	annDecl     map[string]Annotator
	declOrder   []string
	metaKeys    []string
	metaKeySeen map[string]bool
	seenIDs     map[idKey]struct{}
	idSeed      [2]maphash.Seed
	dropped     int
	n           int
	votes       int64
	withText    int // comparisons with a prompt or a response text
	merge       func(dataset string) (matched int, note string, err error)
	mergeNote   string

	cmp, meta2 load.Appender

	// maxNames bounds the annotators and the metadata keys a dataset
	// names (MaxNames); err is the first bound passed.
	maxNames int
	err      error
}

// MaxNames is the most annotators, and the most metadata keys, one dataset
// may name under the limit max on one value: 20,000 at the default, raised
// with it. Each comparison's row keeps a vote slot per annotator, and each
// name is held for the whole import: 40 comparisons naming 150,000 new
// annotators each took 1.2 GiB and failed in DuckDB. Real datasets name a
// few hundred at most (ICAI's principles).
func MaxNames(maxValue int64) int {
	return int(20_000 * max(1, limit.Or(maxValue)/limit.Default))
}

// namesErr is the error of a dataset past MaxNames.
func (l *Loader) namesErr(what string) error {
	return &model.InputError{File: l.file, Offset: -1, Path: what,
		Msg: limit.Count("the dataset names", uint64(l.maxNames), what)}
}

// Tx is the import's transaction as the loader writes it: the store's
// (load.Tx) with the two statements a dataset needs besides appends.
type Tx interface {
	load.Tx
	// RenameDataset moves the comparisons and metadata this import
	// appended under the id from to the id to.
	RenameDataset(from, to string) error
	// AddDataset writes the dataset's own row.
	AddDataset(Dataset) error
}

// Dataset is a dataset's own row: what the file's metadata says and what
// the import counted.
type Dataset struct {
	ID                                 string
	ImportID                           int64
	Name, Description, Version, Format string
	DefaultAnnotator, CreatedAt        string // "" when the file names none
	Synthetic                          bool
	Comparisons, Dropped               int // Dropped: duplicate comparison ids
	Votes                              int64
	MetadataKeys                       string // a JSON list
	Texts                              bool   // the comparisons carry texts (or there are none)
}

// LoadOptions are an import's options as the loader takes them.
type LoadOptions struct {
	// Name is the dataset's id (--name); empty derives it from the file's
	// metadata or name.
	Name               string
	Replace, Synthetic bool
	// Format is the import kind recorded: model.KindAnnotatedPairs or
	// model.KindPreferenceCSV.
	Format string
	// Merge, when set, merges texts from a base dataset into the
	// dataset's comparisons once they are in, and says how many it
	// matched and what to note.
	Merge func(dataset string) (matched int, note string, err error)
	// Hashing, when set, gives the file's hash, worked out beside the
	// import; the hash NewLoader is given is then "".
	Hashing func() Hash
	// MaxValue is the import's limit on one value (0: limit.Default),
	// which the bounds on a dataset's annotators and metadata keys follow
	// (MaxNames).
	MaxValue int64
}

// Hash is a file's hash, worked out beside its import, and the earlier
// import of the same content, if any.
type Hash struct {
	Hash    string
	Earlier *model.ImportResult
	Err     error
}

// NewLoader starts loading the dataset read from file (hash its content's)
// in the transaction tx.
func NewLoader(tx Tx, file, hash string, opts LoadOptions) *Loader {
	l := &Loader{tx: tx, file: file, hash: hash, replace: opts.Replace, synthetic: opts.Synthetic, format: opts.Format, merge: opts.Merge, hashing: opts.Hashing,
		annIdx: map[string]int{}, annDecl: map[string]Annotator{}, metaKeySeen: map[string]bool{}, seenIDs: map[idKey]struct{}{},
		idSeed: [2]maphash.Seed{maphash.MakeSeed(), maphash.MakeSeed()}, maxNames: MaxNames(opts.MaxValue)}
	tx.SetSource(file)
	if opts.Name != "" {
		l.finalName, l.nameFixed = opts.Name, true
	} else {
		l.finalName = model.Slugify(strings.TrimSuffix(filepath.Base(file), filepath.Ext(file)))
		if l.finalName == "" {
			l.finalName = "dataset"
		}
	}
	return l
}

func (l *Loader) SetMetadata(m Metadata) {
	l.meta, l.haveMeta = m, true
	if !l.nameFixed && m.DatasetName != "" && model.Slugify(m.DatasetName) != "" && !l.claimed {
		l.finalName = model.Slugify(m.DatasetName)
	}
	for _, k := range m.MetadataKeys {
		l.MetaKey(k)
	}
}

func (l *Loader) MetaKey(k string) {
	if !l.metaKeySeen[k] {
		if len(l.metaKeys) >= l.maxNames {
			if l.err == nil {
				l.err = l.namesErr("metadata keys")
			}
			return
		}
		l.metaKeySeen[k] = true
		l.metaKeys = append(l.metaKeys, k)
	}
}

func (l *Loader) Declare(id string, d Annotator) {
	if _, ok := l.annDecl[id]; !ok && len(l.annIDs) >= l.maxNames {
		if l.err == nil {
			l.err = l.namesErr("annotators")
		}
		return
	}
	if _, ok := l.annDecl[id]; !ok {
		l.declOrder = append(l.declOrder, id)
	}
	l.annDecl[id] = d
	l.annotator(id)
}

// Annotators are the annotators' indexes so far, a copy.
func (l *Loader) Annotators() map[string]int { return maps.Clone(l.annIdx) }

func (l *Loader) annotator(id string) int {
	if i, ok := l.annIdx[id]; ok {
		return i
	}
	if len(l.annIDs) >= l.maxNames {
		// Past the bound the import fails (Add, Finish); the vote goes to
		// annotator 0 meanwhile, so nothing more is held.
		if l.err == nil {
			l.err = l.namesErr("annotators")
		}
		return 0
	}
	i := len(l.annIDs)
	l.annIdx[id] = i
	l.annIDs = append(l.annIDs, id)
	return i
}

// start claims the name and opens the appenders before the first row. When
// the name may still change (metadata not seen yet), rows go under a
// temporary id that is renamed at the end.
func (l *Loader) start() error {
	if l.cmp != nil {
		return nil
	}
	l.dataset = l.finalName
	if !l.haveMeta && !l.nameFixed {
		l.dataset = "\x00pending-" + strconv.FormatInt(l.tx.Gen(), 10)
	} else {
		if err := l.tx.ClaimLater(l.format, l.finalName, l.fileHash, l.replace); err != nil {
			return err
		}
		l.claimed = true
	}
	var err error
	if l.cmp, err = l.tx.Appender("ap_comparisons"); err != nil {
		return err
	}
	if l.meta2, err = l.tx.Appender("ap_meta"); err != nil {
		return err
	}
	return nil
}

// Close closes the loader's appenders (again: a no-op).
func (l *Loader) Close() error {
	var errs []error
	for _, a := range []load.Appender{l.cmp, l.meta2} {
		if a != nil {
			errs = append(errs, a.Close())
		}
	}
	return errors.Join(errs...)
}

// idKey stands for a comparison id in the duplicate check: 128 bits of two
// randomly seeded hashes. Holding every id itself would cost tens of bytes
// each for the whole import; two different ids share a key with odds of
// about n²/2¹²⁹, and the random seeds keep a file from being built to
// collide.
type idKey [2]uint64

func (l *Loader) Add(r Row) error {
	if l.err != nil {
		return l.err
	}
	if err := l.start(); err != nil {
		return err
	}
	if !l.meta.UniqueIDs {
		key := idKey{maphash.String(l.idSeed[0], r.ID), maphash.String(l.idSeed[1], r.ID)}
		if _, dup := l.seenIDs[key]; dup {
			l.dropped++
			return nil
		}
		l.seenIDs[key] = struct{}{}
	}
	idx := l.n
	l.n++
	if r.Prompt != "" || r.TextA != "" || r.TextB != "" {
		l.withText++
	}
	if !r.Prepared {
		r.Encode(len(l.annIDs), l.annotator)
	}
	if n := len(l.annIDs) - len(r.Prefs); n > 0 { // annotators first named after the workers started
		r.Prefs += strings.Repeat("-", n)
	}
	l.votes += int64(len(r.Votes))
	if err := l.cmp.Row(l.dataset, int32(idx), r.ID, load.NullString(r.Prompt), r.TextA, r.TextB, load.NullString(r.ModelA), load.NullString(r.ModelB),
		r.LenA, r.LenB, load.NullString(r.AttrsA), load.NullString(r.AttrsB), load.NullString(r.Metadata), r.VoteLog, r.Prefs); err != nil {
		return err
	}
	for _, kv := range r.MetaPairs {
		l.MetaKey(kv[0])
		if err := l.meta2.Row(l.dataset, int32(idx), kv[0], kv[1]); err != nil {
			return err
		}
	}
	return nil
}

// fileHash is the file's hash, waited for when it is being worked out
// beside the import; errUnchanged when that found the content imported
// before (checked first, as when the hash came before the import).
func (l *Loader) fileHash() (string, error) {
	if l.hash == "" && l.hashing != nil {
		h := l.hashing()
		if h.Err != nil {
			return "", h.Err
		}
		if h.Earlier != nil {
			l.unchangedAs = h.Earlier
			return "", load.ErrUnchanged
		}
		l.hash = h.Hash
	}
	return l.hash, nil
}

// Finish writes the dataset and annotator rows and the import record.
func (l *Loader) Finish(source string) (model.ImportResult, error) {
	if l.err != nil {
		return model.ImportResult{}, l.err
	}
	if err := l.start(); err != nil { // a dataset with no comparisons
		return model.ImportResult{}, err
	}
	if err := l.Close(); err != nil {
		return model.ImportResult{}, err
	}
	// The hash, and whether the content was imported before, if the
	// comparisons came faster than the hash.
	if _, err := l.fileHash(); err != nil {
		return model.ImportResult{}, err
	}
	if err := l.claimName(); err != nil {
		return model.ImportResult{}, err
	}
	if l.merge != nil {
		matched, note, err := l.merge(l.dataset)
		if err != nil {
			return model.ImportResult{}, err
		}
		l.withText += matched
		l.mergeNote = note
	}
	undeclared, err := l.writeAnnotators()
	if err != nil {
		return model.ImportResult{}, err
	}
	r := l.result(source, undeclared)
	importID, err := l.tx.Record(&r)
	if err != nil {
		return model.ImportResult{}, err
	}
	if err := l.writeDataset(importID); err != nil {
		return model.ImportResult{}, err
	}
	r.Rows = l.tx.Rows() + l.votes + 2
	return r, nil
}

// claimName takes the dataset's final name once the rows are in, and moves
// the rows written under the pending name to it.
func (l *Loader) claimName() error {
	if l.claimed {
		return nil
	}
	if err := l.tx.ClaimLater(l.format, l.finalName, l.fileHash, l.replace); err != nil {
		return err
	}
	if err := l.tx.RenameDataset(l.dataset, l.finalName); err != nil {
		return fmt.Errorf("rename pending rows: %w", err)
	}
	l.dataset = l.finalName
	return nil
}

// writeAnnotators writes the declared annotators in file order, then those
// only referenced by votes, and returns how many of those there were.
func (l *Loader) writeAnnotators() (undeclared int, err error) {
	ann, err := l.tx.Appender("ap_annotators")
	if err != nil {
		return 0, err
	}
	defer ann.Close()
	ord := 0
	declared := map[string]bool{}
	for _, id := range l.declOrder {
		d := l.annDecl[id]
		typ := d.Type
		if typ == "" {
			typ = "unknown"
		}
		name := d.Name
		if name == "" {
			name = annotatorDisplayName(id, d)
		}
		if err := ann.Row(l.dataset, int32(l.annIdx[id]), int32(ord), id, name, d.Description, typ, true); err != nil {
			return 0, err
		}
		declared[id] = true
		ord++
	}
	for _, id := range l.annIDs {
		if declared[id] {
			continue
		}
		undeclared++
		if err := ann.Row(l.dataset, int32(l.annIdx[id]), int32(ord), id, id, "", "unknown", false); err != nil {
			return 0, err
		}
		ord++
	}
	return undeclared, ann.Close()
}

// result is the import's summary: counts and what the user should know.
func (l *Loader) result(source string, undeclared int) model.ImportResult {
	r := model.ImportResult{Kind: l.format, Name: l.dataset, Source: source, Hash: l.hash,
		Counts: map[string]int64{"comparisons": int64(l.n), "annotators": int64(len(l.annIDs)), "votes": l.votes}}
	if l.dropped > 0 {
		r.Notes = append(r.Notes, fmt.Sprintf("dropped %d comparisons with duplicate ids (kept the first)", l.dropped))
	}
	if undeclared > 0 {
		r.Notes = append(r.Notes, fmt.Sprintf("%d annotators referenced but not declared (typed unknown)", undeclared))
	}
	if l.mergeNote != "" {
		r.Notes = append(r.Notes, l.mergeNote)
	}
	if l.withText == 0 && l.n > 0 {
		r.Notes = append(r.Notes, "no prompts or response texts in the file (annotation only): every vote-based number is computed, lengths are not")
	}
	return r
}

// writeDataset writes the dataset's own row, last: a dataset row means
// its comparisons and annotators are all in.
func (l *Loader) writeDataset(importID int64) error {
	keys, _ := json.Marshal(l.metaKeys)
	if l.metaKeys == nil {
		keys = []byte("[]")
	}
	version := l.meta.Version
	if version == "" {
		version = "1.0"
	}
	name := l.meta.DatasetName
	if name == "" {
		name = l.dataset
	}
	d := Dataset{ID: l.dataset, ImportID: importID, Name: name, Description: l.meta.Description, Version: version, Format: l.format,
		DefaultAnnotator: l.meta.DefaultAnnotator, CreatedAt: l.meta.CreatedAt, Synthetic: l.synthetic, Comparisons: l.n, Votes: l.votes,
		Dropped: l.dropped, MetadataKeys: string(keys), Texts: l.withText > 0 || l.n == 0}
	if err := l.tx.AddDataset(d); err != nil {
		return fmt.Errorf("insert dataset: %w", err)
	}
	return nil
}

// annotatorDisplayName shortens a principle ("Select the response that is
// more confident.") the way Feedback Forensics shows it.
func annotatorDisplayName(id string, d Annotator) string {
	if d.Type == "principle" && d.Description != "" {
		s := strings.TrimSpace(strings.TrimPrefix(d.Description, "Select the response that"))
		s = strings.Trim(s, " .")
		if s != "" {
			return s
		}
	}
	return id
}

// Unchanged tells, after an import ended in load.ErrUnchanged, the earlier
// import of the same content when the hash worked out beside found it, and
// otherwise the name and hash the import claimed.
func (l *Loader) Unchanged() (earlier *model.ImportResult, name, hash string) {
	return l.unchangedAs, l.finalName, l.hash
}
