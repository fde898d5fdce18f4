package jsonin

import (
	"fmt"

	jsonv2 "github.com/go-json-experiment/json"
	"github.com/go-json-experiment/json/jsontext"

	"github.com/auditscope/auditscope/data/internal/regular"
	"github.com/auditscope/auditscope/data/model"
)

// Sniff reads a JSON file's top-level keys until one tells the format
// apart: AnnotatedPairs, Petri or Inspect, or "" when none does. object is
// false when the top level is not an object; err is for broken JSON.
func Sniff(path string) (kind string, object bool, err error) {
	f, err := regular.Open(path)
	if err != nil {
		return "", false, fmt.Errorf("import: %w", err)
	}
	defer f.Close()
	// As lenient as Go's encoding/json, which read this before: which
	// format the file is tells only which importer checks it, and that
	// importer decides what a duplicate name or a bad byte means.
	dec := jsontext.NewDecoder(BOMAsSpaces(f), jsontext.AllowDuplicateNames(true), jsontext.AllowInvalidUTF8(true))
	tok, err := dec.ReadToken()
	if err != nil {
		return "", false, Err(path, dec, err)
	}
	if tok.Kind() != '{' {
		return "", false, nil
	}
	// Top-level events or messages make a Petri transcript only beside a
	// metadata object, which Petri always writes: inspect_ai's and Inspect
	// Scout's event timelines and test fixtures have events alone, and one
	// of them in a folder was read as a broken transcript and refused the
	// whole folder.
	petriParts, sawMetadata := false, false
	for dec.PeekKind() == '"' {
		tok, err := dec.ReadToken()
		if err != nil {
			return "", true, Err(path, dec, err)
		}
		switch key := tok.String(); key {
		case "comparisons", "annotators":
			return model.KindAnnotatedPairs, true, nil
		case "events", "messages", "target_messages":
			if sawMetadata {
				return model.KindPetri, true, nil
			}
			petriParts = true
		case "eval", "samples", "plan":
			return model.KindInspect, true, nil
		case "metadata":
			var m map[string]jsontext.Value
			if err := jsonv2.UnmarshalDecode(dec, &m); err != nil {
				return "", true, Err(path, dec, err)
			}
			if _, ok := m["transcript_id"]; ok {
				return model.KindPetri, true, nil
			}
			if _, ok := m["default_annotator"]; ok {
				return model.KindAnnotatedPairs, true, nil
			}
			if petriParts {
				return model.KindPetri, true, nil
			}
			sawMetadata = true
			continue
		}
		if err := dec.SkipValue(); err != nil {
			return "", true, Err(path, dec, err)
		}
	}
	// The object's end, or what breaks it.
	if _, err := dec.ReadToken(); err != nil {
		return "", true, Err(path, dec, err)
	}
	return "", true, nil
}
