package annotatedpairs

import (
	"bytes"
	"encoding/json"
	"maps"
	"slices"
	"strconv"
	"unicode/utf8"

	jsonv2 "github.com/go-json-experiment/json"
	"github.com/go-json-experiment/json/jsontext"

	"github.com/auditscope/auditscope/data/internal/jsonin"
	"github.com/auditscope/auditscope/data/model"
)

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

// fullRow decodes one comparison of any shape, or says what is wrong with
// it. Its errors are relative to the comparison (see placeErr).
func fullRow(raw []byte, v2, haveMeta bool) (Row, error) {
	var c comparison
	if err := jsonv2.Unmarshal(raw, &c, jsontext.AllowDuplicateNames(true)); err != nil {
		return Row{}, err
	}
	return c.row(v2, haveMeta)
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
