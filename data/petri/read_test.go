package petri

import (
	"bytes"
	"encoding/json"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"testing"

	"github.com/santhosh-tekuri/jsonschema/v6"

	"github.com/auditscope/auditscope/data/internal/petrischema"
)

// testdata returns a file of data/testdata/petri.
func testdata(t testing.TB, name string) []byte {
	t.Helper()
	_, file, _, _ := runtime.Caller(0)
	b, err := os.ReadFile(filepath.Join(filepath.Dir(file), "..", "testdata", "petri", name))
	if err != nil {
		t.Fatal(err)
	}
	return b
}

func mustParse(t testing.TB, name string) (*Transcript, []View) {
	t.Helper()
	tr, err := Parse(testdata(t, name))
	if err != nil {
		t.Fatalf("%s: %v", name, err)
	}
	views, err := tr.Views()
	if err != nil {
		t.Fatalf("%s: replay: %v", name, err)
	}
	return tr, views
}

func view(t testing.TB, views []View, name string) View {
	t.Helper()
	for _, v := range views {
		if v.Name == name {
			return v
		}
	}
	t.Fatalf("no %s view", name)
	return View{}
}

func ids(msgs []Message) string {
	var out []string
	for _, m := range msgs {
		out = append(out, m.ID)
	}
	return strings.Join(out, ",")
}

func TestParseFixtures(t *testing.T) {
	tests := []struct {
		file     string
		id       string
		views    string
		branches []string // target view: message ids of each branch
		endedBy  []string
		turns    int
		tools    int // tool calls over every view
	}{
		{"rollback.json", "petri-rollback-01", "target,auditor,combined",
			[]string{"t-sys,t-u1,t-a1", "t-sys,t-u2,t-a2,t-t1,t-a3"}, []string{OpRollback, ""}, 3, 8},
		{"reset.json", "petri-reset-01", "target,auditor,combined",
			[]string{"t-sys1,t-u1,t-a1", "t-sys2,t-u2,t-a2", "t-sys2,t-u3,t-a3"}, []string{OpReset, OpJSONPatch, ""}, 3, 6},
		{"legacy.json", "petri-legacy-01", "target,combined",
			[]string{"t1,t2,t3"}, []string{""}, 1, 1},
	}
	for _, tt := range tests {
		t.Run(tt.file, func(t *testing.T) {
			tr, views := mustParse(t, tt.file)
			if tr.Metadata.TranscriptID != tt.id {
				t.Errorf("transcript_id = %q, want %q", tr.Metadata.TranscriptID, tt.id)
			}
			var names []string
			for _, v := range views {
				names = append(names, v.Name)
			}
			if got := strings.Join(names, ","); got != tt.views {
				t.Errorf("views = %s, want %s", got, tt.views)
			}
			target := view(t, views, ViewTarget)
			if len(target.Branches) != len(tt.branches) {
				t.Fatalf("target branches = %d, want %d", len(target.Branches), len(tt.branches))
			}
			for i, b := range target.Branches {
				if got := ids(b.Messages); got != tt.branches[i] {
					t.Errorf("branch %d = %s, want %s", i, got, tt.branches[i])
				}
				if b.EndedBy != tt.endedBy[i] {
					t.Errorf("branch %d ended by %q, want %q", i, b.EndedBy, tt.endedBy[i])
				}
			}
			if got := Turns(views); got != tt.turns {
				t.Errorf("turns = %d, want %d", got, tt.turns)
			}
			calls := map[string]bool{}
			for _, v := range views {
				for _, b := range v.Branches {
					for _, m := range b.Messages {
						for _, c := range m.ToolCalls {
							calls[c.ID] = true
						}
					}
				}
			}
			if len(calls) != tt.tools {
				t.Errorf("%d distinct tool calls, want %d", len(calls), tt.tools)
			}
			// Every highlight quotes text of the message it cites, at its
			// position when one is given.
			byID := map[string]Message{}
			for _, v := range views {
				for _, b := range v.Branches {
					for _, m := range b.Messages {
						byID[m.ID] = m
					}
				}
			}
			jo := tr.Metadata.JudgeOutput
			if jo == nil || len(jo.Highlights) == 0 {
				t.Fatal("no highlights")
			}
			for _, h := range jo.Highlights {
				for _, p := range h.Parts {
					m, ok := byID[p.MessageID]
					if !ok {
						t.Errorf("highlight cites unknown message %q", p.MessageID)
						continue
					}
					text := m.Content.String()
					if p.ToolCallID != "" {
						for _, c := range m.ToolCalls {
							if c.ID == p.ToolCallID {
								text, _ = c.Arguments[p.ToolArg].(string)
							}
						}
					}
					if !strings.Contains(text, p.QuotedText) {
						t.Errorf("message %s does not contain %q", p.MessageID, p.QuotedText)
					}
					if len(p.Position) == 2 && text[p.Position[0]:p.Position[1]] != p.QuotedText {
						t.Errorf("message %s at %v is %q, want %q", p.MessageID, p.Position, text[p.Position[0]:p.Position[1]], p.QuotedText)
					}
				}
			}
		})
	}
}

// TestFixturesMatchSchema validates the hand-written fixtures against
// Petri's JSON schema (the legacy one too: its top-level lists are
// untyped there).
func TestFixturesMatchSchema(t *testing.T) {
	sch := compileSchema(t)
	for _, name := range []string{"rollback.json", "reset.json", "legacy.json"} {
		doc, err := jsonschema.UnmarshalJSON(bytes.NewReader(testdata(t, name)))
		if err != nil {
			t.Fatal(err)
		}
		if err := sch.Validate(doc); err != nil {
			t.Errorf("%s: %v", name, err)
		}
	}
}

// compileSchema compiles Petri's transcript schema (data/internal/petrischema).
func compileSchema(t testing.TB) *jsonschema.Schema {
	t.Helper()
	sch, err := petrischema.Compile()
	if err != nil {
		t.Fatal(err)
	}
	return sch
}

func TestParseErrors(t *testing.T) {
	const meta = `"metadata": {"transcript_id": "x", "created_at": "2026-01-01T00:00:00Z", "updated_at": "2026-01-01T00:00:00Z"}`
	add := func(msg string) string {
		return `{` + meta + `, "events": [{"type": "transcript_event", "view": "target", "edit": {"operation": "add", "message": {"role": "user", "content": "hi"}}},
 {"type": "transcript_event", "view": ["target", "combined"], "edit": {"operation": "add", "message": ` + msg + `}}]}`
	}
	tests := []struct {
		name, doc, want string
	}{
		{"not an object", `[1, 2]`, "want a JSON object (a Petri transcript), found a list"},
		{"truncated", `{` + meta + `, "events": [{"type": "transcript_ev`, "the JSON ends early (truncated?)"},
		{"broken", `{` + meta + `, "events": [}`, "byte "},
		{"no metadata", `{"events": []}`, "metadata: missing"},
		{"no events", `{` + meta + `}`, "not a Petri transcript: no events"},
		{"content", add(`{"role": "assistant", "content": 42}`), "events[1].edit.message.content: want a string or a list of parts"},
		{"role type", add(`{"role": 7, "content": "x"}`), "events[1].edit.message.role: want a string, found a number"},
		{"role value", add(`{"role": "robot", "content": "x"}`), `events[1].edit.message.role: want system, user, assistant or tool, found "robot"`},
		{"tool call args", add(`{"role": "assistant", "content": "", "tool_calls": [{"id": "c", "function": "f", "arguments": []}]}`),
			"events[1].edit.message.tool_calls[0].arguments: want an object, found a list"},
		{"view", `{` + meta + `, "events": [{"type": "transcript_event", "view": 3, "edit": {"operation": "rollback", "count": 1}}]}`,
			"events[0].view: want a string or a list of strings"},
		{"operation", `{` + meta + `, "events": [{"type": "transcript_event", "view": "target", "edit": {"operation": "undo"}}]}`,
			`events[0].edit.operation: want add, rollback, reset or json_patch, found "undo"`},
		{"no type", `{` + meta + `, "events": [{"view": "target", "edit": {"operation": "rollback", "count": 1}}]}`, "events[0].type: missing"},
		{"events type", `{` + meta + `, "events": {}}`, "events: want a list, found an object"},
		{"score", `{"metadata": {"transcript_id": "x", "judge_output": {"summary": "s", "scores": {"concerning": "high"}}}, "events": []}`,
			"metadata.judge_output.scores.concerning: want a number, found a string"},
		{"patch op", `{` + meta + `, "events": [{"type": "transcript_event", "view": "target", "edit": {"operation": "json_patch", "patch": [{"op": "nudge", "path": "/0"}]}}]}`,
			`events[0].edit.patch[0].op: want add, remove, replace, move, copy or test, found "nudge"`},
		{"legacy message", `{` + meta + `, "messages": [{"role": "user", "content": "a"}, {"role": "user", "content": {"text": "b"}}]}`,
			"messages[1].content: want a string or a list of parts"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, err := Parse([]byte(tt.doc))
			if err == nil {
				t.Fatalf("no error, want %q", tt.want)
			}
			if _, ok := err.(*ParseError); !ok {
				t.Errorf("error is %T, want *ParseError", err)
			}
			if !strings.Contains(err.Error(), tt.want) {
				t.Errorf("err = %q, want it to contain %q", err, tt.want)
			}
		})
	}
}

func TestParseKeepsBOMOut(t *testing.T) {
	b := append([]byte{0xEF, 0xBB, 0xBF}, testdata(t, "legacy.json")...)
	if _, err := Parse(b); err != nil {
		t.Fatal(err)
	}
}

// TestUnquote: unquote's shortcut gives what json.Unmarshal gives, and
// leaves every other string to it.
func TestUnquote(t *testing.T) {
	for _, in := range []string{`""`, `"plain text"`, `"héllo ☃"`, `"a\"b"`, `"a\\b"`, `"a\nb"`, `"tab	in"`, "\"a\x01b\"", "\"bad \xff utf-8\"",
		`"\u00e9"`, `"\ud800"`, `"unterminated`, `"`, `"a"b"`, `x`, `""""`} {
		var got, want string
		gotErr, wantErr := unquote([]byte(in), &got), json.Unmarshal([]byte(in), &want)
		if (gotErr == nil) != (wantErr == nil) || got != want {
			t.Errorf("unquote(%q) = %q, %v; json.Unmarshal gives %q, %v", in, got, gotErr, want, wantErr)
		}
	}
}

// TestSearchTextOnce: the search text holds every message's text and
// string tool-call arguments, each distinct text once (what the auditor
// sends is also the target's message, so repeats are the rule).
func TestSearchTextOnce(t *testing.T) {
	for _, name := range []string{"legacy.json", "reset.json", "rollback.json"} {
		tr, _ := mustParse(t, name)
		texts := map[string]bool{}
		n := 0
		collect := func(m *Message) {
			parts := []string{m.Content.String()}
			for _, tc := range m.ToolCalls {
				for _, v := range tc.Arguments {
					if s, ok := v.(string); ok {
						parts = append(parts, s)
					}
				}
			}
			for _, p := range parts {
				if p != "" {
					n++
					texts[p] = true
				}
			}
		}
		tr.eachMessage(collect)
		got := tr.SearchText()
		want := 0
		for s := range texts {
			if !strings.Contains(got, s) {
				t.Errorf("%s: the search text lacks %q", name, s)
			}
			want += len(s) + 1
		}
		if len(got) != want {
			t.Errorf("%s: search text of %d bytes, want %d: each of the %d distinct texts once (of %d)", name, len(got), want, len(texts), n)
		}
		if n == len(texts) {
			t.Errorf("%s: no text repeats: the fixture does not test the point", name)
		}
	}
}
