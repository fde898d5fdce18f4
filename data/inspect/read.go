package inspect

import (
	"archive/zip"
	"bufio"
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"regexp"
	"sort"
	"strconv"
	"strings"

	"github.com/klauspost/compress/zstd"

	"github.com/auditscope/auditscope/data/internal/regular"
	"github.com/auditscope/auditscope/data/petri"

	"github.com/auditscope/auditscope/data/internal/limit"
	"github.com/auditscope/auditscope/data/internal/zipmember"

	"github.com/auditscope/auditscope/data/internal/jsonin"
)

// StatusStarted is the status of a log still being written.
const StatusStarted = "started"

// Members of a .eval zip.
const (
	memberHeader  = "header.json"
	memberStart   = "_journal/start.json" // the header of a log still being written
	chunkedShell  = "sample.json"
	chunkedMeta   = "metadata.json"
	seqMessages   = "messages"
	seqEvents     = "events"
	seqAttachment = "attachments"
)

// Log is an open Inspect log. Close it when done.
type Log struct {
	Path   string
	Header Header

	max     int64 // the limit on one value
	zip     *zip.Reader
	file    *os.File
	members map[string]*zip.File // the last member of each name
	refs    []sampleRef          // .eval samples in (id, epoch) order
}

// sampleRef is where a .eval sample lives.
type sampleRef struct {
	id      string
	epoch   int
	member  string // monolith member, or the chunked sample's shell
	chunked bool
}

var (
	monolithName = regexp.MustCompile(`^samples/(.+)_epoch_([0-9]+)\.json$`)
	chunkedName  = regexp.MustCompile(`^samples/(.+)_epoch_([0-9]+)/sample\.json$`)
)

// Open opens a .eval or .json log and reads its header. maxValue limits
// one member or sample (0: limit.Default).
func Open(path string, maxValue int64) (*Log, error) {
	if strings.EqualFold(filepath.Ext(path), ".eval") {
		return openEval(path, limit.Or(maxValue))
	}
	return openJSON(path, limit.Or(maxValue))
}

// Close releases the log's file.
func (l *Log) Close() error {
	if l.file == nil {
		return nil
	}
	err := l.file.Close()
	l.file = nil
	return err
}

func (l *Log) errorf(member, path string, format string, args ...any) *Error {
	return &Error{File: l.Path, Member: member, Path: path, Offset: -1, Msg: fmt.Sprintf(format, args...)}
}

// decodeErr turns a petri.ParseError (or another decoding error) into an
// *Error at member, under the JSON path prefix.
func (l *Log) decodeErr(member, prefix string, offset int64, err error) *Error {
	var le *Error
	if errors.As(err, &le) {
		return le
	}
	e := &Error{File: l.Path, Member: member, Path: prefix, Offset: offset, Msg: err.Error()}
	var pe *petri.ParseError
	if errors.As(err, &pe) {
		e.Path, e.Msg = petri.JoinPath(prefix, pe.Path), pe.Msg
		if pe.Offset >= 0 && offset >= 0 {
			e.Offset = offset + pe.Offset
		}
	}
	return e
}

func openEval(path string, max int64) (*Log, error) {
	l := &Log{Path: path, max: max}
	f, err := regular.Open(path)
	if err != nil {
		return nil, err
	}
	st, err := f.Stat()
	if err != nil {
		f.Close()
		return nil, err
	}
	if err := zipmember.CheckCount(f, st.Size(), zipmember.MaxMembers(limit.Or(max), limit.Default)); err != nil {
		f.Close()
		return nil, l.errorf("", "", "%v", err)
	}
	zr, err := zip.NewReader(f, st.Size())
	if err != nil {
		f.Close()
		return nil, l.errorf("", "", "not a readable .eval (zip) file: %v", err)
	}
	// Current Inspect writes zstd members (method 93).
	zr.RegisterDecompressor(zstd.ZipMethodWinZip, zstd.ZipDecompressor(zstd.WithDecoderMaxMemory(uint64(max))))
	l.zip, l.file = zr, f
	l.members = make(map[string]*zip.File, len(zr.File))
	for _, m := range zr.File {
		if err := checkMember(m, max); err != nil {
			f.Close()
			return nil, l.errorf(m.Name, "", "%v", err)
		}
		// A name written twice (an appended header.json, say): the last wins.
		l.members[m.Name] = m
	}
	name := memberHeader
	if l.members[name] == nil {
		name = memberStart
	}
	if l.members[name] == nil {
		f.Close()
		return nil, l.errorf("", "", "no header.json (or _journal/start.json): not an Inspect .eval log")
	}
	b, err := l.read(name)
	if err != nil {
		f.Close()
		return nil, err
	}
	if err := petri.Decode(b, &l.Header); err != nil {
		f.Close()
		return nil, l.decodeErr(name, "", -1, err)
	}
	if name == memberStart && l.Header.Status == "" {
		// Inspect writes header.json when the eval ends: until then the log
		// is running (Inspect's own status for it is "started").
		l.Header.Status = StatusStarted
	}
	seen := map[string]bool{}
	for name := range l.members {
		m, chunked := monolithName.FindStringSubmatch(name), false
		if m == nil {
			m, chunked = chunkedName.FindStringSubmatch(name), true
		}
		if m == nil {
			continue
		}
		epoch, err := strconv.Atoi(m[2])
		if err != nil {
			continue
		}
		key := m[1] + "\x00" + m[2]
		if seen[key] {
			// One shape per sample; a monolith and a chunked copy of the
			// same sample would be a writer bug: keep the monolith.
			if chunked {
				continue
			}
			for i := range l.refs {
				if l.refs[i].id == m[1] && l.refs[i].epoch == epoch {
					l.refs[i] = sampleRef{id: m[1], epoch: epoch, member: name}
				}
			}
			continue
		}
		seen[key] = true
		l.refs = append(l.refs, sampleRef{id: m[1], epoch: epoch, member: name, chunked: chunked})
	}
	sort.Slice(l.refs, func(i, j int) bool {
		a, b := l.refs[i], l.refs[j]
		if a.id != b.id {
			return lessID(a.id, b.id)
		}
		return a.epoch < b.epoch
	})
	return l, nil
}

// checkMember refuses a member whose name could escape a folder or whose
// claimed size is over the limit on one value, before any of it is read.
func checkMember(f *zip.File, max int64) error {
	return zipmember.Check(f, uint64(max), func(size uint64) string {
		return limit.Message(fmt.Sprintf("the member (%d bytes uncompressed)", size), max)
	})
}

// read reads one member whole, never past its claimed size.
func (l *Log) read(name string) ([]byte, error) {
	m := l.members[name]
	if m == nil {
		return nil, l.errorf(name, "", "missing from the zip")
	}
	rc, err := m.Open()
	if err != nil {
		return nil, l.errorf(name, "", "cannot read member: %v", err)
	}
	defer rc.Close()
	var buf bytes.Buffer
	// Grow by what the header claims, within reason: a lying header must not
	// make us allocate up front.
	buf.Grow(int(min(m.UncompressedSize64, 64<<20)))
	if _, err := io.Copy(&buf, io.LimitReader(rc, int64(m.UncompressedSize64)+1)); err != nil {
		return nil, l.errorf(name, "", "cannot read member (corrupt?): %v", err)
	}
	if uint64(buf.Len()) > m.UncompressedSize64 {
		return nil, l.errorf(name, "", "member is larger than its header claims (%d bytes)", m.UncompressedSize64)
	}
	if i := jsonin.FirstInvalidUTF8(buf.Bytes()); i >= 0 {
		return nil, l.errorf(name, "", "not valid UTF-8 (at byte offset %d)", i)
	}
	// A byte order mark, as a Windows editor writes one, is not JSON but
	// says nothing: it is read past, as in every other format.
	b := bytes.TrimPrefix(buf.Bytes(), jsonin.BOM)
	if err := jsonin.CheckItems(b, jsonin.ItemsFor(l.max)); err != nil {
		var ie *jsonin.ItemsError
		errors.As(err, &ie)
		return nil, l.errorf(name, ie.Path, "%s", ie.Msg())
	}
	return b, nil
}

// eachRawSample hands each element of a .json log's samples list to
// sample, raw and checked for UTF-8, with its offset.
func (l *Log) eachRawSample(dec *json.Decoder, mark func(), fail func(string, error) error, sample func(i int, offset int64, raw json.RawMessage) error) error {
	for i := 0; dec.More(); i++ {
		off := dec.InputOffset()
		mark()
		var raw json.RawMessage
		if err := dec.Decode(&raw); err != nil {
			return fail(fmt.Sprintf("samples[%d]", i), err)
		}
		if j := jsonin.FirstInvalidUTF8(raw); j >= 0 {
			return &Error{File: l.Path, Path: fmt.Sprintf("samples[%d]", i), Offset: dec.InputOffset() - int64(len(raw)-j), Msg: "not valid UTF-8"}
		}
		if err := jsonin.CheckItems(raw, jsonin.ItemsFor(l.max)); err != nil {
			var ie *jsonin.ItemsError
			errors.As(err, &ie)
			return &Error{File: l.Path, Path: jsonin.JoinPath(fmt.Sprintf("samples[%d]", i), ie.Path), Offset: -1, Msg: ie.Msg()}
		}
		// The callback's errors (a bad sample, or whatever the caller
		// returns) already say where they are.
		if err := sample(i, off, raw); err != nil {
			return err
		}
	}
	return nil
}

// Samples visits every sample in order, with its messages.
func (l *Log) Samples(fn func(*Sample) error) error { return l.each(true, fn) }

// Summaries visits every sample like Samples but without messages: the
// cheap pass for ids, scores and metadata.
func (l *Log) Summaries(fn func(*Sample) error) error { return l.each(false, fn) }

func (l *Log) each(withMessages bool, fn func(*Sample) error) error {
	if l.zip == nil {
		return l.eachJSON(withMessages, fn)
	}
	for _, r := range l.refs {
		var s *Sample
		var err error
		if r.chunked {
			s, err = l.chunkedSample(r, withMessages)
		} else {
			var b []byte
			if b, err = l.read(r.member); err == nil {
				s, err = decodeSample(b, nil, withMessages, l.max)
				if err != nil {
					err = l.decodeErr(r.member, "", -1, err)
				}
			}
		}
		if err != nil {
			return err
		}
		s.Member = r.member
		if err := fn(s); err != nil {
			return err
		}
	}
	return nil
}

// chunkedSample assembles a chunked sample: the shell, its message and
// attachment sequences and its metadata.
func (l *Log) chunkedSample(r sampleRef, withMessages bool) (*Sample, error) {
	prefix := strings.TrimSuffix(r.member, chunkedShell)
	shellBytes, err := l.read(r.member)
	if err != nil {
		return nil, err
	}
	var shell map[string]json.RawMessage
	if err := petri.Decode(shellBytes, &shell); err != nil {
		return nil, l.decodeErr(r.member, "", -1, err)
	}
	// Chunked attachments are a sequence referenced as attachment://<index>.
	att := map[string]string{}
	items, err := l.sequence(prefix, seqAttachment)
	if err != nil {
		return nil, err
	}
	for i, it := range items {
		var s string
		if err := json.Unmarshal(it.raw, &s); err != nil {
			return nil, l.errorf(it.member, fmt.Sprintf("[%d]", it.index), "want an attachment string, found %s", jsonin.Kind(bytes.TrimSpace(it.raw)))
		}
		att[strconv.Itoa(i)] = s
	}
	if m := l.members[prefix+chunkedMeta]; m != nil {
		b, err := l.read(m.Name)
		if err != nil {
			return nil, err
		}
		shell["metadata"] = b
	}
	if withMessages {
		var refs [][2]int
		if raw, ok := shell["message_refs"]; ok {
			if err := petri.Decode(raw, &refs); err != nil {
				return nil, l.decodeErr(r.member, "message_refs", -1, err)
			}
		}
		pool, err := l.sequence(prefix, seqMessages)
		if err != nil {
			return nil, err
		}
		msgs := make([]json.RawMessage, 0, len(pool))
		for i, ref := range refs {
			if ref[0] < 0 || ref[1] < ref[0] || ref[1] > len(pool) {
				return nil, l.errorf(r.member, fmt.Sprintf("message_refs[%d]", i), "range [%d, %d) is outside the %d pooled messages", ref[0], ref[1], len(pool))
			}
			for _, it := range pool[ref[0]:ref[1]] {
				msgs = append(msgs, it.raw)
			}
		}
		b, err := json.Marshal(msgs)
		if err != nil {
			return nil, err
		}
		shell["messages"] = b
		if len(msgs) == 0 {
			// No final conversation: rebuild it from the last model call.
			poolRaw := make([]json.RawMessage, len(pool))
			for i, it := range pool {
				poolRaw[i] = it.raw
			}
			events, err := l.sequence(prefix, seqEvents)
			if err != nil {
				return nil, err
			}
			evRaw := make([]json.RawMessage, len(events))
			for i, it := range events {
				evRaw[i] = it.raw
			}
			if shell["events"], err = json.Marshal(evRaw); err != nil {
				return nil, err
			}
			if shell["events_data"], err = json.Marshal(map[string]any{"messages": poolRaw}); err != nil {
				return nil, err
			}
		}
	}
	delete(shell, "message_refs")
	b, err := json.Marshal(shell)
	if err != nil {
		return nil, err
	}
	s, err := decodeSample(b, att, withMessages, l.max)
	if err != nil {
		return nil, l.decodeErr(r.member, "", -1, err)
	}
	return s, nil
}

// seqItem is one item of a chunked sequence and the chunk it came from.
type seqItem struct {
	raw    json.RawMessage
	member string
	index  int // within the chunk
}

// sequence reads a chunked sequence: chunks named by their first item's
// index, contiguous from 0.
func (l *Log) sequence(prefix, seq string) ([]seqItem, error) {
	dir := prefix + seq + "/"
	type chunk struct {
		start int
		name  string
	}
	var chunks []chunk
	for name := range l.members {
		stem, ok := strings.CutPrefix(name, dir)
		if !ok {
			continue
		}
		stem, ok = strings.CutSuffix(stem, ".json")
		if !ok {
			continue
		}
		start, err := strconv.Atoi(stem)
		if err != nil || start < 0 {
			continue // stats.json, uuids.json and the like
		}
		chunks = append(chunks, chunk{start, name})
	}
	sort.Slice(chunks, func(i, j int) bool { return chunks[i].start < chunks[j].start })
	var out []seqItem
	for _, c := range chunks {
		if c.start != len(out) {
			return nil, l.errorf(c.name, "", "chunk starts at item %d but the chunks before it hold %d items", c.start, len(out))
		}
		b, err := l.read(c.name)
		if err != nil {
			return nil, err
		}
		var items []json.RawMessage
		if err := petri.Decode(b, &items); err != nil {
			return nil, l.decodeErr(c.name, "", -1, err)
		}
		for i, it := range items {
			out = append(out, seqItem{raw: it, member: c.name, index: i})
		}
	}
	return out, nil
}

// openJSON reads a .json log's header. Inspect writes the samples after
// the header, so reading stops there; a log written in another order is
// streamed past its samples.
func openJSON(path string, max int64) (*Log, error) {
	l := &Log{Path: path, max: max}
	top := map[string]json.RawMessage{}
	err := l.streamJSON(func(key string, dec *json.Decoder) error {
		var raw json.RawMessage
		if err := dec.Decode(&raw); err != nil {
			return err
		}
		if i := jsonin.FirstInvalidUTF8(raw); i >= 0 {
			return &Error{File: l.Path, Path: key, Offset: dec.InputOffset() - int64(len(raw)-i), Msg: "not valid UTF-8"}
		}
		top[key] = raw
		return nil
	}, func(int, int64, json.RawMessage) error { return nil }, func() bool {
		_, eval := top["eval"]
		_, stats := top["stats"]
		return eval && stats
	})
	if err != nil {
		return nil, err
	}
	if _, ok := top["eval"]; !ok {
		return nil, l.errorf("", "eval", "missing: not an Inspect log (an EvalLog has eval, plan, results, stats and samples)")
	}
	b, err := json.Marshal(top)
	if err != nil {
		return nil, err
	}
	if err := petri.Decode(b, &l.Header); err != nil {
		return nil, l.decodeErr("", "", -1, err)
	}
	return l, nil
}

// streamJSON walks a .json log's top-level object: other is called for
// each key but samples, sample with each sample's raw JSON. When stop is
// given and says so on reaching the samples, the walk ends there.
func (l *Log) streamJSON(other func(key string, dec *json.Decoder) error, sample func(i int, offset int64, raw json.RawMessage) error, stop func() bool) error {
	f, err := regular.Open(l.Path)
	if err != nil {
		return err
	}
	defer f.Close()
	br := bufio.NewReaderSize(f, 1<<20)
	var r io.Reader = br
	// A UTF-8 byte order mark reads as spaces: JSON allows none, and spaces
	// keep the offsets in errors true to the file.
	if b, _ := br.Peek(len(jsonin.BOM)); bytes.Equal(b, jsonin.BOM) {
		br.Discard(len(jsonin.BOM))
		r = io.MultiReader(strings.NewReader("   "), br)
	}
	// The decoder holds a whole value to decode it: the limit on one value
	// bounds each, its window starting where the value does.
	bound := &limit.Reader{R: r, Max: l.max, Slack: 4 << 20}
	dec := json.NewDecoder(bound)
	var start int64
	mark := func() { start = dec.InputOffset(); bound.Mark(start) }
	fail := func(path string, err error) error {
		var le *Error
		if errors.As(err, &le) {
			return le
		}
		if bound.Tripped() {
			return &Error{File: l.Path, Path: path, Offset: start, Msg: limit.Message("the value", l.max)}
		}
		e := &Error{File: l.Path, Path: path, Offset: dec.InputOffset(), Msg: err.Error()}
		var syn *json.SyntaxError
		switch {
		case errors.As(err, &syn):
			e.Offset, e.Msg = syn.Offset, "invalid JSON: "+syn.Error()
		case errors.Is(err, io.ErrUnexpectedEOF), errors.Is(err, io.EOF):
			e.Msg = "the file ends in the middle of the JSON (truncated?)"
		}
		return e
	}
	tok, err := dec.Token()
	if err != nil {
		return fail("", err)
	}
	if d, ok := tok.(json.Delim); !ok || d != '{' {
		return &Error{File: l.Path, Offset: 0, Msg: "want a JSON object (an Inspect EvalLog) at the top level"}
	}
	for dec.More() {
		tok, err := dec.Token()
		if err != nil {
			return fail("", err)
		}
		key, _ := tok.(string)
		if key != "samples" {
			mark()
			if err := other(key, dec); err != nil {
				return fail(key, err)
			}
			continue
		}
		if stop != nil && stop() {
			return nil
		}
		tok, err = dec.Token()
		if err != nil {
			return fail("samples", err)
		}
		if tok == nil {
			continue // "samples": null
		}
		if d, ok := tok.(json.Delim); !ok || d != '[' {
			return &Error{File: l.Path, Path: "samples", Offset: dec.InputOffset(), Msg: "want a list of samples"}
		}
		if err := l.eachRawSample(dec, mark, fail, sample); err != nil {
			return err
		}
		if _, err := dec.Token(); err != nil {
			return fail("samples", err)
		}
	}
	if _, err := dec.Token(); err != nil {
		return fail("", err)
	}
	return nil
}

func (l *Log) eachJSON(withMessages bool, fn func(*Sample) error) error {
	skip := func(key string, dec *json.Decoder) error {
		var raw json.RawMessage
		return dec.Decode(&raw)
	}
	return l.streamJSON(skip, func(i int, off int64, raw json.RawMessage) error {
		member := fmt.Sprintf("samples[%d]", i)
		s, err := decodeSample(raw, nil, withMessages, l.max)
		if err != nil {
			e := l.decodeErr("", member, off, err)
			if e.Offset < 0 {
				e.Offset = off
			}
			return e
		}
		s.Member = member
		return fn(s)
	}, nil)
}
