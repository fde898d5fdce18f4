package bundle

import (
	"bytes"
	"encoding/json"
	"os"
	"path/filepath"
	"reflect"
	"testing"

	segjson "github.com/segmentio/encoding/json"

	"github.com/auditscope/auditscope/data/petri"
)

// FuzzDecodeAgrees holds jsonin.Decode's promise for the two types the
// bundle import decodes with it (an audits.jsonl line and a transcript):
// whatever the fast decoder accepts, encoding/json accepts too, the way the
// import calls it, and decodes to the same value. (What the fast decoder
// refuses goes to encoding/json, whose answer is the import's.)
func FuzzDecodeAgrees(f *testing.F) {
	for _, name := range []string{"testdata/bundle-small/audits.jsonl", "../testdata/bundle-small/audits.jsonl"} {
		if b, err := os.ReadFile(name); err == nil {
			for line := range bytes.Lines(b) {
				f.Add(bytes.TrimSpace(line))
			}
		}
	}
	for _, dir := range []string{"../testdata/bundle-small/transcripts", "../testdata/petri"} {
		files, _ := filepath.Glob(filepath.Join(dir, "*.json"))
		for _, p := range files {
			if b, err := os.ReadFile(p); err == nil {
				f.Add(b)
			}
		}
	}
	for _, s := range decodeEdges {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, b []byte) {
		agree[auditLine](t, b, decodeStrict)
		agree[petri.Transcript](t, b, json.Unmarshal)
	})
}

// decodeEdges are inputs on which JSON decoders are known to differ.
var decodeEdges = []string{
	`{"ID": "a", "Auditor": "x", "TURNS": 3}`, // field names match case-insensitively in encoding/json
	`{"id": "a", "id": "b"}`,                  // a repeated name: the last wins
	`{"id": "\ud800x", "summary": "\u00e9\uDFFF"}`,
	`{"id": "a\u0000b", "scores": {"x": 1e400}}`,
	`{"turns": 1e2}`, `{"turns": 1.5}`, `{"turns": -0}`, `{"turns": 99999999999999999999}`,
	`{"turns": "3"}`, `{"id": 3}`, `{"scores": {"x": "1"}}`, `{"scores": null, "labels": {"a": null}}`,
	`{"outcome": {"quality": null, "detected": 0}}`, `{"outcome": []}`,
	`{"transcript": {"metadata": {}}} x`, `{"transcript": {"metadata": {}}}]`, `{} {}`, `[]`, `null`, `"x"`, ``, ` `,
	`{"metadata": {"tags": "x"}}`, `{"metadata": {"transcript_id": "a", "judge_output": {"scores": {"x": 1}}}, "events": [{"type": "transcript_event", "view": "target", "edit": {"operation": "add", "message": {"role": "user", "content": "hi"}}}]}`,
	`{"events": [{"view": ["a", 1]}]}`, `{"events": [{"view": 3}]}`, `{"messages": [{"role": "user", "content": [{"type": "text", "text": "x"}]}]}`,
	`{"messages": [{"role": "user", "content": {"type": "text"}}]}`, `{"messages": [{"role": "user", "content": 5}]}`,
	"{\"id\": \"a\xffb\"}", `{"id": "\x"}`, `{"id": "a` + "\t" + `"}`, `{"id" : "a" , }`, `{"id": "a"`, `{"turns": 01}`, `{"turns": 1.}`, `{"turns": .5}`, `{"turns": +1}`,
	`{"turns": 1E+2}`, `{"scores": {"x": -1e-400}}`, `{"transcript": null}`, `{"transcript": "x"}`, `{"labels": {"1": "a", "1": "b"}}`,
}

// agree decodes b with the fast decoder into a T and, when it succeeds, with
// std, and fails t unless std succeeds with the same value.
func agree[T any](t *testing.T, b []byte, std func([]byte, any) error) {
	t.Helper()
	fast := new(T)
	if segjson.Unmarshal(b, fast) != nil {
		return
	}
	slow := new(T)
	if err := std(b, slow); err != nil {
		t.Fatalf("%T: the fast decoder accepts %q, encoding/json refuses it: %v", *fast, b, err)
	}
	if !reflect.DeepEqual(fast, slow) {
		t.Fatalf("%T of %q: the fast decoder gives %+v, encoding/json %+v", *fast, b, fast, slow)
	}
}
