package data

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"hash/maphash"
	"io"
	"maps"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"sync"

	"github.com/auditscope/auditscope/data/annotatedpairs"
	"github.com/auditscope/auditscope/data/model"
)

// apLoader receives a dataset as it is decoded (an annotatedpairs.Sink)
// and appends it to the store.
type apLoader struct {
	tx        *importTx
	file      string
	dataset   string // id rows are appended under
	finalName string // id once known (may differ when metadata comes late)
	nameFixed bool   // --name given
	claimed   bool
	hash      string
	// hashing, when set, gives the hash, which is worked out beside the
	// import (see ImportAnnotatedPairs); hash is "" until it has.
	hashing func() apHash
	// unchangedAs is the earlier import of the same content that an
	// import found at its end (errUnchanged).
	unchangedAs *ImportResult
	replace     bool
	synthetic   bool
	format      string

	meta        annotatedpairs.Metadata
	haveMeta    bool
	annIdx      map[string]int
	annIDs      []string
	annDecl     map[string]annotatedpairs.Annotator
	declOrder   []string
	metaKeys    []string
	metaKeySeen map[string]bool
	seenIDs     map[idKey]struct{}
	idSeed      [2]maphash.Seed
	dropped     int
	n           int
	votes       int64
	withText    int // comparisons with a prompt or a response text
	merge       *TextsMerge
	mergeNote   string

	cmp, meta2 *appender
}

func newAPLoader(tx *importTx, file, hash string, opts ImportOptions, format string) *apLoader {
	l := &apLoader{tx: tx, file: file, hash: hash, replace: opts.Replace, synthetic: opts.Synthetic, format: format, merge: opts.Texts,
		annIdx: map[string]int{}, annDecl: map[string]annotatedpairs.Annotator{}, metaKeySeen: map[string]bool{}, seenIDs: map[idKey]struct{}{},
		idSeed: [2]maphash.Seed{maphash.MakeSeed(), maphash.MakeSeed()}}
	tx.source = file
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

func (l *apLoader) SetMetadata(m annotatedpairs.Metadata) {
	l.meta, l.haveMeta = m, true
	if !l.nameFixed && m.DatasetName != "" && model.Slugify(m.DatasetName) != "" && !l.claimed {
		l.finalName = model.Slugify(m.DatasetName)
	}
	for _, k := range m.MetadataKeys {
		l.MetaKey(k)
	}
}

func (l *apLoader) MetaKey(k string) {
	if !l.metaKeySeen[k] {
		l.metaKeySeen[k] = true
		l.metaKeys = append(l.metaKeys, k)
	}
}

func (l *apLoader) Declare(id string, d annotatedpairs.Annotator) {
	if _, ok := l.annDecl[id]; !ok {
		l.declOrder = append(l.declOrder, id)
	}
	l.annDecl[id] = d
	l.annotator(id)
}

// Annotators are the annotators' indexes so far, a copy.
func (l *apLoader) Annotators() map[string]int { return maps.Clone(l.annIdx) }

func (l *apLoader) annotator(id string) int {
	if i, ok := l.annIdx[id]; ok {
		return i
	}
	i := len(l.annIDs)
	l.annIdx[id] = i
	l.annIDs = append(l.annIDs, id)
	return i
}

// start claims the name and opens the appenders before the first row. When
// the name may still change (metadata not seen yet), rows go under a
// temporary id that is renamed at the end.
func (l *apLoader) start() error {
	if l.cmp != nil {
		return nil
	}
	l.dataset = l.finalName
	if !l.haveMeta && !l.nameFixed {
		l.dataset = "\x00pending-" + strconv.FormatInt(l.tx.gen, 10)
	} else {
		if err := l.tx.claimLater(l.format, l.finalName, l.fileHash, l.replace); err != nil {
			return err
		}
		l.claimed = true
	}
	var err error
	if l.cmp, err = l.tx.appender("ap_comparisons"); err != nil {
		return err
	}
	if l.meta2, err = l.tx.appender("ap_meta"); err != nil {
		return err
	}
	return nil
}

func (l *apLoader) closeAppenders() error {
	var errs []error
	for _, a := range []*appender{l.cmp, l.meta2} {
		if a != nil {
			errs = append(errs, a.close())
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

func (l *apLoader) Add(r annotatedpairs.Row) error {
	if err := l.start(); err != nil {
		return err
	}
	key := idKey{maphash.String(l.idSeed[0], r.ID), maphash.String(l.idSeed[1], r.ID)}
	if _, dup := l.seenIDs[key]; dup {
		l.dropped++
		return nil
	}
	l.seenIDs[key] = struct{}{}
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
	if err := l.cmp.row(l.dataset, int32(idx), r.ID, nullString(r.Prompt), r.TextA, r.TextB, nullString(r.ModelA), nullString(r.ModelB),
		r.LenA, r.LenB, nullString(r.AttrsA), nullString(r.AttrsB), nullString(r.Metadata), r.VoteLog, r.Prefs); err != nil {
		return err
	}
	for _, kv := range r.MetaPairs {
		l.MetaKey(kv[0])
		if err := l.meta2.row(l.dataset, int32(idx), kv[0], kv[1]); err != nil {
			return err
		}
	}
	return nil
}

// fileHash is the file's hash, waited for when it is being worked out
// beside the import; errUnchanged when that found the content imported
// before (checked first, as when the hash came before the import).
func (l *apLoader) fileHash() (string, error) {
	if l.hash == "" && l.hashing != nil {
		h := l.hashing()
		if h.err != nil {
			return "", h.err
		}
		if h.earlier != nil {
			l.unchangedAs = h.earlier
			return "", errUnchanged
		}
		l.hash = h.hash
	}
	return l.hash, nil
}

// finish writes the dataset and annotator rows and the import record.
func (l *apLoader) finish(source string) (ImportResult, error) {
	if err := l.start(); err != nil { // a dataset with no comparisons
		return ImportResult{}, err
	}
	if err := l.closeAppenders(); err != nil {
		return ImportResult{}, err
	}
	// The hash, and whether the content was imported before, if the
	// comparisons came faster than the hash.
	if _, err := l.fileHash(); err != nil {
		return ImportResult{}, err
	}
	if err := l.claimName(); err != nil {
		return ImportResult{}, err
	}
	if l.merge != nil {
		rep, err := l.mergeTexts(l.merge)
		if err != nil {
			return ImportResult{}, err
		}
		l.withText += rep.matched
		l.mergeNote = rep.note(l.merge)
	}
	undeclared, err := l.writeAnnotators()
	if err != nil {
		return ImportResult{}, err
	}
	r := l.result(source, undeclared)
	importID, err := l.tx.record(&r)
	if err != nil {
		return ImportResult{}, err
	}
	if err := l.writeDataset(importID); err != nil {
		return ImportResult{}, err
	}
	r.Rows = l.tx.rows + l.votes + 2
	return r, nil
}

// claimName takes the dataset's final name once the rows are in, and moves
// the rows written under the pending name to it.
func (l *apLoader) claimName() error {
	if l.claimed {
		return nil
	}
	if err := l.tx.claimLater(l.format, l.finalName, l.fileHash, l.replace); err != nil {
		return err
	}
	for _, table := range []string{"ap_comparisons", "ap_meta"} {
		if err := l.tx.exec(`UPDATE `+table+` SET dataset = ? WHERE dataset = ? AND gen = ?`, l.finalName, l.dataset, l.tx.gen); err != nil {
			return fmt.Errorf("rename pending rows: %w", err)
		}
	}
	l.dataset = l.finalName
	return nil
}

// writeAnnotators writes the declared annotators in file order, then those
// only referenced by votes, and returns how many of those there were.
func (l *apLoader) writeAnnotators() (undeclared int, err error) {
	ann, err := l.tx.appender("ap_annotators")
	if err != nil {
		return 0, err
	}
	defer ann.close()
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
		if err := ann.row(l.dataset, int32(l.annIdx[id]), int32(ord), id, name, d.Description, typ, true); err != nil {
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
		if err := ann.row(l.dataset, int32(l.annIdx[id]), int32(ord), id, id, "", "unknown", false); err != nil {
			return 0, err
		}
		ord++
	}
	return undeclared, ann.close()
}

// result is the import's summary: counts and what the user should know.
func (l *apLoader) result(source string, undeclared int) ImportResult {
	r := ImportResult{Kind: l.format, Name: l.dataset, Source: source, Hash: l.hash,
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
func (l *apLoader) writeDataset(importID int64) error {
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
	var def any
	if l.meta.DefaultAnnotator != "" {
		def = l.meta.DefaultAnnotator
	}
	texts := l.withText > 0 || l.n == 0
	if err := l.tx.exec(`INSERT INTO ap_datasets (id, import_id, name, description, version, format, default_annotator, created_at, synthetic, n_comparisons, n_votes, dropped_duplicates, metadata_keys, texts) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`,
		l.dataset, importID, name, l.meta.Description, version, l.format, def, l.meta.CreatedAt, l.synthetic, l.n, l.votes, l.dropped, string(keys), texts); err != nil {
		return fmt.Errorf("insert dataset: %w", err)
	}
	return nil
}

// annotatorDisplayName shortens a principle ("Select the response that is
// more confident.") the way Feedback Forensics shows it.
func annotatorDisplayName(id string, d annotatedpairs.Annotator) string {
	if d.Type == "principle" && d.Description != "" {
		s := strings.TrimSpace(strings.TrimPrefix(d.Description, "Select the response that"))
		s = strings.Trim(s, " .")
		if s != "" {
			return s
		}
	}
	return id
}

// countingReader reports progress as bytes are read.
type countingReader struct {
	r        io.Reader
	n, total int64
	progress func(done, total int64)
	last     int64
}

func (c *countingReader) Read(p []byte) (int, error) {
	n, err := c.r.Read(p)
	c.n += int64(n)
	if c.progress != nil && (c.n-c.last >= 1<<20 || err == io.EOF) {
		c.last = c.n
		c.progress(c.n, c.total)
	}
	return n, err
}

// ImportAnnotatedPairs streams an AnnotatedPairs JSON file (format 1.x or
// 2.0) into the store in one transaction. Memory stays bounded by the
// largest single comparison plus the set of comparison ids.
//
// The file's hash (which tells an unchanged file) is worked out beside the
// import rather than before it, which took a fourteenth of a large file's
// import time. As soon as it is known, an earlier import of the same content
// stops the import (rolled back, reported unchanged); the import itself
// waits for the hash only where it needs it: when the dataset's name was
// imported before, and at its end.
func (s *Store) ImportAnnotatedPairs(ctx context.Context, path string, opts ImportOptions) (ImportResult, error) {
	f, err := os.Open(path)
	if err != nil {
		return ImportResult{}, fmt.Errorf("import %s: %w", path, err)
	}
	defer f.Close()
	st, err := f.Stat()
	if err != nil {
		return ImportResult{}, fmt.Errorf("import %s: %w", path, err)
	}
	ictx, cancel := context.WithCancelCause(ctx)
	defer cancel(nil)
	hc := make(chan apHash, 1) // buffered: an import that ends first leaves it behind
	go func() {
		// The descriptor the import reads, so both see the same file
		// (closed when the import returns, which ends this early).
		var h apHash
		h.hash, h.err = hashReader(io.NewSectionReader(f, 0, st.Size()))
		if h.err != nil {
			h.err = fmt.Errorf("import %s: %w", path, h.err)
		} else if opts.Texts != nil {
			h.hash, h.err = opts.Texts.hash(h.hash)
		}
		if h.err == nil {
			r, ok, err := s.alreadyImported(ictx, model.KindAnnotatedPairs, opts.Name, h.hash)
			switch {
			case err != nil:
				h.err = err
			case ok:
				h.earlier = &r
			}
		}
		hc <- h // before the cancel, so that hashing finds it
		if h.earlier != nil {
			cancel(errUnchanged)
		}
	}()
	hashing := sync.OnceValue(func() apHash {
		select {
		case h := <-hc:
			return h
		case <-ictx.Done():
			select {
			case h := <-hc: // the hash ended the import
				return h
			default:
				return apHash{err: context.Cause(ictx)}
			}
		}
	})
	res, err := s.importAP(ictx, &countingReader{r: f, total: st.Size(), progress: opts.Progress}, path, "", hashing, opts)
	if err != nil && errors.Is(context.Cause(ictx), errUnchanged) && ctx.Err() == nil {
		if h := hashing(); h.earlier != nil {
			return *h.earlier, nil
		}
	}
	return res, err
}

// apHash is an AnnotatedPairs file's hash, worked out beside its import,
// and the earlier import of the same content, if any.
type apHash struct {
	hash    string
	earlier *ImportResult
	err     error
}

// ImportAnnotatedPairsBytes imports an AnnotatedPairs document held in
// memory (the built-in demo); name is used for messages.
func (s *Store) ImportAnnotatedPairsBytes(ctx context.Context, b []byte, name string, opts ImportOptions) (ImportResult, error) {
	hash := hashBytes(b)
	if opts.Texts != nil {
		var err error
		if hash, err = opts.Texts.hash(hash); err != nil {
			return ImportResult{}, err
		}
	}
	if r, ok, err := s.alreadyImported(ctx, model.KindAnnotatedPairs, opts.Name, hash); err != nil || ok {
		return r, err
	}
	return s.importAP(ctx, bytes.NewReader(b), name, hash, nil, opts)
}

// importAP imports an AnnotatedPairs document; hashing, when not nil,
// gives its hash, which is then "".
func (s *Store) importAP(ctx context.Context, r io.Reader, file, hash string, hashing func() apHash, opts ImportOptions) (res ImportResult, err error) {
	var l *apLoader
	err = s.mem.Import(ctx, streamImportMemoryMiB, func() error {
		return s.inImport(ctx, func(tx *importTx) error {
			l = newAPLoader(tx, file, hash, opts, model.KindAnnotatedPairs)
			l.hashing = hashing
			defer l.closeAppenders()
			if err := annotatedpairs.Decode(ctx, r, file, opts.MaxValue, l); err != nil {
				return err
			}
			res, err = l.finish(file)
			return err
		})
	})
	if errors.Is(err, errUnchanged) {
		if l != nil && l.unchangedAs != nil {
			return *l.unchangedAs, nil
		}
		name := opts.Name
		if l != nil {
			hash, name = l.hash, l.finalName
		}
		// The earlier import, as ImportAnnotatedPairsBytes reports it.
		if r, ok, err := s.alreadyImported(ctx, model.KindAnnotatedPairs, name, hash); err != nil || ok {
			return r, err
		}
		return ImportResult{Kind: model.KindAnnotatedPairs, Name: name, Source: file, Hash: hash, Unchanged: true}, nil
	}
	return res, err
}
