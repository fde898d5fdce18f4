package petri

import (
	"encoding/json"
	"errors"
	"os"
	"path/filepath"
	"runtime"
	"testing"
)

// FuzzParse feeds arbitrary bytes to the transcript reader and replays what
// it accepts, as an import and the audit page do. Neither may panic; a
// rejected file is a *ParseError and a failed replay a *ReplayError, and an
// accepted transcript marshals and decodes again.
func FuzzParse(f *testing.F) {
	_, file, _, _ := runtime.Caller(0)
	dir := filepath.Dir(file)
	seeds, _ := filepath.Glob(filepath.Join(dir, "..", "testdata", "petri", "*.json"))
	seeds = append(seeds, filepath.Join(dir, "..", "testdata", "bundle-small", "transcripts", "a2.json"))
	for _, p := range seeds {
		b, err := os.ReadFile(p)
		if err != nil {
			f.Fatal(err)
		}
		f.Add(b)
	}
	for _, s := range []string{
		`{"metadata":{},"events":[]}`,
		`{"metadata":{},"events":[{"type":"transcript_event","view":["target","combined"],"edit":{"operation":"rollback","count":1}}]}`,
		`{"metadata":{},"events":[{"type":"transcript_event","view":"target","edit":{"operation":"add","message":{"role":"user","content":"hi","metadata":{"a":1}}}},` +
			`{"type":"transcript_event","view":"target","edit":{"operation":"json_patch","patch":[{"op":"copy","from":"/0/metadata","path":"/0/metadata/b"}]}}]}`,
		`{"metadata":{},"messages":[{"role":"tool","content":[{"type":"text","text":"x"}],"tool_call_id":["a"]}]}`,
		"\xef\xbb\xbf{}", `[]`, `null`, ``,
	} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, b []byte) {
		tr, err := Parse(b)
		if err != nil {
			var pe *ParseError
			if !errors.As(err, &pe) {
				t.Fatalf("Parse error %T is not a *ParseError: %v", err, err)
			}
			return
		}
		views, err := tr.Views()
		if err != nil {
			var re *ReplayError
			if !errors.As(err, &re) {
				t.Fatalf("Views error %T is not a *ReplayError: %v", err, err)
			}
			return
		}
		for _, v := range views {
			if len(v.Branches) == 0 {
				t.Fatalf("view %s has no branches", v.Name)
			}
			_ = v.Final()
		}
		_ = Turns(views)
		_ = tr.SearchText()
		_ = tr.MessageCount()
		out, err := json.Marshal(tr)
		if err != nil {
			t.Fatalf("marshal an accepted transcript: %v", err)
		}
		if err := Decode(out, new(Transcript)); err != nil {
			t.Fatalf("decode a marshalled transcript: %v\n%s", err, out)
		}
	})
}
