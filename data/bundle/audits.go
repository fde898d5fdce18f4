package bundle

import (
	"database/sql/driver"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"maps"
	"math"
	"runtime"
	"slices"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"

	"github.com/auditscope/auditscope/data/internal/jsonin"
	"github.com/auditscope/auditscope/data/internal/load"
	"github.com/auditscope/auditscope/data/internal/ztext"
	"github.com/auditscope/auditscope/data/model"
	"github.com/auditscope/auditscope/data/petri"
)

// auditItem finds an audit's transcript: given inline (raw, from an
// in-memory bundle, or decoded), served from memory, or read from the
// bundle's transcript_path.
func (l *loader) auditItem(p Pos, a *Audit, raw json.RawMessage) (auditItem, error) {
	it := auditItem{pos: p, a: a, ord: len(l.audits)}
	if l.app != nil {
		it.ord = l.app.FirstOrd + l.app.Added
	}
	switch {
	case raw != nil && a.TranscriptPath != "", a.Transcript != nil && a.TranscriptPath != "":
		return it, fieldErr(p, "transcript_path", "give either transcript or transcript_path, not both")
	case raw != nil:
		// An in-memory bundle passes the JSON and may keep the struct.
		it.body, it.t = raw, a.Transcript
	case a.Transcript != nil && l.opts.MemoryTranscripts:
		// Served from memory on demand; nothing to store.
		it.t = a.Transcript
	case a.Transcript != nil:
		it.t, it.marshal = a.Transcript, true
	case a.TranscriptPath != "":
		if !fs.ValidPath(a.TranscriptPath) || strings.Contains(a.TranscriptPath, `\`) {
			return it, fieldErr(p, "transcript_path", "%q leaves the bundle: give a path relative to the bundle folder, without ..", a.TranscriptPath)
		}
		b, err := l.src.ReadFile(a.TranscriptPath)
		if err != nil {
			return it, fieldErr(p, "transcript_path", "%v", err)
		}
		it.body = b
	default:
		return it, fieldErr(p, "transcript", "missing: give transcript or transcript_path")
	}
	return it, nil
}

// loadAudits checks audits in order, prepares them in batches on every core
// (decoding transcripts, building search text and score JSON, the costly
// part) and appends them in order, with their transcripts. Three stages
// overlap: while the source decodes the next lines and this goroutine checks
// them, earlier batches are prepared and the one before those is appended
// (auditPipeline).
func (l *loader) loadAudits() error {
	au, err := l.tx.Appender("audits")
	if err != nil {
		return err
	}
	defer au.Close()
	at, err := l.tx.Appender("audit_transcripts")
	if err != nil {
		return err
	}
	defer at.Close()
	ss, err := l.tx.Appender("sample_scores")
	if err != nil {
		return err
	}
	defer ss.Close()
	p := l.startPipeline(au, at, ss)
	batch := make([]auditItem, 0, auditBatch)
	size := 0
	err = l.src.Audits(func(pos Pos, a *Audit, raw json.RawMessage) error {
		if p.failed.Load() {
			return errPipeline // the appender's error, an earlier line's, is returned
		}
		if l.app != nil && l.app.Existing[a.ID] {
			// Imported before from this file: an append only adds. The
			// same id from another file is a clash a full import refuses too.
			if src := a.Labels["source"]; src != "" && l.app.Source[a.ID] != "" && src != l.app.Source[a.ID] {
				return &model.InputError{File: pos.File, Offset: -1, Msg: fmt.Sprintf("audit id %q is used twice: by %s and by %s", a.ID, l.app.Source[a.ID], src)}
			}
			return nil
		}
		if err := l.checkAudit(pos, a); err != nil {
			return err
		}
		l.audits[a.ID] = true
		if l.app != nil {
			defer func() { l.app.Added++ }()
		}
		it, err := l.auditItem(pos, a, raw)
		if err != nil {
			return err
		}
		batch = append(batch, it)
		if size += len(it.body); len(batch) == auditBatch || size >= auditBatchBytes {
			if err := l.ctx.Err(); err != nil {
				return err
			}
			p.submit(batch)
			batch, size = make([]auditItem, 0, auditBatch), 0
		}
		return nil
	})
	if len(batch) > 0 && !errors.Is(err, errPipeline) {
		// After an error too: an earlier line of the batch may have a
		// transcript that fails to decode, which is reported first.
		p.submit(batch)
	}
	// A batch before the line that stopped the reading holds earlier lines:
	// its error comes first.
	if perr := p.finish(err != nil); perr != nil || errors.Is(err, errPipeline) {
		err = perr
	}
	if err == nil {
		err = l.ctx.Err()
	}
	for _, a := range []load.Appender{au, at, ss} {
		if cerr := a.Close(); err == nil {
			err = cerr
		}
	}
	if err != nil {
		return err
	}
	l.counts["audits"] = int64(len(l.audits))
	l.counts["scores"] = l.nScores
	if l.opts.DeferScores {
		return nil
	}
	// One statement after the audits, on all of DuckDB's threads: 3.5 s of
	// 100,000 audits' 3.8 million scores, where appending them row by row
	// beside the audits held the appender's goroutine, the import's
	// slowest stage, for 10 s (docs/PERFORMANCE.md).
	// audit_scores holds only the dimensions without a score column: the
	// others are read from their columns, and a lake gets them from there.
	var long []string
	for d, s := range l.slots {
		if s == NoSlot {
			long = append(long, d)
		}
	}
	slices.Sort(long)
	return l.tx.AuditScores(l.id, l.nScores, long)
}

// errPipeline stops the reading when the appender has failed; finish
// returns the appender's own error.
var errPipeline = errors.New("the import's appender stopped")

// auditPipeline prepares submitted batches of audits on every core and
// appends them, in the order submitted, on a goroutine of its own. At most
// queueDepth batches wait, so a slow appender holds up the reading rather
// than filling memory.
type auditPipeline struct {
	l          *loader
	au, at, ss load.Appender
	queue      chan *auditBatchItems
	done       chan struct{}
	abort      atomic.Bool // stop appending: the import has failed
	failed     atomic.Bool // the appender has stopped with err
	err        error       // read after done
}

type auditBatchItems struct {
	items []auditItem
	ready chan struct{}
}

const queueDepth = 2

func (l *loader) startPipeline(au, at, ss load.Appender) *auditPipeline {
	p := &auditPipeline{l: l, au: au, at: at, ss: ss, queue: make(chan *auditBatchItems, queueDepth), done: make(chan struct{})}
	go func() {
		defer close(p.done)
		for b := range p.queue {
			<-b.ready
			if p.err != nil {
				continue
			}
			if p.abort.Load() {
				p.err = prepareErr(b.items)
			} else {
				p.err = p.append(b.items)
			}
			p.failed.Store(p.err != nil)
		}
	}()
	return p
}

// append writes a prepared batch; an audit whose preparation failed stops it.
func (p *auditPipeline) append(items []auditItem) error {
	for i := range items {
		it := &items[i]
		if it.err != nil {
			return it.err
		}
		if err := p.l.appendAudit(p.au, p.at, it); err != nil {
			return err
		}
		if err := p.l.appendScorers(p.ss, it.a); err != nil {
			return err
		}
		*it = auditItem{} // appended: let the collector have it
	}
	return nil
}

// prepareErr is the first preparation error of items.
func prepareErr(items []auditItem) error {
	for i := range items {
		if items[i].err != nil {
			return items[i].err
		}
	}
	return nil
}

// submit starts preparing items and queues them for the appender; it
// blocks while queueDepth batches wait.
func (p *auditPipeline) submit(items []auditItem) {
	b := &auditBatchItems{items: items, ready: make(chan struct{})}
	go func() {
		prepareAudits(items)
		close(b.ready)
	}()
	p.queue <- b
}

// finish waits for the queued batches and returns the appender's error;
// with abort, queued batches are only checked for preparation errors.
func (p *auditPipeline) finish(abort bool) error {
	p.abort.Store(abort)
	close(p.queue)
	<-p.done
	return p.err
}

// appendAudit writes one prepared audit and its transcript.
func (l *loader) appendAudit(au, at load.Appender, it *auditItem) error {
	a := it.a
	sp := SplitBenign
	switch {
	case a.Sample:
		sp = "" // not an audit: no behavior, so not benign either
	case a.Behavior != "":
		sp = l.split[a.Behavior]
	}
	var labels, strategy any
	if len(a.Labels) > 0 {
		labels = mustJSON(a.Labels)
		if st, ok := a.Labels["strategy"]; ok {
			strategy = st
		}
	}
	var file any
	if it.zbody == nil {
		file = load.MemoryTranscript
	}
	l.row = append(l.row[:0], l.id+":"+a.ID, l.id, a.ID, int32(it.ord), a.Auditor, a.Eval, load.NullString(a.Behavior), sp, a.Seed, a.Target, int32(a.Turns),
		optBool(a.Outcome.Detected), optBool(a.Outcome.FalsePositive), optFloat(a.Outcome.Quality), optFloat(a.Outcome.ProductionValue),
		a.Summary, it.scores, labels, strategy, int32(it.messages), int64(it.size), file, it.search)
	if err := au.Row(l.scoreSlots(a)...); err != nil {
		return err
	}
	l.nScores += int64(len(a.Scores) + len(a.Columns))
	for d := range a.Scores {
		l.dimCount[d]++
	}
	for d := range a.Columns {
		l.dimCount[d]++
	}
	if it.zbody == nil {
		return nil
	}
	return at.Row(l.id, a.ID, nil, it.zbody)
}

// NoSlot marks a judge dimension without a score column of its own.
const NoSlot = -1

// scoreSlots adds a's scores in the score columns to l.row (NULL where a
// has no score), giving the dimensions met for the first time the next
// free columns, in the order of their names within an audit and of the
// audits in the file (appendAudit's order), so that the same file gives the
// same columns.
func (l *loader) scoreSlots(a *Audit) []driver.Value {
	// A name in both maps is counted once by skipping, among the scores,
	// those the columns have: a lookup, not a search of fresh, which was
	// quadratic in an audit's keys (a megabyte of them took 18 s).
	var fresh []string
	for d := range a.Columns {
		if _, ok := l.slots[d]; !ok {
			fresh = append(fresh, d)
		}
	}
	for d := range a.Scores {
		if _, ok := l.slots[d]; ok {
			continue
		}
		if _, ok := a.Columns[d]; !ok {
			fresh = append(fresh, d)
		}
	}
	slices.Sort(fresh)
	for _, d := range fresh {
		l.slots[d] = NoSlot
		if l.nextSlot < load.ScoreSlots {
			l.slots[d] = l.nextSlot
			l.nextSlot++
		}
	}
	n := len(l.row)
	for range load.ScoreSlots {
		l.row = append(l.row, nil)
	}
	// Scores take precedence over columns of the same name, as in the
	// scores JSON (prepare).
	for _, m := range []map[string]float64{a.Columns, a.Scores} {
		for d, v := range m {
			if s := l.slots[d]; s != NoSlot {
				l.row[n+s] = v
			}
		}
	}
	return l.row
}

// appendScorers writes an Inspect sample's scores as its scorers gave them.
func (l *loader) appendScorers(w load.Appender, a *Audit) error {
	for i := range a.Scorers {
		sc := &a.Scorers[i]
		if err := w.Row(l.id, a.ID, sc.Log, sc.Scorer, sc.Key, sc.Value, sc.Num, sc.Converted, sc.Judge, sc.Answer, sc.Explanation); err != nil {
			return err
		}
	}
	l.counts["sample_scores"] += int64(len(a.Scorers))
	return nil
}

// An audit batch, prepared in parallel and appended at once, ends at
// auditBatch audits or auditBatchBytes of transcripts.
const (
	auditBatch      = 256
	auditBatchBytes = 16 << 20
)

// auditItem is one validated audit on its way into the store.
type auditItem struct {
	pos      Pos
	a        *Audit
	ord      int
	t        *petri.Transcript
	body     []byte
	zbody    []byte // body compressed, as the store keeps it
	size     int    // the length of body
	marshal  bool   // body is to be marshalled from t
	scores   any    // JSON object or nil
	search   string
	messages int
	err      error
}

// prepareAudits decodes transcripts and builds the derived columns of a
// batch on every core; an item that fails keeps its error.
func prepareAudits(items []auditItem) {
	workers := runtime.GOMAXPROCS(0)
	var wg sync.WaitGroup
	for w := 0; w < workers; w++ {
		wg.Go(func() {
			var names scoreNames
			for i := w; i < len(items); i += workers {
				items[i].prepare(&names)
			}
		})
	}
	wg.Wait()
}

func (it *auditItem) prepare(names *scoreNames) {
	if it.marshal {
		b, err := json.Marshal(it.t)
		if err != nil {
			it.err = fieldErr(it.pos, "transcript", "%v", err)
			return
		}
		it.body = b
	}
	if it.t == nil {
		// One pass for the two columns the store derives from the body;
		// what the pass does not settle is decoded whole, as before.
		if search, n, ok := petri.Index(it.body); ok {
			it.search = strings.ToLower(it.a.Summary + "\n" + search)
			it.messages = n
			it.finish(names)
			return
		}
		t, err := jsonin.Decode[petri.Transcript](it.body, json.Unmarshal)
		if err != nil {
			it.err = fieldErr(it.pos, "transcript", "not a Petri transcript: %s", describeErr(err))
			return
		}
		it.t = t
	}
	defer func() { it.t = nil }() // the columns below are all the store needs of it
	// Stored lower-cased so search is a plain LIKE (several times faster
	// than ILIKE over hundreds of MB).
	it.search = strings.ToLower(it.a.Summary + "\n" + it.t.SearchText())
	it.messages = it.t.MessageCount()
	it.finish(names)
}

// finish compresses the body and writes the scores' JSON.
func (it *auditItem) finish(names *scoreNames) {
	if it.body != nil {
		// Stored compressed; the text is not needed after this.
		it.zbody, it.size, it.body = ztext.Compress(it.body), len(it.body), nil
	}
	scores := it.a.Scores
	if len(it.a.Columns) > 0 {
		scores = maps.Clone(it.a.Columns)
		maps.Copy(scores, it.a.Scores)
	}
	it.scores = names.json(scores)
}

// scoreNames keeps the sorted names of the last scores a worker wrote, each
// as its JSON key: the audits of a file nearly all have the same
// dimensions, and sorting and quoting them for each audit was a tenth of
// preparing one.
type scoreNames struct {
	sorted []string
	keys   [][]byte // `"name":`
}

// json writes scores as a JSON object with sorted keys (nil when there are
// none).
func (n *scoreNames) json(scores map[string]float64) any {
	if len(scores) == 0 {
		return nil
	}
	// The same number of names, each of them in scores: the same names.
	same := len(n.sorted) == len(scores)
	for _, d := range n.sorted {
		if !same {
			break
		}
		_, same = scores[d]
	}
	if !same {
		n.sorted = slices.Sorted(maps.Keys(scores))
		n.keys = n.keys[:0]
		for _, d := range n.sorted {
			n.keys = append(n.keys, append(jsonin.AppendString(nil, d), ':'))
		}
	}
	b := make([]byte, 0, 24*len(scores))
	b = append(b, '{')
	for i, d := range n.sorted {
		if i > 0 {
			b = append(b, ',')
		}
		b = append(b, n.keys[i]...)
		// Judge scores are nearly always whole numbers; AppendInt is several
		// times faster than the shortest float formatting.
		if v := scores[d]; v == math.Trunc(v) && math.Abs(v) < 1e15 {
			b = strconv.AppendInt(b, int64(v), 10)
		} else {
			b = strconv.AppendFloat(b, v, 'g', -1, 64)
		}
	}
	return string(append(b, '}'))
}

func describeErr(err error) string {
	var typ *json.UnmarshalTypeError
	if errors.As(err, &typ) {
		return jsonin.Describe(typ)
	}
	return err.Error()
}

func optInt(p *int) any {
	if p == nil {
		return nil
	}
	return int32(*p)
}

func optBool(p *bool) any {
	if p == nil {
		return nil
	}
	return *p
}

func optFloat(p *float64) any {
	if p == nil {
		return nil
	}
	return *p
}
