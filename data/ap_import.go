package data

import (
	"bytes"
	"context"
	"crypto/md5"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"hash/maphash"
	"io"
	"maps"
	"os"
	"path/filepath"
	"runtime"
	"slices"
	"strconv"
	"strings"
	"sync"
	"unicode/utf8"

	jsonv2 "github.com/go-json-experiment/json"
	"github.com/go-json-experiment/json/jsontext"
	"golang.org/x/sync/semaphore"

	"github.com/auditscope/auditscope/data/internal/limit"
	"github.com/auditscope/auditscope/data/model"

	"github.com/auditscope/auditscope/data/internal/jsonin"
)

// apMetadata is the AnnotatedPairs top-level metadata block.
type apMetadata struct {
	Version          string   `json:"version"`
	Description      string   `json:"description"`
	CreatedAt        string   `json:"created_at"`
	DatasetName      string   `json:"dataset_name"`
	DefaultAnnotator string   `json:"default_annotator"`
	MetadataKeys     []string `json:"available_metadata_keys_per_comparison"`
}

type apAnnotatorDecl struct {
	Name        string `json:"name"`
	Description string `json:"description"`
	Type        string `json:"type"`
}

// apAnnotation is one annotator's vote; Pref stays raw so a missing key
// (skipped, as Feedback Forensics does) differs from null (no preference).
type apAnnotation struct {
	Pref   jsontext.Value `json:"pref"`
	Reason *string        `json:"no_pref_reason"`
}

// apComparison is one comparison as decoded; fields that may hold several
// JSON types stay raw and are checked in row.
type apComparison struct {
	ID          jsontext.Value            `json:"id"`
	Prompt      jsontext.Value            `json:"prompt"`
	ResponseA   map[string]jsontext.Value `json:"response_a"`
	ResponseB   map[string]jsontext.Value `json:"response_b"`
	TextA       *string                   `json:"text_a"`
	TextB       *string                   `json:"text_b"`
	Annotations map[string]apAnnotation   `json:"annotations"`
	Metadata    jsontext.Value            `json:"metadata"`
}

// apLoader receives a dataset as it is decoded and appends it to the store.
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

	meta        apMetadata
	haveMeta    bool
	annIdx      map[string]int
	annIDs      []string
	annDecl     map[string]apAnnotatorDecl
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

	// bound limits one value of the input (see package limit).
	bound *limit.Reader
}

// newBound wraps an import's input in the limit on one value.
func newBound(r io.Reader, opts ImportOptions) *limit.Reader {
	// The slack covers what the parser reads ahead of the value it is on.
	return &limit.Reader{R: r, Max: limit.Or(opts.MaxValue), Slack: 4 << 20}
}

// markValue starts the limit's window at the decoder's position.
func (l *apLoader) markValue(dec *jsontext.Decoder) {
	if l.bound != nil {
		l.bound.Mark(dec.InputOffset())
	}
}

// overLimit turns a read that failed for the limit on one value into an
// error naming the file, the value's place and the flag; other errors pass
// through fail.
func (l *apLoader) overLimit(err error, path string, start int64, fail func(error) error) error {
	if l.bound == nil || !l.bound.Tripped() {
		return fail(err)
	}
	return &model.InputError{File: l.file, Offset: start, Line: jsonin.LineAt(l.file, start), Path: path, Msg: limit.Message("the value", l.bound.Max)}
}

func newAPLoader(tx *importTx, file, hash string, opts ImportOptions, format string) *apLoader {
	l := &apLoader{tx: tx, file: file, hash: hash, replace: opts.Replace, synthetic: opts.Synthetic, format: format, merge: opts.Texts,
		annIdx: map[string]int{}, annDecl: map[string]apAnnotatorDecl{}, metaKeySeen: map[string]bool{}, seenIDs: map[idKey]struct{}{},
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

func (l *apLoader) setMetadata(m apMetadata) {
	l.meta, l.haveMeta = m, true
	if !l.nameFixed && m.DatasetName != "" && model.Slugify(m.DatasetName) != "" && !l.claimed {
		l.finalName = model.Slugify(m.DatasetName)
	}
	for _, k := range m.MetadataKeys {
		l.addMetaKey(k)
	}
}

func (l *apLoader) addMetaKey(k string) {
	if !l.metaKeySeen[k] {
		l.metaKeySeen[k] = true
		l.metaKeys = append(l.metaKeys, k)
	}
}

func (l *apLoader) declare(id string, d apAnnotatorDecl) {
	if _, ok := l.annDecl[id]; !ok {
		l.declOrder = append(l.declOrder, id)
	}
	l.annDecl[id] = d
	l.annotator(id)
}

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

// apRow is one comparison, decoded and checked.
type apRow struct {
	id, prompt, textA, textB, modelA, modelB string
	attrsA, attrsB                           string
	metadata                                 string
	metaPairs                                [][2]string
	votes                                    []apVote
	// Worked out by the decoding workers, off the appending goroutine
	// (see prepare): the texts' lengths in characters, and the votes as
	// stored, when every annotator they name had its index already.
	lenA, lenB     int32
	prefs, voteLog string
	prepared       bool
}

type apVote struct {
	annotator    string
	pref, reason *string
}

// prefCode is a vote's character in ap_comparisons.prefs.
func prefCode(p *string) byte {
	switch {
	case p == nil || *p == "":
		return '-'
	case *p == "text_a":
		return 'a'
	case *p == "text_b":
		return 'b'
	case *p == "tie":
		return 't'
	}
	return 'i'
}

// appendNullableJSON writes a JSON string or null.
func appendNullableJSON(b []byte, s *string) []byte {
	if s == nil {
		return append(b, "null"...)
	}
	return appendJSONString(b, *s)
}

func (l *apLoader) add(r apRow) error {
	if err := l.start(); err != nil {
		return err
	}
	key := idKey{maphash.String(l.idSeed[0], r.id), maphash.String(l.idSeed[1], r.id)}
	if _, dup := l.seenIDs[key]; dup {
		l.dropped++
		return nil
	}
	l.seenIDs[key] = struct{}{}
	idx := l.n
	l.n++
	if r.prompt != "" || r.textA != "" || r.textB != "" {
		l.withText++
	}
	if !r.prepared {
		r.lenA, r.lenB = int32(utf8.RuneCountInString(r.textA)), int32(utf8.RuneCountInString(r.textB))
		r.prefs, r.voteLog = encodeVotes(r.votes, len(l.annIDs), l.annotator)
	}
	if n := len(l.annIDs) - len(r.prefs); n > 0 { // annotators first named after the workers started
		r.prefs += strings.Repeat("-", n)
	}
	l.votes += int64(len(r.votes))
	if err := l.cmp.row(l.dataset, int32(idx), r.id, nullString(r.prompt), r.textA, r.textB, nullString(r.modelA), nullString(r.modelB),
		r.lenA, r.lenB, nullString(r.attrsA), nullString(r.attrsB), nullString(r.metadata), r.voteLog, r.prefs); err != nil {
		return err
	}
	for _, kv := range r.metaPairs {
		l.addMetaKey(kv[0])
		if err := l.meta2.row(l.dataset, int32(idx), kv[0], kv[1]); err != nil {
			return err
		}
	}
	return nil
}

// encodeVotes gives a comparison's votes as stored: a compact string of
// vote codes, one character per annotator (index), that the explorer reads,
// and a JSON list of the votes the codes do not tell whole (a null, empty or
// unusual preference, or a reason); the ap_votes view puts them together. A
// row per vote would cost a cgo call per value on import and a gigabyte of
// memory in DuckDB for a large file; every vote as JSON cost a fifth of the
// import's time. n is the number of annotators known; index gives an
// annotator's index.
func encodeVotes(votes []apVote, n int, index func(string) int) (prefs, log string) {
	codes := make([]byte, n)
	for k := range codes {
		codes[k] = '-'
	}
	js := append(make([]byte, 0, 64), '[')
	for _, v := range votes {
		a := index(v.annotator)
		for len(codes) <= a {
			codes = append(codes, '-')
		}
		code := prefCode(v.pref)
		codes[a] = code
		if v.reason == nil && code != '-' && code != 'i' {
			continue
		}
		if len(js) > 1 {
			js = append(js, ',')
		}
		js = append(js, '[')
		js = strconv.AppendInt(js, int64(a), 10)
		js = append(js, ',')
		js = appendNullableJSON(js, v.pref)
		js = append(js, ',')
		js = appendNullableJSON(js, v.reason)
		js = append(js, ']')
	}
	return string(codes), string(append(js, ']'))
}

// prepare works out what add would on the appending goroutine, which is
// the import's critical path: the texts' lengths, and the stored votes when
// ann (the annotators' indexes when the comparisons began) names every
// annotator the votes do. Otherwise add encodes the votes, assigning new
// indexes in file order.
func (r *apRow) prepare(ann map[string]int) {
	r.lenA, r.lenB = int32(utf8.RuneCountInString(r.textA)), int32(utf8.RuneCountInString(r.textB))
	for _, v := range r.votes {
		if _, ok := ann[v.annotator]; !ok {
			return
		}
	}
	r.prefs, r.voteLog = encodeVotes(r.votes, len(ann), func(id string) int { return ann[id] })
	r.prepared = true
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
func annotatorDisplayName(id string, d apAnnotatorDecl) string {
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
			l.bound = newBound(r, opts)
			if err := decodeAP(ctx, l.bound, file, l); err != nil {
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

// decodeAP walks the top-level object token by token and decodes one
// comparison at a time (jsontext streams; encoding/json's Token API is several
// times slower on large files).
func decodeAP(ctx context.Context, r io.Reader, file string, l *apLoader) error {
	dec := jsontext.NewDecoder(jsonin.BOMAsSpaces(r), jsontext.AllowDuplicateNames(true))
	if err := expectKind(dec, file, '{'); err != nil {
		return err
	}
	sawComparisons := false
	for dec.PeekKind() != '}' {
		tok, err := dec.ReadToken()
		if err != nil {
			return jsonin.Err(file, dec, err)
		}
		start := dec.InputOffset()
		l.markValue(dec)
		fail := func(err error) error { return jsonin.Err(file, dec, err) }
		switch key := tok.String(); key {
		case "metadata":
			var m apMetadata
			if err := jsonv2.UnmarshalDecode(dec, &m); err != nil {
				return l.overLimit(err, key, start, fail)
			}
			l.setMetadata(m)
		case "annotators":
			if err := expectKind(dec, file, '{'); err != nil {
				return err
			}
			for dec.PeekKind() != '}' {
				tok, err := dec.ReadToken()
				if err != nil {
					return jsonin.Err(file, dec, err)
				}
				id := tok.String() // the token is only valid until the next read
				start := dec.InputOffset()
				l.markValue(dec)
				var d apAnnotatorDecl
				if err := jsonv2.UnmarshalDecode(dec, &d); err != nil {
					return l.overLimit(err, "annotators."+id, start, fail)
				}
				l.declare(id, d)
			}
			if _, err := dec.ReadToken(); err != nil {
				return jsonin.Err(file, dec, err)
			}
		case "comparisons":
			sawComparisons = true
			if err := expectKind(dec, file, '['); err != nil {
				return err
			}
			if err := decodeComparisons(ctx, dec, file, l); err != nil {
				return err
			}
			if _, err := dec.ReadToken(); err != nil {
				return jsonin.Err(file, dec, err)
			}
		default:
			if err := dec.SkipValue(); err != nil {
				return l.overLimit(err, key, start, fail)
			}
		}
	}
	if _, err := dec.ReadToken(); err != nil {
		return jsonin.Err(file, dec, err)
	}
	if _, err := dec.ReadToken(); err != io.EOF {
		off := dec.InputOffset()
		return &model.InputError{File: file, Offset: off, Line: jsonin.LineAt(file, off), Msg: "unexpected data after the top-level object"}
	}
	if !sawComparisons {
		return &model.InputError{File: file, Offset: -1, Path: "comparisons", Msg: "missing: an AnnotatedPairs file needs a comparisons list"}
	}
	return nil
}

// apBatch is a run of comparisons decoded by one worker.
type apBatch struct {
	start int      // index of the first comparison
	raws  [][]byte // the comparisons' JSON, parts of buf
	buf   []byte   // the batch's JSON, one allocation rather than one a comparison
	ends  []int    // where each comparison ends in buf
	held  int64    // bytes of raws held against the in-flight budget
	offs  []int64  // their byte offsets in the file
	rows  []apRow
	err   error
	done  chan struct{}
}

const (
	// apBatchSize and apBatchBytes end a batch: comparisons, and bytes of
	// their JSON.
	apBatchSize  = 64
	apBatchBytes = 4 << 20
	// apInFlightBytes bounds the JSON of comparisons read but not yet
	// appended, whatever their sizes (at least one value at the limit).
	apInFlightBytes = 32 << 20
)

// decodeComparisons reads the comparisons array. The reader only splits the
// stream into values (jsontext checks the syntax as it goes); workers on every
// core decode them into rows; the rows are appended in file order on this
// goroutine's connection. At most a few batches, and apInFlightBytes of JSON,
// are in flight, so memory stays bounded however long the file is.
func decodeComparisons(ctx context.Context, dec *jsontext.Decoder, file string, l *apLoader) error {
	workers := runtime.GOMAXPROCS(0)
	p := &apPipeline{ctx: ctx, dec: dec, file: file, l: l,
		work: make(chan *apBatch, workers), ordered: make(chan *apBatch, 2*workers), stop: make(chan struct{}),
		budget: apInFlightBytes}
	if l.bound != nil {
		p.budget = max(p.budget, l.bound.Max+l.bound.Slack)
	}
	p.inFlight = semaphore.NewWeighted(p.budget)
	v2, haveMeta := strings.HasPrefix(l.meta.Version, "2"), l.haveMeta
	// The annotators declared before the comparisons, for the workers to
	// encode votes with (a copy: the appender adds those first named later).
	ann := maps.Clone(l.annIdx)
	var wg sync.WaitGroup
	for range workers {
		wg.Add(1)
		go func() {
			defer wg.Done()
			var fast apFast // one a worker: it keeps the names it has seen
			for b := range p.work {
				b.decode(&fast, file, v2, haveMeta, ann)
				close(b.done)
			}
		}()
	}
	appendErr := make(chan error, 1)
	go func() { appendErr <- p.appendInOrder() }()
	readErr := p.read()
	wg.Wait()
	if err := <-appendErr; err != nil {
		return err
	}
	return readErr
}

// apPipeline is one comparisons array on its way from the reader through
// the decoding workers to the appender.
type apPipeline struct {
	ctx           context.Context
	dec           *jsontext.Decoder
	file          string
	l             *apLoader
	work, ordered chan *apBatch // to the workers; to the appender, in file order
	stop          chan struct{} // closed by the appender at its first error
	inFlight      *semaphore.Weighted
	budget        int64
	cur           *apBatch // the batch being filled
}

// appendInOrder appends the batches' rows in file order and stops at the
// first error, draining the rest so the reader and workers can end.
func (p *apPipeline) appendInOrder() error {
	var err error
	for b := range p.ordered {
		<-b.done
		p.inFlight.Release(b.held)
		if err != nil {
			continue // drain
		}
		if err = b.err; err == nil {
			for _, r := range b.rows {
				if err = p.l.add(r); err != nil {
					break
				}
			}
		}
		if err != nil {
			close(p.stop)
		}
	}
	return err
}

// read splits the array into comparisons and hands them on in batches.
func (p *apPipeline) read() error {
	defer func() {
		close(p.work)
		close(p.ordered)
	}()
	p.cur = &apBatch{done: make(chan struct{})}
	for i := 0; p.dec.PeekKind() != ']'; i++ {
		if i%4096 == 0 {
			if err := p.ctx.Err(); err != nil {
				return err
			}
		}
		start := p.dec.InputOffset()
		p.l.markValue(p.dec)
		raw, err := p.dec.ReadValue()
		if err != nil {
			return p.l.overLimit(err, "comparisons["+strconv.Itoa(i)+"]", start, func(err error) error { return jsonin.Err(p.file, p.dec, err) })
		}
		// Where the value starts, past the whitespace before it, so that an
		// error in it names the comparison's line.
		off := p.dec.InputOffset() - int64(len(raw))
		if ok, err := p.hold(int64(len(raw))); err != nil || !ok {
			return err
		}
		// ReadValue's bytes are only valid until the next read.
		b := p.cur
		b.buf = append(b.buf, raw...)
		b.ends = append(b.ends, len(b.buf))
		b.raws = append(b.raws, nil) // set by send
		b.offs = append(b.offs, off)
		if (len(b.raws) == apBatchSize || b.held >= apBatchBytes) && !p.send() {
			return nil
		}
	}
	if len(p.cur.raws) > 0 {
		p.send()
	}
	return nil
}

// send hands the batch being filled to the appender and a worker and
// starts the next; false once the appender has stopped.
func (p *apPipeline) send() bool {
	b := p.cur
	prev := 0
	for j, end := range b.ends {
		b.raws[j] = b.buf[prev:end:end]
		prev = end
	}
	// Read before the batch is handed on: the worker clears it.
	n, size := len(b.raws), cap(b.buf)
	select {
	case p.ordered <- b:
	case <-p.stop:
		return false
	}
	select {
	case p.work <- b:
	case <-p.stop:
		close(b.done)
		return false
	}
	// The next batch's buffer starts at this one's size: most batches
	// then need no growing.
	p.cur = &apBatch{start: b.start + n, done: make(chan struct{}), buf: make([]byte, 0, min(size, apBatchBytes))}
	return true
}

// hold takes n bytes of the in-flight budget. The batch being filled is
// sent first when the budget is short, so that what is held can always be
// released.
func (p *apPipeline) hold(n int64) (bool, error) {
	n = min(n, p.budget)
	if !p.inFlight.TryAcquire(n) {
		if len(p.cur.raws) > 0 && !p.send() {
			return false, nil
		}
		if err := p.inFlight.Acquire(p.ctx, n); err != nil {
			return false, err
		}
	}
	p.cur.held += n
	return true, nil
}

// decode turns the batch's JSON into rows, or the first error with its
// place in the file.
func (b *apBatch) decode(fast *apFast, file string, v2, haveMeta bool, ann map[string]int) {
	// The rows hold copies: the JSON can go before the batch is appended
	// (the in-flight budget still counts it until then).
	defer func() {
		b.buf, b.raws = nil, nil
		fast.release()
	}()
	b.rows = make([]apRow, 0, len(b.raws))
	for j, raw := range b.raws {
		row, ok := fast.row(raw, v2, haveMeta)
		if !ok {
			var err error
			if row, err = fullRow(raw, v2, haveMeta); err != nil {
				b.err = placeErr(file, "comparisons["+strconv.Itoa(b.start+j)+"]", b.offs[j], err)
				return
			}
		}
		row.prepare(ann)
		b.rows = append(b.rows, row)
	}
}

// fullRow decodes one comparison of any shape, or says what is wrong with
// it. Its errors are relative to the comparison (see placeErr).
func fullRow(raw []byte, v2, haveMeta bool) (apRow, error) {
	var c apComparison
	if err := jsonv2.Unmarshal(raw, &c, jsontext.AllowDuplicateNames(true)); err != nil {
		return apRow{}, err
	}
	return c.row(v2, haveMeta)
}

// placeErr places an error of fullRow's for the comparison at prefix,
// which starts at byte base of the file.
func placeErr(file, prefix string, base int64, err error) error {
	var ie *model.InputError
	if !errors.As(err, &ie) {
		return valueErr(file, prefix, base, err)
	}
	ie.File, ie.Path = file, jsonin.JoinPath(prefix, ie.Path)
	ie.Offset = base
	ie.Line = jsonin.LineAt(file, ie.Offset)
	return err
}

// valueErr places an error from decoding one value (whose offsets and JSON
// pointer are relative to the value) in the file.
func valueErr(file, prefix string, base int64, err error) error {
	ie := &model.InputError{File: file, Offset: base, Path: prefix}
	var sem *jsonv2.SemanticError
	var syn *jsontext.SyntacticError
	switch {
	case errors.As(err, &sem):
		ie.Offset += sem.ByteOffset
		ie.Path = jsonin.JoinPath(prefix, jsonin.PointerPath(sem.JSONPointer))
		want := "another type"
		if sem.GoType != nil {
			want = jsonin.TypeName(sem.GoType)
		}
		ie.Msg = fmt.Sprintf("want %s, found %s", want, jsonin.KindName(byte(sem.JSONKind)))
		if sem.Err != nil && sem.JSONKind == 0 {
			ie.Msg = sem.Err.Error()
		}
	case errors.As(err, &syn):
		ie.Offset += syn.ByteOffset
		ie.Path = jsonin.JoinPath(prefix, jsonin.PointerPath(syn.JSONPointer))
		ie.Msg = "invalid JSON: " + syn.Err.Error()
	default:
		ie.Msg = err.Error()
	}
	ie.Line = jsonin.LineAt(file, ie.Offset)
	return ie
}

// expectKind reads the next token and checks it opens an object or array.
func expectKind(dec *jsontext.Decoder, file string, want jsontext.Kind) error {
	path := jsonin.PointerPath(dec.StackPointer())
	if k := dec.PeekKind(); k != want {
		if k == 0 {
			_, err := dec.ReadToken()
			return jsonin.Err(file, dec, err)
		}
		what := "a JSON object"
		if want == '[' {
			what = "an array"
		}
		off := dec.InputOffset()
		return &model.InputError{File: file, Offset: off, Line: jsonin.LineAt(file, off), Path: path, Msg: "want " + what + ", found " + jsonin.KindName(byte(k))}
	}
	if _, err := dec.ReadToken(); err != nil {
		return jsonin.Err(file, dec, err)
	}
	return nil
}

// rawString decodes a JSON string (or returns ok=false for null/absent).
func rawString(raw []byte, path string) (string, bool, error) {
	raw = bytes.TrimSpace(raw)
	if len(raw) == 0 || bytes.Equal(raw, []byte("null")) {
		return "", false, nil
	}
	if raw[0] != '"' {
		return "", false, &model.InputError{Offset: -1, Path: path, Msg: "want a string, found " + jsonin.Kind(raw)}
	}
	s, err := unquote(raw)
	if err != nil {
		return "", false, &model.InputError{Offset: -1, Path: path, Msg: err.Error()}
	}
	return s, true, nil
}

// unquote decodes a JSON string the decoder has already validated; strings
// without escapes (nearly all votes) skip the decoder.
func unquote(raw []byte) (string, error) {
	if len(raw) >= 2 && bytes.IndexByte(raw, '\\') < 0 {
		return string(raw[1 : len(raw)-1]), nil
	}
	b, err := jsontext.AppendUnquote(nil, raw)
	return string(b), err
}

// scalarText renders a metadata value: strings as is, others as JSON.
func scalarText(raw []byte) string {
	raw = bytes.TrimSpace(raw)
	if len(raw) > 0 && raw[0] == '"' {
		if s, err := unquote(raw); err == nil {
			return s
		}
	}
	return string(raw)
}

func (c *apComparison) row(v2, haveMeta bool) (apRow, error) {
	var r apRow
	switch raw := bytes.TrimSpace(c.ID); {
	case len(raw) == 0 || bytes.Equal(raw, []byte("null")):
		return r, &model.InputError{Offset: -1, Path: "id", Msg: "missing: every comparison needs an id"}
	case raw[0] == '"':
		s, _, err := rawString(raw, "id")
		if err != nil {
			return r, err
		}
		r.id = s
	case raw[0] == '-' || (raw[0] >= '0' && raw[0] <= '9'):
		r.id = string(raw)
	default:
		return r, &model.InputError{Offset: -1, Path: "id", Msg: "want a string or a number, found " + jsonin.Kind(raw)}
	}
	if p, ok, err := rawString(c.Prompt, "prompt"); err != nil {
		return r, err
	} else if ok {
		r.prompt = p
	}
	// Feedback Forensics takes the format from metadata.version (1.0 when
	// absent); a v2 file's responses are objects, a v1 file's texts are
	// top-level strings. A file without metadata that carries response
	// objects is read as v2 too.
	// The file's version can come after its comparisons (JSON objects have
	// no order): response objects then mean 2.0, for the votes too.
	v2 = v2 || (!haveMeta && c.ResponseA != nil)
	if v2 {
		var err error
		if r.textA, r.modelA, r.attrsA, err = responseFields(c.ResponseA, "response_a"); err != nil {
			return r, err
		}
		if r.textB, r.modelB, r.attrsB, err = responseFields(c.ResponseB, "response_b"); err != nil {
			return r, err
		}
	} else {
		if c.TextA == nil {
			return r, &model.InputError{Offset: -1, Path: "text_a", Msg: "missing: a format 1.x comparison needs text_a (or set metadata.version to 2.0 for response_a objects)"}
		}
		if c.TextB == nil {
			return r, &model.InputError{Offset: -1, Path: "text_b", Msg: "missing: a format 1.x comparison needs text_b"}
		}
		r.textA, r.textB = *c.TextA, *c.TextB
	}
	// In key order, not map order: the same file gives the same rows, the
	// same annotator order and the same first error.
	for _, ann := range slices.Sorted(maps.Keys(c.Annotations)) {
		a := c.Annotations[ann]
		if a.Pref == nil {
			continue // no "pref" key: Feedback Forensics skips the annotation
		}
		v := apVote{annotator: ann, reason: a.Reason}
		p, ok, err := rawString(a.Pref, "annotations."+ann+".pref")
		if err != nil {
			return r, err
		}
		if ok {
			if v2 && (p == "a" || p == "b") {
				p = "text_" + p
			}
			v.pref = &p
		}
		r.votes = append(r.votes, v)
	}
	if m := bytes.TrimSpace(c.Metadata); len(m) > 0 && !bytes.Equal(m, []byte("null")) {
		if m[0] != '{' {
			return r, &model.InputError{Offset: -1, Path: "metadata", Msg: "want an object, found " + jsonin.Kind(m)}
		}
		pairs, err := orderedObject(m)
		if err != nil {
			return r, &model.InputError{Offset: -1, Path: "metadata", Msg: err.Error()}
		}
		for _, kv := range pairs {
			r.metaPairs = append(r.metaPairs, [2]string{kv.key, scalarText(kv.value)})
		}
		r.metadata = string(m)
	}
	return r, nil
}

type kv struct {
	key   string
	value json.RawMessage
}

// orderedObject returns an object's members in file order.
func orderedObject(b []byte) ([]kv, error) {
	dec := jsontext.NewDecoder(bytes.NewReader(b), jsontext.AllowDuplicateNames(true))
	if _, err := dec.ReadToken(); err != nil {
		return nil, err
	}
	var out []kv
	for dec.PeekKind() != '}' {
		tok, err := dec.ReadToken()
		if err != nil {
			return nil, err
		}
		key := tok.String()
		v, err := dec.ReadValue()
		if err != nil {
			return nil, err
		}
		out = append(out, kv{key, append([]byte(nil), v...)})
	}
	return out, nil
}

func responseFields(resp map[string]jsontext.Value, path string) (text, modelName, attrs string, err error) {
	if resp == nil {
		return "", "", "", &model.InputError{Offset: -1, Path: path, Msg: "missing: a format 2.0 comparison needs a response object with text"}
	}
	// An absent or null text is an annotation-only file's (the Feedback
	// Forensics Annotations v2.0 dataset carries votes and metadata, not
	// texts): it is kept as "" and the dataset is marked as having none.
	t, _, err := rawString(resp["text"], path+".text")
	if err != nil {
		return "", "", "", err
	}
	if m, ok, err := rawString(resp["model"], path+".model"); err != nil {
		return "", "", "", err
	} else if ok {
		modelName = m
	}
	extra := map[string]json.RawMessage{}
	for k, v := range resp {
		if k != "text" && k != "model" {
			extra[k] = json.RawMessage(v)
		}
	}
	if len(extra) > 0 {
		b, _ := json.Marshal(extra)
		attrs = string(b)
	}
	return t, modelName, attrs, nil
}

// shortHash is the 8-hex-digit id Feedback Forensics' tools derive from a
// text (md5), used for the default annotator of CSV imports.
func shortHash(s string) string {
	sum := md5.Sum([]byte(s))
	return hex.EncodeToString(sum[:4])
}
