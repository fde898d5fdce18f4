package petri

import (
	"encoding/json"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"testing"
)

// indexSeeds are the repository's real transcripts.
func indexSeeds(t testing.TB) map[string][]byte {
	_, file, _, _ := runtime.Caller(0)
	dir := filepath.Dir(file)
	paths, _ := filepath.Glob(filepath.Join(dir, "..", "testdata", "petri", "*.json"))
	paths = append(paths, filepath.Join(dir, "..", "testdata", "bundle-small", "transcripts", "a2.json"))
	out := map[string][]byte{}
	for _, p := range paths {
		b, err := os.ReadFile(p)
		if err != nil {
			t.Fatal(err)
		}
		out[filepath.Base(p)] = b
	}
	if len(out) < 4 {
		t.Fatalf("found %d transcripts", len(out))
	}
	return out
}

// agree fails t unless Index's answer for b is json.Unmarshal's; it
// returns whether Index took b.
func agree(t *testing.T, b []byte) bool {
	t.Helper()
	search, n, ok := Index(b)
	if !ok {
		return false
	}
	var tr Transcript
	if err := json.Unmarshal(b, &tr); err != nil {
		t.Fatalf("Index took what json.Unmarshal refuses (%v):\n%s", err, b)
	}
	if want := tr.SearchText(); search != want {
		t.Fatalf("search text\n got %q\nwant %q\nof %s", search, want, b)
	}
	if want := tr.MessageCount(); n != want {
		t.Fatalf("message count %d, want %d, of %s", n, want, b)
	}
	return true
}

// The pass takes every real transcript (it is the import's way, not an
// exception) and agrees with the decoder on each.
func TestIndexRealTranscripts(t *testing.T) {
	for name, b := range indexSeeds(t) {
		if !agree(t, b) {
			t.Errorf("%s: Index left a real transcript to the decoder", name)
		}
	}
}

func TestIndexCases(t *testing.T) {
	msg := func(s string) string {
		return `{"metadata":{"transcript_id":"t"},"events":[{"type":"transcript_event","view":["target"],"edit":{"operation":"add","message":` + s + `}}]}`
	}
	for _, c := range []struct {
		name string
		in   string
		took bool // Index settles it alone
	}{
		{"plain", msg(`{"id":"m1","role":"user","content":"Hello"}`), true},
		{"keys in any order, edits after the legacy lists",
			`{"target_messages":[{"role":"user","content":"c"}],"messages":[{"id":"x","role":"user","content":"b"}],"events":[{"edit":{"new_messages":[{"id":"y","content":"new"},null],"message":{"id":"x","content":"first"}}}],"metadata":{}}`, true},
		{"escapes and unicode", msg(`{"id":"m\u0031","content":"line\none \"q\" \u00e9 \ud83d\ude00 caf\u00e9"}`), true},
		{"parts", msg(`{"content":[{"type":"text","text":"a"},{"type":"reasoning","reasoning":"r"},{"type":"image","image":"x"},{"type":"text","text":"b"}]}`), true},
		{"tool call arguments sorted, only strings", msg(`{"content":"c","tool_calls":[{"id":"1","function":"f","arguments":{"z":"last","a":"first","n":3,"o":{"k":"v"}}},null,{"arguments":null}]}`), true},
		{"unknown keys skipped", msg(`{"content":"c","extra":{"deep":[1e400,"x"]},"metadata":{"a":[1,2.5,{"b":null}]}}`), true},
		{"nulls everywhere", `{"metadata":null,"events":[null,{"edit":null},{"edit":{"message":null,"new_messages":null}}],"messages":null}`, true},
		{"views as a string, tool call ids as a list", `{"metadata":{},"events":[{"view":"target","edit":{"message":{"tool_call_id":["a",null],"content":null}}}]}`, true},
		{"same id met twice", `{"metadata":{},"events":[{"edit":{"message":{"id":"a","content":"one"}}},{"edit":{"message":{"id":"a","content":"two"}}}],"messages":[{"id":"a","content":"three"},{"content":"one"}]}`, true},

		{"a field name in another case", msg(`{"Content":"c"}`), false},
		{"a field twice", msg(`{"content":"a","content":"b"}`), false},
		{"an escaped key", msg(`{"\u0063ontent":"c"}`), false},
		{"a non-ASCII unknown key", msg(`{"contént":"c"}`), false},
		{"an argument twice", msg(`{"tool_calls":[{"arguments":{"a":"x","a":"y"}}]}`), false},
		{"a float64 overflow in metadata", `{"metadata":{},"events":[{"metadata":{"a":1e400}}]}`, false},
		{"a fraction for an int", `{"metadata":{},"events":[{"edit":{"operation":"rollback","count":1.5}}]}`, false},
		{"an int overflow", `{"metadata":{},"events":[{"edit":{"count":99999999999999999999}}]}`, false},
		{"a number for a string", msg(`{"role":3}`), false},
		{"an object for content", msg(`{"content":{"text":"x"}}`), false},
		{"content parts that are not objects", msg(`{"content":[1]}`), false},
		{"a view that is a number", `{"metadata":{},"events":[{"view":3}]}`, false},
		{"broken JSON", msg(`{"content":"x"`), false},
		{"trailing data", `{"metadata":{}} {}`, false},
		{"not an object", `["metadata"]`, false},
		{"a bad escape", msg(`{"content":"\x"}`), false},
		{"a control character", msg("{\"content\":\"a\tb\"}"), false},
		{"a leading zero", `{"metadata":{},"events":[{"edit":{"count":01}}]}`, false},
	} {
		t.Run(c.name, func(t *testing.T) {
			if took := agree(t, []byte(c.in)); took != c.took {
				t.Errorf("Index took it: %v, want %v", took, c.took)
			}
		})
	}
}

// FuzzIndexAgrees: whatever Index takes, json.Unmarshal decodes into a
// Transcript with the same search text and message count.
func FuzzIndexAgrees(f *testing.F) {
	for _, b := range indexSeeds(f) {
		f.Add(b)
	}
	for _, s := range []string{
		`{"metadata":{},"events":[{"edit":{"new_messages":[{"id":"y","content":"new"},null],"message":{"id":"x","content":[{"type":"text","text":"p"}],"tool_calls":[{"arguments":{"b":"2","a":"1"}}]}}}]}`,
		`{"messages":[{"id":"a","content":"x"}],"target_messages":[{"id":"a","content":"y"}],"metadata":{"judge_output":{"scores":{"a":1},"highlights":[{"index":2,"parts":[{"position":[1,2]}]}]}}}`,
		`{"metadata":{"inspect_sample":{"model_usage":[{"input_tokens":1,"cache_read":null}],"total_time":1.5}},"events":[]}`,
	} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, b []byte) {
		agree(t, b)
	})
}

func TestIndexSchema(t *testing.T) {
	s := indexSchema()
	if s == nil {
		t.Fatal("the pass is off: a type of Transcript is one it cannot describe")
	}
	// Every part of a Transcript is a kind the pass checks: none is left
	// for it to give up on.
	seen := map[*node]bool{}
	var walk func(n *node, path string)
	walk = func(n *node, path string) {
		if seen[n] {
			return
		}
		seen[n] = true
		if n.kind == kUnknown {
			t.Errorf("%s: a kind the pass does not know", path)
		}
		if n.elem != nil {
			walk(n.elem, path+"[]")
		}
		for _, f := range n.fields {
			walk(f.node, strings.TrimPrefix(path+"."+f.name, "."))
		}
	}
	walk(s.root, "")
}
