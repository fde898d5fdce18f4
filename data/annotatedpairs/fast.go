package annotatedpairs

import (
	"bytes"
	"slices"
	"strings"

	"github.com/go-json-experiment/json/jsontext"
)

// fastDecoder decodes one comparison of the usual shape token by token. Decoding
// it into comparison (maps of raw values, a struct a vote) cost 40% of an
// import's CPU and most of its garbage; reading the tokens in place costs a
// fraction of that. It handles only what it is sure of and reports ok=false
// for anything else (a duplicate key, an unexpected type, a response with
// extra fields), and the caller then decodes the comparison the full way,
// which gives the same row or the error with its place. TestAPFastMatches
// and FuzzAPFast check that the two agree wherever this one answers.
type fastDecoder struct {
	dec jsontext.Decoder
	// names holds the annotator names seen, so that the same few dozen
	// names are not allocated again for every comparison.
	names map[string]string
	// votes is the number of votes of the last comparison, the capacity
	// the next one's start with.
	votes int
}

// fastNames and fastNameBytes bound fastDecoder.names (to about 1 MB): a
// file with more distinct annotators, or longer names, allocates the rest
// as it goes.
const (
	fastNames     = 4096
	fastNameBytes = 128
)

// The usual votes, shared by every comparison that has them. Rows only
// read through the pointers.
var (
	prefA, prefB, prefTie = "a", "b", "tie"
	prefTextA, prefTextB  = "text_a", "text_b"
	prefValues            = map[string]*string{`"a"`: &prefA, `"b"`: &prefB, `"tie"`: &prefTie, `"text_a"`: &prefTextA, `"text_b"`: &prefTextB}
)

// release drops the decoder's hold on the last comparison read, whose
// batch is done with.
func (f *fastDecoder) release() {
	f.dec.Reset(new(bytes.Buffer))
}

// row decodes raw (one comparison, already checked to be valid JSON).
func (f *fastDecoder) row(raw []byte, v2, haveMeta bool) (r Row, ok bool) {
	// From a bytes.Buffer the decoder reads raw in place; from any other
	// reader it would copy it (a 100 MB text would cost another 100 MB).
	f.dec.Reset(bytes.NewBuffer(raw), jsontext.AllowDuplicateNames(true))
	d := &f.dec
	if !f.delim('{') {
		return r, false
	}
	var seen uint16 // the top-level keys read, one bit each
	var respA, respB, textA, textB bool
	for d.PeekKind() == '"' {
		name, ok := f.name()
		if !ok {
			return r, false
		}
		var bit uint16
		switch string(name) {
		case `"id"`:
			bit = 1 << 0
			if r.ID, ok = f.id(); !ok {
				return r, false
			}
		case `"prompt"`:
			bit = 1 << 1
			s, _, ok := f.nullableString()
			if !ok {
				return r, false
			}
			r.Prompt = s
		case `"response_a"`:
			bit = 1 << 2
			if r.TextA, r.ModelA, ok = f.response(); !ok {
				return r, false
			}
			respA = true
		case `"response_b"`:
			bit = 1 << 3
			if r.TextB, r.ModelB, ok = f.response(); !ok {
				return r, false
			}
			respB = true
		case `"text_a"`:
			bit = 1 << 4
			if r.TextA, textA, ok = f.nullableString(); !ok {
				return r, false
			}
		case `"text_b"`:
			bit = 1 << 5
			if r.TextB, textB, ok = f.nullableString(); !ok {
				return r, false
			}
		case `"annotations"`:
			bit = 1 << 6
			if r.Votes, ok = f.annotations(); !ok {
				return r, false
			}
		case `"metadata"`:
			bit = 1 << 7
			if !f.metadata(raw, &r) {
				return r, false
			}
		default:
			if d.SkipValue() != nil {
				return r, false
			}
			continue
		}
		if seen&bit != 0 {
			return r, false // a duplicate key: the full decoder knows which wins
		}
		seen |= bit
	}
	if !f.delim('}') {
		return r, false
	}
	if seen&1 == 0 {
		return r, false // no id: the full decoder reports it
	}
	// As comparison.row: response objects make the file 2.0 when its
	// metadata has not been read.
	v2 = v2 || (!haveMeta && respA)
	if v2 {
		if !respA || !respB {
			return r, false
		}
		// A 2.0 comparison's text_a and text_b are not read, but the full
		// decoder checks their types.
		if seen&(1<<4|1<<5) != 0 {
			return r, false
		}
		v2Prefs(r.Votes)
	} else {
		if respA || respB || !textA || !textB {
			return r, false
		}
	}
	return r, true
}

// id reads a comparison's id: a string, or a number as written. It is
// called once a comparison, at its id, as row's other members' readers are.
func (f *fastDecoder) id() (string, bool) {
	v, err := f.dec.ReadValue()
	if err != nil || len(v) == 0 {
		return "", false
	}
	switch {
	case v[0] == '"':
		return f.unquote(v)
	case v[0] == '-' || (v[0] >= '0' && v[0] <= '9'):
		return string(v), true
	}
	return "", false
}

// v2Prefs gives a 2.0 comparison's votes for "a" and "b" the preferences
// text_a and text_b, as comparison.row does: a 2.0 file names the
// responses, a 1.x file the texts.
func v2Prefs(votes []Vote) {
	for i, v := range votes {
		switch {
		case v.Pref == nil:
		case *v.Pref == "a":
			votes[i].Pref = &prefTextA
		case *v.Pref == "b":
			votes[i].Pref = &prefTextB
		}
	}
}

// name reads a member's name raw; ok=false for one with escapes, which
// the names compared against would not match as written.
func (f *fastDecoder) name() ([]byte, bool) {
	v, err := f.dec.ReadValue()
	if err != nil || bytes.IndexByte(v, '\\') >= 0 {
		return nil, false
	}
	return v, true
}

// delim reads an object's or array's opening or closing token.
func (f *fastDecoder) delim(k jsontext.Kind) bool {
	if f.dec.PeekKind() != k {
		return false
	}
	_, err := f.dec.ReadToken()
	return err == nil
}

// unquote decodes a JSON string value read raw.
func (f *fastDecoder) unquote(v []byte) (string, bool) {
	if len(v) >= 2 && bytes.IndexByte(v, '\\') < 0 {
		return string(v[1 : len(v)-1]), true
	}
	b, err := jsontext.AppendUnquote(nil, v)
	return string(b), err == nil
}

// nullableString reads a string or null (set=false).
func (f *fastDecoder) nullableString() (s string, set, ok bool) {
	v, err := f.dec.ReadValue()
	if err != nil || len(v) == 0 {
		return "", false, false
	}
	switch v[0] {
	case 'n':
		return "", false, true
	case '"':
		s, ok := f.unquote(v)
		return s, true, ok
	}
	return "", false, false
}

// response reads a 2.0 response object holding only text and model.
func (f *fastDecoder) response() (text, model string, ok bool) {
	if !f.delim('{') {
		return "", "", false
	}
	var seen uint8
	for f.dec.PeekKind() == '"' {
		name, ok := f.name()
		if !ok {
			return "", "", false
		}
		var bit uint8
		switch string(name) {
		case `"text"`:
			bit = 1
			if text, _, ok = f.nullableString(); !ok {
				return "", "", false
			}
		case `"model"`:
			bit = 2
			if model, _, ok = f.nullableString(); !ok {
				return "", "", false
			}
		default:
			return "", "", false // other fields become attrs: the full way
		}
		if seen&bit != 0 {
			return "", "", false
		}
		seen |= bit
	}
	return text, model, f.delim('}')
}

// annotations reads the votes, in annotator order as comparison.row
// gives them.
func (f *fastDecoder) annotations() ([]Vote, bool) {
	if f.dec.PeekKind() == 'n' {
		return nil, f.dec.SkipValue() == nil
	}
	if !f.delim('{') {
		return nil, false
	}
	votes := make([]Vote, 0, f.votes)
	sorted := true
	for f.dec.PeekKind() == '"' {
		name, err := f.dec.ReadValue()
		if err != nil {
			return nil, false
		}
		ann, ok := f.names[string(name)] // no allocation for the lookup
		if !ok {
			if ann, ok = f.newName(name); !ok {
				return nil, false
			}
		}
		if n := len(votes); n > 0 && votes[n-1].Annotator >= ann {
			sorted = false
		}
		if !f.delim('{') {
			return nil, false
		}
		var v Vote
		var seen uint8
		hasPref := false
		for f.dec.PeekKind() == '"' {
			name, ok := f.name()
			if !ok {
				return nil, false
			}
			var bit uint8
			switch string(name) {
			case `"pref"`:
				bit = 1
				if f.dec.PeekKind() == '"' {
					raw, err := f.dec.ReadValue()
					if err != nil {
						return nil, false
					}
					if p, ok := prefValues[string(raw)]; ok {
						v.Pref = p
					} else if s, ok := f.unquote(raw); ok {
						v.Pref = &s
					} else {
						return nil, false
					}
				} else if _, set, ok := f.nullableString(); !ok || set {
					return nil, false
				}
				hasPref = true
			case `"no_pref_reason"`:
				bit = 2
				s, set, ok := f.nullableString()
				if !ok {
					return nil, false
				}
				if set {
					v.Reason = &s
				}
			default:
				return nil, false
			}
			if seen&bit != 0 {
				return nil, false
			}
			seen |= bit
		}
		if !f.delim('}') {
			return nil, false
		}
		if !hasPref {
			// Skipped, as Feedback Forensics does; the full decoder
			// handles it, and a repeat of the annotator's name.
			return nil, false
		}
		v.Annotator = ann
		votes = append(votes, v)
	}
	if !f.delim('}') {
		return nil, false
	}
	f.votes = min(len(votes), 1024)
	if len(votes) == 0 {
		return nil, true
	}
	if !sorted && !sortVotes(votes) {
		return nil, false // a repeated annotator: the full decoder knows which wins
	}
	return votes, true
}

// newName decodes an annotator's name read raw (name) that f.names does
// not hold, and keeps it there while the cache has room: the lookup's
// rarely taken branch, out of annotations' loop over the votes.
func (f *fastDecoder) newName(name []byte) (string, bool) {
	ann, ok := f.unquote(name)
	if !ok {
		return "", false
	}
	if f.names == nil {
		f.names = map[string]string{}
	}
	if len(f.names) < fastNames && len(name) <= fastNameBytes {
		f.names[string(name)] = ann
	}
	return ann, true
}

// sortVotes puts votes that did not come in annotator order in it, as
// comparison.row gives them; false when an annotator votes twice.
func sortVotes(votes []Vote) bool {
	slices.SortFunc(votes, func(a, b Vote) int { return strings.Compare(a.Annotator, b.Annotator) })
	for i := 1; i < len(votes); i++ {
		if votes[i].Annotator == votes[i-1].Annotator {
			return false
		}
	}
	return true
}

// metadata reads the comparison's metadata object: its members in file
// order, as text, and the object as written.
func (f *fastDecoder) metadata(raw []byte, r *Row) bool {
	d := &f.dec
	if d.PeekKind() == 'n' {
		return d.SkipValue() == nil
	}
	// The offset is past the name's colon; the object starts at its brace.
	start := int(d.InputOffset())
	if !f.delim('{') {
		return false
	}
	start += bytes.IndexByte(raw[start:], '{')
	for d.PeekKind() == '"' {
		name, err := d.ReadValue()
		if err != nil {
			return false
		}
		key, ok := f.unquote(name)
		if !ok {
			return false
		}
		v, err := d.ReadValue()
		if err != nil {
			return false
		}
		r.MetaPairs = append(r.MetaPairs, [2]string{key, scalarText(v)})
	}
	if !f.delim('}') {
		return false
	}
	r.Metadata = string(raw[start:int(d.InputOffset())])
	return true
}
