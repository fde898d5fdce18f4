package petri

import (
	"slices"
	"strconv"
	"strings"
	"sync"
	"unicode/utf8"
)

// Index returns what an import stores of a transcript besides its body, its
// SearchText and its MessageCount, from one pass over the JSON without
// building the Transcript: at a hundred thousand audits, decoding each
// transcript whole was a third of an import's CPU, most of it maps and
// slices the import throws away (docs/PERFORMANCE.md).
//
// The pass checks every value against the type json.Unmarshal would decode
// it into (a Transcript, described by reflection), so what it accepts the
// decoder accepts, with the same text and count (FuzzIndexAgrees). ok is
// false for whatever the pass does not settle alone: broken JSON, a key that
// differs from a field's name only in case, a field given twice, an escaped
// or non-ASCII key, a number out of its type's range, a type the pass does
// not know. The caller then decodes the body whole, which gives the answer,
// or the error worded as before.
func Index(body []byte) (search string, messages int, ok bool) {
	s := indexSchema()
	if s == nil {
		return "", 0, false
	}
	w := indexers.Get().(*indexer)
	defer w.release()
	w.b, w.i = body, 0
	w.ws()
	if w.i >= len(w.b) || w.b[w.i] != '{' || !w.value(s.root, roleNone) {
		return "", 0, false
	}
	if w.ws(); w.i != len(w.b) {
		return "", 0, false
	}
	search, messages = w.text()
	return search, messages, true
}

// indexer is one pass over a transcript.
type indexer struct {
	b     []byte
	i     int
	depth int
	// Where the pass is: the top-level list, the event and the part of its
	// edit (0 message, 1 new_messages).
	section, event, sub int
	recs                []rec
	cur                 *rec
	keys                []string // a tool call's argument names
	args                []arg
	ids                 map[string]bool
	out                 textWriter // its map kept from one transcript to the next
}

// rec is one message as eachMessage meets it: sorted by where it sits, as
// eachMessage visits them (events' edits, then messages, then
// target_messages), whatever the order of the keys in the file.
type rec struct {
	section, event, sub int
	id, content         string
	args                []string // its tool calls' string arguments, in order
}

type arg struct{ key, val string }

var indexers = sync.Pool{New: func() any {
	return &indexer{ids: map[string]bool{}}
}}

func (w *indexer) release() {
	clear(w.recs)
	w.recs = w.recs[:0]
	w.cur, w.b = nil, nil
	w.depth, w.section, w.event, w.sub = 0, 0, 0, 0
	clear(w.ids)
	clear(w.out.seen)
	w.out.b.Reset()
	indexers.Put(w)
}

// text is SearchText and MessageCount of the messages read.
func (w *indexer) text() (string, int) {
	slices.SortStableFunc(w.recs, func(a, b rec) int {
		if a.section != b.section {
			return a.section - b.section
		}
		if a.event != b.event {
			return a.event - b.event
		}
		return a.sub - b.sub
	})
	n := 0
	for i := range w.recs {
		r := &w.recs[i]
		if !firstSight(w.ids, r.id) {
			continue
		}
		n++
		w.out.write(r.content)
		for _, a := range r.args {
			w.out.write(a)
		}
	}
	return w.out.String(), n
}

// value checks the value at w.i against n; r is the role of the field or
// list it is in.
func (w *indexer) value(n *node, r role) bool {
	w.ws()
	if w.i >= len(w.b) {
		return false
	}
	c := w.b[w.i]
	if c == 'n' {
		// null leaves every type as it is (a Content empty), but a kind the
		// pass does not know may decode it its own way.
		return n.kind != kUnknown && w.lit("null")
	}
	switch n.kind {
	case kString:
		if c != '"' {
			return false
		}
		if r == roleID && w.cur != nil {
			s, ok := w.stringValue()
			w.cur.id = s
			return ok
		}
		_, _, ok := w.str()
		return ok
	case kBool:
		return (c == 't' && w.lit("true")) || (c == 'f' && w.lit("false"))
	case kInt:
		num, ok := w.number()
		if !ok {
			return false
		}
		_, err := strconv.ParseInt(string(num), 10, n.bits)
		return err == nil
	case kFloat:
		num, ok := w.number()
		if !ok {
			return false
		}
		_, err := strconv.ParseFloat(string(num), n.bits)
		return err == nil
	case kAny:
		return w.skip(true)
	case kRaw:
		return w.skip(false)
	case kPtr:
		return w.value(n.elem, r)
	case kStruct:
		return c == '{' && w.object(n)
	case kSlice:
		return c == '[' && w.array(n.elem, r)
	case kMap:
		if c != '{' {
			return false
		}
		if r == roleArguments && w.cur != nil {
			return w.arguments(n.elem)
		}
		return w.mapValues(n.elem)
	case kStrings:
		switch c {
		case '"':
			_, _, ok := w.str()
			return ok
		case '[':
			return w.stringList()
		}
		return false
	case kContent:
		return w.content(r)
	}
	return false
}

func (w *indexer) object(n *node) bool {
	var seen uint64
	isMsg := n == indexSchema().message
	if isMsg {
		w.recs = append(w.recs, rec{section: w.section, event: w.event, sub: w.sub})
	}
	idx := len(w.recs) - 1
	ok := w.members(func(key []byte, escaped bool) bool {
		f := -1
		for j := range n.fields {
			if string(key) == n.fields[j].name {
				f = j
				break
			}
		}
		if f < 0 {
			// encoding/json matches a key to a field whatever its case: such
			// keys, and keys the pass would have to unescape or fold, are left
			// to it. Others it skips, and so does the pass.
			if escaped || !isASCII(key) {
				return false
			}
			for j := range n.fields {
				if strings.EqualFold(string(key), n.fields[j].name) {
					return false
				}
			}
			return w.skip(false)
		}
		if seen&(1<<f) != 0 {
			return false // a field twice: encoding/json merges; left to it
		}
		seen |= 1 << f
		fd := &n.fields[f]
		if isMsg {
			// Taken afresh for each field: a pointer into w.recs would not
			// survive its growing.
			w.cur = &w.recs[idx]
		}
		switch fd.role {
		case roleEvents:
			w.section = 0
		case roleMessages:
			w.section, w.event, w.sub = 1, 0, 0
		case roleTargets:
			w.section, w.event, w.sub = 2, 0, 0
		case roleEditMessage:
			w.sub = 0
		case roleEditNew:
			w.sub = 1
		}
		return w.value(fd.node, fd.role)
	})
	if isMsg {
		w.cur = nil
	}
	return ok
}

// array walks a list of elem. In the events list each element's index is
// its place in eachMessage's order; a null in a list of messages is a
// message (empty), as json.Unmarshal makes it.
func (w *indexer) array(elem *node, r role) bool {
	i := 0
	return w.list(func() bool {
		if r == roleEvents {
			w.event = i
		}
		i++
		w.ws()
		if elem == indexSchema().message && w.i < len(w.b) && w.b[w.i] == 'n' {
			if !w.lit("null") {
				return false
			}
			w.recs = append(w.recs, rec{section: w.section, event: w.event, sub: w.sub})
			return true
		}
		return w.value(elem, roleNone)
	})
}

func (w *indexer) mapValues(elem *node) bool {
	return w.members(func(_ []byte, _ bool) bool { return w.value(elem, roleNone) })
}

// arguments reads a tool call's arguments: their string values, in the
// order of their names (SearchText sorts them).
func (w *indexer) arguments(elem *node) bool {
	w.keys, w.args = w.keys[:0], w.args[:0]
	ok := w.members(func(key []byte, escaped bool) bool {
		if escaped || !utf8.Valid(key) {
			return false
		}
		k := string(key)
		if slices.Contains(w.keys, k) {
			return false // the last one wins in a map: left to the decoder
		}
		w.keys = append(w.keys, k)
		w.ws()
		if elem.kind == kAny && w.i < len(w.b) && w.b[w.i] == '"' {
			s, ok := w.stringValue()
			w.args = append(w.args, arg{k, s})
			return ok
		}
		return w.value(elem, roleNone)
	})
	if !ok {
		return false
	}
	slices.SortFunc(w.args, func(a, b arg) int { return strings.Compare(a.key, b.key) })
	for _, a := range w.args {
		w.cur.args = append(w.cur.args, a.val)
	}
	return true
}

// stringList checks a list of strings (or nulls), as Views and ToolCallIDs
// decode one.
func (w *indexer) stringList() bool {
	return w.list(func() bool {
		w.ws()
		if w.i < len(w.b) && w.b[w.i] == 'n' {
			return w.lit("null")
		}
		_, _, ok := w.str()
		return ok
	})
}

// content reads a message's content: a string, or a list of parts decoded
// by Content itself.
func (w *indexer) content(r role) bool {
	var text string
	switch w.b[w.i] {
	case '"':
		s, ok := w.stringValue()
		if !ok {
			return false
		}
		text = s
	case '[':
		start := w.i
		if !w.skip(false) {
			return false
		}
		var c Content
		if err := c.UnmarshalJSON(w.b[start:w.i]); err != nil {
			return false
		}
		text = c.String()
	default:
		return false
	}
	if r == roleContent && w.cur != nil {
		w.cur.content = text
	}
	return true
}
