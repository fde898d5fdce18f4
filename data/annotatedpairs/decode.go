package annotatedpairs

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"maps"
	"runtime"
	"slices"
	"strconv"
	"strings"
	"sync"
	"unicode/utf8"

	jsonv2 "github.com/go-json-experiment/json"

	"github.com/go-json-experiment/json/jsontext"
	"golang.org/x/sync/semaphore"

	"github.com/auditscope/auditscope/data/internal/jsonin"
	"github.com/auditscope/auditscope/data/internal/limit"
	"github.com/auditscope/auditscope/data/model"
)

// decode walks the top-level object token by token and decodes one
// comparison at a time (jsontext streams; encoding/json's Token API is several
// times slower on large files).
func (in *decoder) decode(ctx context.Context, r io.Reader) error {
	dec := jsontext.NewDecoder(jsonin.BOMAsSpaces(r), jsontext.AllowDuplicateNames(true))
	if err := expectKind(dec, in.file, '{'); err != nil {
		return err
	}
	sawComparisons := false
	seen := map[string]bool{}
	for dec.PeekKind() != '}' {
		tok, err := dec.ReadToken()
		if err != nil {
			return jsonin.Err(in.file, dec, err)
		}
		start := dec.InputOffset()
		in.markValue(dec)
		fail := func(err error) error { return jsonin.Err(in.file, dec, err) }
		key := tok.String()
		if (key == "metadata" || key == "annotators" || key == "comparisons") && seen[key] {
			// Python's json (and so Feedback Forensics) keeps the last of
			// two equal keys; a stream has imported the first by then.
			// Neither reading is safe to guess: the file is refused.
			off := start
			return &model.InputError{File: in.file, Offset: off, Line: jsonin.LineAt(in.file, off), Path: key,
				Msg: "appears twice at the top level (Python's json would keep the second, other readers the first): keep one"}
		}
		seen[key] = true
		switch key {
		case "metadata":
			var m Metadata
			if err := jsonv2.UnmarshalDecode(dec, &m); err != nil {
				return in.overLimit(err, key, start, fail)
			}
			in.setMetadata(m)
		case "annotators":
			if err := expectKind(dec, in.file, '{'); err != nil {
				return err
			}
			for dec.PeekKind() != '}' {
				tok, err := dec.ReadToken()
				if err != nil {
					return jsonin.Err(in.file, dec, err)
				}
				id := tok.String() // the token is only valid until the next read
				start := dec.InputOffset()
				in.markValue(dec)
				var d Annotator
				if err := jsonv2.UnmarshalDecode(dec, &d); err != nil {
					return in.overLimit(err, "annotators."+id, start, fail)
				}
				in.sink.Declare(id, d)
			}
			if _, err := dec.ReadToken(); err != nil {
				return jsonin.Err(in.file, dec, err)
			}
		case "comparisons":
			sawComparisons = true
			if err := expectKind(dec, in.file, '['); err != nil {
				return err
			}
			if err := in.comparisons(ctx, dec); err != nil {
				return err
			}
			if _, err := dec.ReadToken(); err != nil {
				return jsonin.Err(in.file, dec, err)
			}
		default:
			if err := dec.SkipValue(); err != nil {
				return in.overLimit(err, key, start, fail)
			}
		}
	}
	if _, err := dec.ReadToken(); err != nil {
		return jsonin.Err(in.file, dec, err)
	}
	if _, err := dec.ReadToken(); err != io.EOF {
		off := dec.InputOffset()
		return &model.InputError{File: in.file, Offset: off, Line: jsonin.LineAt(in.file, off), Msg: "unexpected data after the top-level object"}
	}
	if !sawComparisons {
		return &model.InputError{File: in.file, Offset: -1, Path: "comparisons", Msg: "missing: an AnnotatedPairs file needs a comparisons list"}
	}
	return nil
}

// comparisons reads the comparisons array. The reader only splits the
// stream into values (jsontext checks the syntax as it goes); workers on every
// core decode them into rows; the rows are appended in file order on this
// goroutine's connection. At most a few batches, and inFlightBytes of JSON,
// are in flight, so memory stays bounded however long the file is.
func (in *decoder) comparisons(ctx context.Context, dec *jsontext.Decoder) error {
	workers := runtime.GOMAXPROCS(0)
	p := &pipeline{ctx: ctx, dec: dec, file: in.file, in: in,
		work: make(chan *batch, workers), ordered: make(chan *batch, 2*workers), stop: make(chan struct{}),
		budget: inFlightBytes}
	if in.bound != nil {
		p.budget = max(p.budget, in.bound.Max+in.bound.Slack)
	}
	p.inFlight = semaphore.NewWeighted(p.budget)
	v2, haveMeta := strings.HasPrefix(in.meta.Version, "2"), in.haveMeta
	// The annotators declared before the comparisons, for the workers to
	// encode votes with (a copy: the appender adds those first named later).
	ann := in.sink.Annotators()
	var maxValue int64
	if in.bound != nil {
		maxValue = in.bound.Max
	}
	items := jsonin.ItemsFor(limit.Or(maxValue))
	var wg sync.WaitGroup
	for range workers {
		wg.Add(1)
		go func() {
			defer wg.Done()
			var fast fastDecoder // one a worker: it keeps the names it has seen
			for b := range p.work {
				b.decode(&fast, in.file, v2, haveMeta, ann, items)
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

// Metadata is the AnnotatedPairs top-level metadata block.
type Metadata struct {
	Version          string   `json:"version"`
	Description      string   `json:"description"`
	CreatedAt        string   `json:"created_at"`
	DatasetName      string   `json:"dataset_name"`
	DefaultAnnotator string   `json:"default_annotator"`
	MetadataKeys     []string `json:"available_metadata_keys_per_comparison"`
	// UniqueIDs: the comparisons' ids are unique by construction (a
	// preference CSV's row numbers), so the loader keeps no set of them to
	// find duplicates: that set was what grew with the rows (16 bytes and
	// a map's share a row: 10 million rows took 1.1 GiB).
	UniqueIDs bool `json:"-"`
}

type Annotator struct {
	Name        string `json:"name"`
	Description string `json:"description"`
	Type        string `json:"type"`
}

// annotation is one annotator's vote; Pref stays raw so a missing key
// (skipped, as Feedback Forensics does) differs from null (no preference).
type annotation struct {
	Pref   jsontext.Value `json:"pref"`
	Reason *string        `json:"no_pref_reason"`
}

// comparison is one comparison as decoded; fields that may hold several
// JSON types stay raw and are checked in row.
type comparison struct {
	ID          jsontext.Value            `json:"id"`
	Prompt      jsontext.Value            `json:"prompt"`
	ResponseA   map[string]jsontext.Value `json:"response_a"`
	ResponseB   map[string]jsontext.Value `json:"response_b"`
	TextA       *string                   `json:"text_a"`
	TextB       *string                   `json:"text_b"`
	Annotations map[string]annotation     `json:"annotations"`
	Metadata    jsontext.Value            `json:"metadata"`
}

// Row is one comparison, decoded and checked.
type Row struct {
	ID, Prompt, TextA, TextB, ModelA, ModelB string
	AttrsA, AttrsB                           string
	Metadata                                 string
	MetaPairs                                [][2]string
	Votes                                    []Vote
	// Worked out by the decoding workers, off the appending goroutine
	// (see prepare): the texts' lengths in characters, and the votes as
	// stored, when every annotator they name had its index already.
	LenA, LenB     int32
	Prefs, VoteLog string
	Prepared       bool
}

type Vote struct {
	Annotator    string
	Pref, Reason *string
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
	return jsonin.AppendString(b, *s)
}

// encodeVotes gives a comparison's votes as stored: a compact string of
// vote codes, one character per annotator (index), that the explorer reads,
// and a JSON list of the votes the codes do not tell whole (a null, empty or
// unusual preference, or a reason); the ap_votes view puts them together. A
// row per vote would cost a cgo call per value on import and a gigabyte of
// memory in DuckDB for a large file; every vote as JSON cost a fifth of the
// import's time. n is the number of annotators known; index gives an
// annotator's index.
func encodeVotes(votes []Vote, n int, index func(string) int) (prefs, log string) {
	codes := make([]byte, n)
	for k := range codes {
		codes[k] = '-'
	}
	js := append(make([]byte, 0, 64), '[')
	for _, v := range votes {
		a := index(v.Annotator)
		for len(codes) <= a {
			codes = append(codes, '-')
		}
		code := prefCode(v.Pref)
		codes[a] = code
		if v.Reason == nil && code != '-' && code != 'i' {
			continue
		}
		if len(js) > 1 {
			js = append(js, ',')
		}
		js = append(js, '[')
		js = strconv.AppendInt(js, int64(a), 10)
		js = append(js, ',')
		js = appendNullableJSON(js, v.Pref)
		js = append(js, ',')
		js = appendNullableJSON(js, v.Reason)
		js = append(js, ']')
	}
	return string(codes), string(append(js, ']'))
}

// prepare works out what Encode would on the appending goroutine, which is
// the import's critical path: the texts' lengths, and the stored votes when
// ann (the annotators' indexes when the comparisons began) names every
// annotator the votes do. Otherwise the Sink encodes them, assigning new
// indexes in file order.
func (r *Row) prepare(ann map[string]int) {
	r.LenA, r.LenB = int32(utf8.RuneCountInString(r.TextA)), int32(utf8.RuneCountInString(r.TextB))
	for _, v := range r.Votes {
		if _, ok := ann[v.Annotator]; !ok {
			return
		}
	}
	r.Prefs, r.VoteLog = encodeVotes(r.Votes, len(ann), func(id string) int { return ann[id] })
	r.Prepared = true
}

// batch is a run of comparisons decoded by one worker.
type batch struct {
	start int      // index of the first comparison
	raws  [][]byte // the comparisons' JSON, parts of buf
	buf   []byte   // the batch's JSON, one allocation rather than one a comparison
	ends  []int    // where each comparison ends in buf
	held  int64    // bytes of raws held against the in-flight budget
	offs  []int64  // their byte offsets in the file
	rows  []Row
	err   error
	done  chan struct{}
}

const (
	// batchSize and batchBytes end a batch: comparisons, and bytes of
	// their JSON.
	batchSize  = 64
	batchBytes = 4 << 20
	// inFlightBytes bounds the JSON of comparisons read but not yet
	// appended, whatever their sizes (at least one value at the limit).
	inFlightBytes = 32 << 20
)

// pipeline is one comparisons array on its way from the reader through
// the decoding workers to the appender.
type pipeline struct {
	ctx           context.Context
	dec           *jsontext.Decoder
	file          string
	in            *decoder
	work, ordered chan *batch   // to the workers; to the appender, in file order
	stop          chan struct{} // closed by the appender at its first error
	inFlight      *semaphore.Weighted
	budget        int64
	cur           *batch // the batch being filled
}

// appendInOrder appends the batches' rows in file order and stops at the
// first error, draining the rest so the reader and workers can end.
func (p *pipeline) appendInOrder() error {
	var err error
	for b := range p.ordered {
		<-b.done
		p.inFlight.Release(b.held)
		if err != nil {
			continue // drain
		}
		if err = b.err; err == nil {
			for _, r := range b.rows {
				if err = p.in.sink.Add(r); err != nil {
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
func (p *pipeline) read() error {
	defer func() {
		close(p.work)
		close(p.ordered)
	}()
	p.cur = &batch{done: make(chan struct{})}
	for i := 0; p.dec.PeekKind() != ']'; i++ {
		if i%4096 == 0 {
			if err := p.ctx.Err(); err != nil {
				return err
			}
		}
		start := p.dec.InputOffset()
		p.in.markValue(p.dec)
		raw, err := p.dec.ReadValue()
		if err != nil {
			return p.in.overLimit(err, "comparisons["+strconv.Itoa(i)+"]", start, func(err error) error { return jsonin.Err(p.file, p.dec, err) })
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
		if (len(b.raws) == batchSize || b.held >= batchBytes) && !p.send() {
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
func (p *pipeline) send() bool {
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
	p.cur = &batch{start: b.start + n, done: make(chan struct{}), buf: make([]byte, 0, min(size, batchBytes))}
	return true
}

// hold takes n bytes of the in-flight budget. The batch being filled is
// sent first when the budget is short, so that what is held can always be
// released.
func (p *pipeline) hold(n int64) (bool, error) {
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
func (b *batch) decode(fast *fastDecoder, file string, v2, haveMeta bool, ann map[string]int, items jsonin.Items) {
	// The rows hold copies: the JSON can go before the batch is appended
	// (the in-flight budget still counts it until then).
	defer func() {
		b.buf, b.raws = nil, nil
		fast.release()
	}()
	b.rows = make([]Row, 0, len(b.raws))
	for j, raw := range b.raws {
		if err := jsonin.CheckItems(raw, items); err != nil {
			var ie *jsonin.ItemsError
			errors.As(err, &ie)
			b.err = &model.InputError{File: file, Offset: b.offs[j], Line: jsonin.LineAt(file, b.offs[j]),
				Path: jsonin.JoinPath("comparisons["+strconv.Itoa(b.start+j)+"]", ie.Path), Msg: ie.Msg()}
			return
		}
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
func fullRow(raw []byte, v2, haveMeta bool) (Row, error) {
	var c comparison
	if err := jsonv2.Unmarshal(raw, &c, jsontext.AllowDuplicateNames(true)); err != nil {
		return Row{}, err
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

func (c *comparison) row(v2, haveMeta bool) (Row, error) {
	var r Row
	switch raw := bytes.TrimSpace(c.ID); {
	case len(raw) == 0 || bytes.Equal(raw, []byte("null")):
		return r, &model.InputError{Offset: -1, Path: "id", Msg: "missing: every comparison needs an id"}
	case raw[0] == '"':
		s, _, err := rawString(raw, "id")
		if err != nil {
			return r, err
		}
		r.ID = s
	case raw[0] == '-' || (raw[0] >= '0' && raw[0] <= '9'):
		r.ID = string(raw)
	default:
		return r, &model.InputError{Offset: -1, Path: "id", Msg: "want a string or a number, found " + jsonin.Kind(raw)}
	}
	if p, ok, err := rawString(c.Prompt, "prompt"); err != nil {
		return r, err
	} else if ok {
		r.Prompt = p
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
		if r.TextA, r.ModelA, r.AttrsA, err = responseFields(c.ResponseA, "response_a"); err != nil {
			return r, err
		}
		if r.TextB, r.ModelB, r.AttrsB, err = responseFields(c.ResponseB, "response_b"); err != nil {
			return r, err
		}
	} else {
		if c.TextA == nil {
			return r, &model.InputError{Offset: -1, Path: "text_a", Msg: "missing: a format 1.x comparison needs text_a (or set metadata.version to 2.0 for response_a objects)"}
		}
		if c.TextB == nil {
			return r, &model.InputError{Offset: -1, Path: "text_b", Msg: "missing: a format 1.x comparison needs text_b"}
		}
		r.TextA, r.TextB = *c.TextA, *c.TextB
	}
	// In key order, not map order: the same file gives the same rows, the
	// same annotator order and the same first error.
	for _, ann := range slices.Sorted(maps.Keys(c.Annotations)) {
		a := c.Annotations[ann]
		if a.Pref == nil {
			continue // no "pref" key: Feedback Forensics skips the annotation
		}
		v := Vote{Annotator: ann, Reason: a.Reason}
		p, ok, err := rawString(a.Pref, "annotations."+ann+".pref")
		if err != nil {
			return r, err
		}
		if ok {
			if v2 && (p == "a" || p == "b") {
				p = "text_" + p
			}
			v.Pref = &p
		}
		r.Votes = append(r.Votes, v)
	}
	if m := bytes.TrimSpace(c.Metadata); len(m) > 0 && !bytes.Equal(m, []byte("null")) {
		if m[0] != '{' {
			return r, &model.InputError{Offset: -1, Path: "metadata", Msg: "want an object, found " + jsonin.Kind(m)}
		}
		pairs, err := Members(m)
		if err != nil {
			return r, &model.InputError{Offset: -1, Path: "metadata", Msg: err.Error()}
		}
		for _, kv := range pairs {
			r.MetaPairs = append(r.MetaPairs, [2]string{kv.Key, kv.Value})
		}
		r.Metadata = string(m)
	}
	return r, nil
}

// Members returns a JSON object's members in file order, each value as
// text (scalarText): how a comparison's metadata and a response's attributes
// are shown.
func Members(b []byte) ([]model.KeyValue, error) {
	dec := jsontext.NewDecoder(bytes.NewReader(b), jsontext.AllowDuplicateNames(true))
	if _, err := dec.ReadToken(); err != nil {
		return nil, err
	}
	var out []model.KeyValue
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
		out = append(out, model.KeyValue{Key: key, Value: scalarText(v)})
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
