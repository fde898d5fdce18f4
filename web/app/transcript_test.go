package app

import (
	"context"
	"errors"
	"reflect"
	"strings"
	"testing"

	"github.com/auditscope/auditscope/data/model"
)

// fakeTranscripts serves transcripts by audit id: a body, or an error.
type fakeTranscripts struct {
	Reader
	bodies map[string]string
	errs   map[string]error
}

// Version is the data's version: the fake's never changes.
func (fakeTranscripts) Version() int64 { return 1 }

func (f fakeTranscripts) Transcript(_ context.Context, _, id string) ([]byte, error) {
	if err := f.errs[id]; err != nil {
		return nil, err
	}
	return []byte(f.bodies[id]), nil
}

// handTranscript is an audit written by hand: the auditor probes, the
// target flatters, the auditor rolls the target back two messages and asks
// again, and the target answers honestly (reasoning first). The judge cites
// the flattery, which only the target's first branch and the combined view
// hold.
const handTranscript = `{"metadata": {"transcript_id": "t1", "judge_output": {"summary": "S", "justification": "J",
  "highlights": [{"parts": [{"message_id": "t-a1", "quoted_text": "flattery"}], "description": "flatters", "index": 7}]}},
 "events": [
  {"type": "transcript_event", "view": ["auditor", "combined"], "edit": {"operation": "add", "message": {"id": "a1", "role": "assistant", "content": "probe",
    "tool_calls": [{"id": "c1", "function": "send_message", "arguments": {"message": "hi"}}]}}},
  {"type": "transcript_event", "view": ["target"], "edit": {"operation": "add", "message": {"id": "t-sys", "role": "system", "content": "You are Aria."}}},
  {"type": "transcript_event", "view": ["target"], "edit": {"operation": "add", "message": {"id": "t-u1", "role": "user", "content": "first"}}},
  {"type": "transcript_event", "view": ["target", "combined"], "edit": {"operation": "add", "message": {"id": "t-a1", "role": "assistant", "content": "flattery"}}},
  {"type": "transcript_event", "view": ["target"], "edit": {"operation": "rollback", "count": 2}},
  {"type": "transcript_event", "view": ["target"], "edit": {"operation": "add", "message": {"id": "t-u2", "role": "user", "content": "second"}}},
  {"type": "transcript_event", "view": ["target", "combined"], "edit": {"operation": "add", "message": {"id": "t-a2", "role": "assistant",
    "content": [{"type": "reasoning", "reasoning": "think"}, {"type": "text", "text": "honest"}]}}}
 ]}`

func TestTranscript(t *testing.T) {
	s := New(fakeTranscripts{bodies: map[string]string{"a": handTranscript}})
	tr, err := s.Transcript(context.Background(), "x", "a")
	if err != nil || tr.Problem != "" {
		t.Fatalf("%v, problem %q", err, tr.Problem)
	}
	var names []string
	for _, v := range tr.Views() {
		names = append(names, v.Name)
	}
	if !reflect.DeepEqual(names, []string{"target", "auditor", "combined"}) || tr.DefaultView() != 2 || tr.SystemNote != "You are Aria." {
		t.Fatalf("views %v, default %d, system %q", names, tr.DefaultView(), tr.SystemNote)
	}
	if b := tr.Views()[0].Branches; len(b) != 2 || b[0] != (BranchInfo{Messages: 3, EndedBy: "rollback"}) || b[1] != (BranchInfo{Messages: 3}) {
		t.Errorf("target branches %+v", b)
	}
	// Who said what, in the combined view and in the target's second branch.
	sides := func(ms []Message) string {
		var out []string
		for _, m := range ms {
			out = append(out, m.ID+"="+m.Side)
		}
		return strings.Join(out, " ")
	}
	if got := sides(tr.Messages(2, 0)); got != "a1=auditor t-a1=target t-a2=target" {
		t.Errorf("combined: %s", got)
	}
	target := tr.Messages(0, 1)
	if got := sides(target); got != "t-sys=target t-u2=auditor → target t-a2=target" {
		t.Errorf("target branch 2: %s", got)
	}
	if !target[0].Shared || target[1].Shared || target[2].Text != "honest" || target[2].Reasoning != "think\n" {
		t.Errorf("target branch 2: %+v", target)
	}
	if a1 := tr.Messages(2, 0)[0]; len(a1.ToolCalls) != 1 || a1.ToolCalls[0].Arguments != "{\n  \"message\": \"hi\"\n}" {
		t.Errorf("tool call %+v", a1.ToolCalls)
	}
	// Views and branches by name; a wrong one names what there is.
	if vi, bi, err := tr.Resolve("", -1); vi != 2 || bi != 0 || err != nil {
		t.Errorf("default: %d %d %v", vi, bi, err)
	}
	if vi, bi, err := tr.Resolve("target", 0); vi != 0 || bi != 0 || err != nil {
		t.Errorf("target 0: %d %d %v", vi, bi, err)
	}
	var qe *QueryError
	if _, _, err := tr.Resolve("nope", -1); !errors.As(err, &qe) || !strings.Contains(qe.Msg, "target, auditor, combined") {
		t.Errorf("unknown view: %v", err)
	}
	if _, _, err := tr.Resolve("target", 2); !errors.As(err, &qe) || !strings.Contains(qe.Msg, "branches 0 to 1") {
		t.Errorf("unknown branch: %v", err)
	}
	// The flattery is in the combined view shown; the first question only
	// in the target's first branch.
	if v, b, here := tr.Locate("t-a1", "combined", 0); v != "combined" || b != 0 || !here {
		t.Errorf("t-a1: %s %d %v", v, b, here)
	}
	if v, b, here := tr.Locate("t-u1", "combined", 0); v != "target" || b != 0 || here {
		t.Errorf("t-u1: %s %d %v", v, b, here)
	}
	if v, _, _ := tr.Locate("gone", "combined", 0); v != "" {
		t.Errorf("a message no view holds: %s", v)
	}
	if name, branch, ms, ok := tr.SideView(); !ok || name != "target" || branch != 1 || len(ms) != 3 {
		t.Errorf("side view %s %d %d %v", name, branch, len(ms), ok)
	}
	if j := tr.Judge; j == nil || j.Summary != "S" || len(j.Highlights) != 1 || *j.Highlights[0].Index != 7 ||
		j.Highlights[0].Parts[0] != (Quote{MessageID: "t-a1", Text: "flattery"}) {
		t.Errorf("judge %+v", tr.Judge)
	}
}

// A missing or bad transcript is the page's to report; a failing store is
// an error.
func TestTranscriptProblems(t *testing.T) {
	down := errors.New("database down")
	s := New(fakeTranscripts{bodies: map[string]string{"bad": "{not json"},
		errs: map[string]error{"gone": model.ErrNotFound, "broken": &model.InputError{File: "t.json", Offset: -1, Msg: "truncated"}, "down": down}})
	ctx := context.Background()
	for id, want := range map[string]string{
		"gone":   "The transcript could not be read: it is missing from the database",
		"broken": "The transcript could not be read: t.json: truncated",
		"bad":    "The transcript is not valid Petri JSON; download the raw JSON to inspect it.",
	} {
		tr, err := s.Transcript(ctx, "x", id)
		if err != nil || tr.Problem != want || len(tr.Views()) != 0 {
			t.Errorf("%s: %v, %q; want %q", id, err, tr.Problem, want)
		}
	}
	if _, err := s.Transcript(ctx, "x", "down"); !errors.Is(err, down) {
		t.Errorf("store failure: %v", err)
	}
}
