package petri

import (
	"bytes"
	"strconv"
	"unicode/utf8"
)

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

func isASCII(b []byte) bool {
	for _, c := range b {
		if c >= utf8.RuneSelf {
			return false
		}
	}
	return true
}
