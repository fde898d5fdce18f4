package petri

import (
	"bytes"
	"reflect"
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

// kind is what the pass checks a value against.
type kind uint8

const (
	kUnknown kind = iota // the pass gives up when it meets one
	kString
	kBool
	kInt
	kFloat
	kAny // interface{}: any JSON, each number a float64
	kRaw // json.RawMessage: any JSON
	kStruct
	kPtr
	kSlice
	kMap     // string keys
	kStrings // Views, ToolCallIDs: a string or a list of strings
	kContent
)

// role marks the fields whose values make the search text.
type role uint8

const (
	roleNone        role = iota
	roleEvents           // Transcript.events
	roleMessages         // Transcript.messages
	roleTargets          // Transcript.target_messages
	roleEditMessage      // Edit.message
	roleEditNew          // Edit.new_messages
	roleID               // Message.id
	roleContent          // Message.content
	roleArguments        // ToolCall.arguments
)

type node struct {
	kind   kind
	bits   int // kInt, kFloat
	elem   *node
	fields []field // kStruct
}

type field struct {
	name string
	role role
	node *node
}

type schema struct {
	root    *node
	message *node
}

var indexSchema = sync.OnceValue(func() *schema {
	b := &schemaBuilder{memo: map[reflect.Type]*node{}}
	root := b.build(reflect.TypeFor[Transcript]())
	roles := map[reflect.Type]map[string]role{
		reflect.TypeFor[Transcript](): {"events": roleEvents, "messages": roleMessages, "target_messages": roleTargets},
		reflect.TypeFor[Edit]():       {"message": roleEditMessage, "new_messages": roleEditNew},
		reflect.TypeFor[Message]():    {"id": roleID, "content": roleContent},
		reflect.TypeFor[ToolCall]():   {"arguments": roleArguments},
	}
	for t, rs := range roles {
		n := b.memo[t]
		if n == nil || n.kind != kStruct {
			return nil // the types changed under the pass: it stays off
		}
		for i := range n.fields {
			n.fields[i].role = rs[n.fields[i].name]
			delete(rs, n.fields[i].name)
		}
		if len(rs) > 0 {
			return nil
		}
	}
	msg := b.memo[reflect.TypeFor[Message]()]
	if root.kind != kStruct || msg == nil {
		return nil
	}
	return &schema{root: root, message: msg}
})

type schemaBuilder struct{ memo map[reflect.Type]*node }

func (b *schemaBuilder) build(t reflect.Type) *node {
	if n, ok := b.memo[t]; ok {
		return n
	}
	n := &node{}
	b.memo[t] = n
	pt := reflect.PointerTo(t)
	switch {
	case t == rawMessage:
		n.kind = kRaw
		return n
	case t == reflect.TypeFor[Views]() || t == reflect.TypeFor[ToolCallIDs]():
		n.kind = kStrings
		return n
	case t == reflect.TypeFor[Content]():
		n.kind = kContent
		return n
	case pt.Implements(jsonUnmarshaler) || pt.Implements(textUnmarshaler):
		return n // a decoding of its own the pass does not know
	}
	switch t.Kind() {
	case reflect.String:
		n.kind = kString
	case reflect.Bool:
		n.kind = kBool
	case reflect.Int, reflect.Int8, reflect.Int16, reflect.Int32, reflect.Int64:
		n.kind, n.bits = kInt, t.Bits()
	case reflect.Float32, reflect.Float64:
		n.kind, n.bits = kFloat, t.Bits()
	case reflect.Interface:
		if t.NumMethod() == 0 {
			n.kind = kAny
		}
	case reflect.Pointer:
		n.kind, n.elem = kPtr, b.build(t.Elem())
	case reflect.Slice:
		if t.Elem().Kind() != reflect.Uint8 { // []byte is base64
			n.kind, n.elem = kSlice, b.build(t.Elem())
		}
	case reflect.Map:
		if t.Key().Kind() == reflect.String && !reflect.PointerTo(t.Key()).Implements(textUnmarshaler) {
			n.kind, n.elem = kMap, b.build(t.Elem())
		}
	case reflect.Struct:
		n.fields = b.fields(t)
		if n.fields != nil {
			n.kind = kStruct
		}
	}
	return n
}

// fields lists a struct's JSON fields as encoding/json names them; nil for
// a struct the pass leaves to the decoder (embedded fields, options, more
// fields than a 64-bit mask).
func (b *schemaBuilder) fields(t reflect.Type) []field {
	fs := []field{}
	for sf := range t.Fields() {
		if sf.Anonymous {
			return nil
		}
		if !sf.IsExported() {
			continue
		}
		tag := sf.Tag.Get("json")
		if tag == "-" {
			continue
		}
		name, opts, _ := strings.Cut(tag, ",")
		for o := range strings.SplitSeq(opts, ",") {
			if o != "" && o != "omitempty" && o != "omitzero" {
				return nil // ",string" and the like
			}
		}
		if name == "" {
			name = sf.Name
		}
		for _, f := range fs {
			if strings.EqualFold(f.name, name) {
				return nil
			}
		}
		fs = append(fs, field{name: name, node: b.build(sf.Type)})
	}
	if len(fs) > 64 {
		return nil
	}
	return fs
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

func (w *indexer) ws() {
	for w.i < len(w.b) {
		switch w.b[w.i] {
		case ' ', '\t', '\n', '\r':
			w.i++
		default:
			return
		}
	}
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

func (w *indexer) lit(s string) bool {
	if !bytes.HasPrefix(w.b[w.i:], []byte(s)) {
		return false
	}
	w.i += len(s)
	return true
}

// str scans the JSON string at w.i: its bytes between the quotes, and
// whether it has escapes.
func (w *indexer) str() (inner []byte, escaped, ok bool) {
	if w.i >= len(w.b) || w.b[w.i] != '"' {
		return nil, false, false
	}
	start := w.i + 1
	for i := start; i < len(w.b); i++ {
		c := w.b[i]
		switch {
		case c == '"':
			w.i = i + 1
			return w.b[start:i], escaped, true
		case c < 0x20:
			return nil, false, false
		case c == '\\':
			escaped = true
			i++
			if i >= len(w.b) {
				return nil, false, false
			}
			switch w.b[i] {
			case '"', '\\', '/', 'b', 'f', 'n', 'r', 't':
			case 'u':
				if i+4 >= len(w.b) {
					return nil, false, false
				}
				for _, h := range w.b[i+1 : i+5] {
					if !isHex(h) {
						return nil, false, false
					}
				}
				i += 4
			default:
				return nil, false, false
			}
		}
	}
	return nil, false, false
}

func isHex(c byte) bool {
	return '0' <= c && c <= '9' || 'a' <= c && c <= 'f' || 'A' <= c && c <= 'F'
}

// stringValue is the string at w.i as json.Unmarshal decodes it.
func (w *indexer) stringValue() (string, bool) {
	start := w.i
	inner, escaped, ok := w.str()
	if !ok {
		return "", false
	}
	if !escaped && utf8.Valid(inner) {
		return string(inner), true
	}
	var s string
	if err := unquote(w.b[start:w.i], &s); err != nil {
		return "", false
	}
	return s, true
}

// number scans a JSON number.
func (w *indexer) number() ([]byte, bool) {
	b, i := w.b, w.i
	digits := func() bool {
		j := i
		for i < len(b) && '0' <= b[i] && b[i] <= '9' {
			i++
		}
		return i > j
	}
	if i < len(b) && b[i] == '-' {
		i++
	}
	switch {
	case i < len(b) && b[i] == '0':
		i++
	case !digits():
		return nil, false
	}
	if i < len(b) && b[i] == '.' {
		i++
		if !digits() {
			return nil, false
		}
	}
	if i < len(b) && (b[i] == 'e' || b[i] == 'E') {
		i++
		if i < len(b) && (b[i] == '+' || b[i] == '-') {
			i++
		}
		if !digits() {
			return nil, false
		}
	}
	num := b[w.i:i]
	w.i = i
	return num, true
}

// skip checks any JSON value; with floats, each number must be one a
// float64 holds (json.Unmarshal refuses 1e400 into an interface{}).
func (w *indexer) skip(floats bool) bool {
	w.ws()
	if w.i >= len(w.b) {
		return false
	}
	switch c := w.b[w.i]; {
	case c == '"':
		_, _, ok := w.str()
		return ok
	case c == 't':
		return w.lit("true")
	case c == 'f':
		return w.lit("false")
	case c == 'n':
		return w.lit("null")
	case c == '-' || '0' <= c && c <= '9':
		num, ok := w.number()
		if ok && floats {
			_, err := strconv.ParseFloat(string(num), 64)
			ok = err == nil
		}
		return ok
	case c == '[':
		return w.list(func() bool { return w.skip(floats) })
	case c == '{':
		return w.members(func(_ []byte, _ bool) bool { return w.skip(floats) })
	}
	return false
}

// list walks the array at w.i, calling elem at each element.
func (w *indexer) list(elem func() bool) bool {
	more, ok := w.open(']')
	for more && ok {
		if !elem() {
			return false
		}
		more, ok = w.next(']')
	}
	return ok
}

// open steps into the array or object at w.i: more is false for an empty
// one, which it steps past too.
func (w *indexer) open(end byte) (more, ok bool) {
	if w.depth++; w.depth > maxDepth {
		return false, false
	}
	w.i++ // [ or {
	w.ws()
	if w.i < len(w.b) && w.b[w.i] == end {
		w.i++
		w.depth--
		return false, true
	}
	return true, true
}

// next steps past the comma after an element or a member (more), or past
// the end of their array or object.
func (w *indexer) next(end byte) (more, ok bool) {
	w.ws()
	if w.i >= len(w.b) {
		return false, false
	}
	switch w.b[w.i] {
	case ',':
		w.i++
		return true, true
	case end:
		w.i++
		w.depth--
		return false, true
	}
	return false, false
}

// members walks the object at w.i, calling member with each key (between
// its quotes) when w.i is at the key's value.
func (w *indexer) members(member func(key []byte, escaped bool) bool) bool {
	more, ok := w.open('}')
	for more && ok {
		w.ws()
		key, escaped, isKey := w.str()
		if !isKey {
			return false
		}
		if w.ws(); w.i >= len(w.b) || w.b[w.i] != ':' {
			return false
		}
		w.i++
		if !member(key, escaped) {
			return false
		}
		more, ok = w.next('}')
	}
	return ok
}

// maxDepth is far below encoding/json's 10,000: deeper is left to it.
const maxDepth = 500

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

func isASCII(b []byte) bool {
	for _, c := range b {
		if c >= utf8.RuneSelf {
			return false
		}
	}
	return true
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
