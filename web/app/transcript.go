package app

import (
	"context"
	"encoding/json"
	"errors"
	"maps"
	"slices"
	"strconv"
	"strings"

	"github.com/auditscope/auditscope/data/model"
	"github.com/auditscope/auditscope/data/petri"
)

// A transcript as the pages show it: decoded from the stored Petri JSON,
// its edit events replayed into views and branches (package petri), its
// messages put in plain terms with who said them, and the judge's output.

// The views of a transcript, as Petri names them.
const (
	ViewTarget   = petri.ViewTarget
	ViewAuditor  = petri.ViewAuditor
	ViewCombined = petri.ViewCombined
)

// Transcript is one audit's transcript. A transcript that is missing or
// cannot be read has no views and says why in Problem; one whose edits
// could not all be replayed has the views that could be rebuilt and says
// so too.
type Transcript struct {
	Problem string // "" when the transcript was read and replayed whole
	Cause   error  // what Problem reports, for the log
	// SystemNote is the target's system prompt, when the target's view has
	// one.
	SystemNote string
	Judge      *Judge // nil without a judge's output
	// Record is an Inspect sample's record beside its conversation
	// (target, token usage, timing, limit, errors); nil for others.
	Record *SampleRecord

	views     []petri.View
	targetIDs map[string]string // the messages of the target's conversation, by id
	size      int               // the bytes of its JSON, its cost in the memo
}

// SampleRecord, TokenUsage and TimelineEvent are as the transcript holds
// them.
type (
	SampleRecord  = petri.SampleRecord
	TokenUsage    = petri.TokenUsage
	TimelineEvent = petri.TimelineEvent
)

// Judge is the alignment judge's output on a transcript.
type Judge struct {
	Summary, Justification string
	Highlights             []Highlight
}

// Highlight is one cited passage: quoted parts of messages and what the
// judge says of them.
type Highlight struct {
	Index       *int // the judge's own number, when it gives one
	Description string
	Parts       []Quote
}

// Quote is text quoted from one message.
type Quote struct{ MessageID, Text string }

// ViewInfo is one view's shape: its name and branches.
type ViewInfo struct {
	Name     string
	Branches []BranchInfo
}

// BranchInfo is one branch of a view: how many messages it holds and the
// operation that ended it ("" for the last).
type BranchInfo struct {
	Messages int
	EndedBy  string
}

// Message is one message of a branch in plain terms.
type Message struct {
	ID, Role string
	// Side says who the message comes from as a reader needs it
	// ("auditor → target", "simulated tool result", "model", …).
	Side            string
	Text            string
	Reasoning       string // the reasoning parts, one per line ("(redacted reasoning)" for a redacted one)
	Other           []Part // content parts of other kinds
	Function, Model string
	ToolCallID      string // the call a tool message answers
	Error           string // a tool's error, "type: message"
	ToolCalls       []ToolCall
	Shared          bool // the branch shares it with the one before
}

// ToolCall is a call an assistant message makes: its arguments as indented
// JSON (no HTML escapes: "a & b", not "a \u0026 b"), and each argument as
// written (Args).
type ToolCall struct {
	ID, Function, Arguments string
	Args                    []ToolArg
}

// Transcript reads and replays one audit's transcript. Only a failure of
// the store (not a missing or bad transcript, which the Transcript reports)
// is an error.
func (s *Service) Transcript(ctx context.Context, exp, id string) (*Transcript, error) {
	return s.keptTranscript(ctx, "id\x00"+exp+"\x00"+id, func(ctx context.Context) ([]byte, error) { return s.r.Transcript(ctx, exp, id) })
}

// keptTranscript reads a transcript once for the data's version.
func (s *Service) keptTranscript(ctx context.Context, key string, read func(context.Context) ([]byte, error)) (*Transcript, error) {
	key += "@" + strconv.FormatInt(s.r.Version(), 10)
	return s.transcripts.Get(ctx, key, func(ctx context.Context) (*Transcript, error) {
		body, err := read(ctx)
		t, err := readTranscript(body, err)
		if t != nil {
			t.size = len(body)
		}
		return t, err
	})
}

// At most transcriptsKept transcripts are kept, and no more than
// transcriptsBytes of their JSON (a parsed transcript takes a few times
// its JSON): a 50 MB sample is kept alone.
const (
	transcriptsKept  = 8
	transcriptsBytes = 96 << 20
)

func newTranscriptMemo() *Memo[string, *Transcript] {
	m := NewMemo[string, *Transcript](transcriptsKept)
	m.Cost = func(t *Transcript) int { return t.size }
	m.MaxCost = transcriptsBytes
	m.Keep = func(t *Transcript) bool { return t.size <= transcriptsBytes }
	return m
}

// readTranscript replays a transcript as the store returned it (body) or
// failed to (err).
func readTranscript(body []byte, err error) (*Transcript, error) {
	if err != nil {
		// A transcript that is missing or bad stays so: the page says why,
		// with the rest of the audit. Any other failure (the database, a
		// client gone) is the caller's error.
		var ie *model.InputError
		switch {
		case errors.As(err, &ie):
			return &Transcript{Problem: "The transcript could not be read: " + ie.Error(), Cause: err}, nil
		case errors.Is(err, model.ErrNotFound):
			return &Transcript{Problem: "The transcript could not be read: it is missing from the database", Cause: err}, nil
		}
		return nil, err
	}
	var pt petri.Transcript
	if err := json.Unmarshal(body, &pt); err != nil {
		return &Transcript{Problem: "The transcript is not valid Petri JSON; download the raw JSON to inspect it."}, nil
	}
	t := &Transcript{targetIDs: map[string]string{}, Record: pt.Metadata.Sample}
	if t.views, err = pt.Views(); err != nil {
		t.Problem, t.Cause = "The transcript's edits could not be replayed ("+err.Error()+"); showing what could be rebuilt.", err
	}
	// Who said what: a message the target's view holds belongs to the
	// target's conversation; the rest is the auditor's own.
	for _, v := range t.views {
		if v.Name != ViewTarget {
			continue
		}
		for _, b := range v.Branches {
			for _, m := range b.Messages {
				if m.ID != "" {
					t.targetIDs[m.ID] = m.Role
				}
				if m.Role == "system" && t.SystemNote == "" {
					t.SystemNote = m.Content.String()
				}
			}
		}
	}
	if jo := pt.Metadata.JudgeOutput; jo != nil {
		t.Judge = &Judge{Summary: jo.Summary, Justification: jo.Justification}
		for _, h := range jo.Highlights {
			hl := Highlight{Index: h.Index, Description: h.Description}
			for _, p := range h.Parts {
				hl.Parts = append(hl.Parts, Quote{MessageID: p.MessageID, Text: p.QuotedText})
			}
			t.Judge.Highlights = append(t.Judge.Highlights, hl)
		}
	}
	return t, nil
}

// RawTranscript is a transcript as imported, for download.
func (s *Service) RawTranscript(ctx context.Context, exp, id string) ([]byte, error) {
	return s.r.Transcript(ctx, exp, id)
}

// Views are the transcript's views in display order, with their branches.
func (t *Transcript) Views() []ViewInfo {
	out := make([]ViewInfo, len(t.views))
	for i, v := range t.views {
		out[i].Name = v.Name
		for _, b := range v.Branches {
			out[i].Branches = append(out[i].Branches, BranchInfo{Messages: len(b.Messages), EndedBy: b.EndedBy})
		}
	}
	return out
}

// DefaultView is the view a page opens on: the combined view, which shows
// both sides with the tool calls, when the transcript has one.
func (t *Transcript) DefaultView() int {
	vi := 0
	for i, v := range t.views {
		if v.Name == ViewCombined {
			vi = i
		}
	}
	return vi
}

// Resolve finds the named view ("" for the default) and branch (-1 for its
// last); a name or branch the transcript lacks is a QueryError listing
// what it has.
func (t *Transcript) Resolve(view string, branch int) (vi, bi int, err error) {
	vi = t.DefaultView()
	if view != "" {
		vi = -1
		for i, v := range t.views {
			if v.Name == view {
				vi = i
			}
		}
		if vi < 0 {
			names := make([]string, len(t.views))
			for i, v := range t.views {
				names[i] = v.Name
			}
			return 0, 0, FieldErrorf("View", "this transcript has the views %s, not %q", strings.Join(names, ", "), view)
		}
	}
	v := t.views[vi]
	bi = len(v.Branches) - 1
	if branch >= 0 {
		if branch >= len(v.Branches) {
			return 0, 0, FieldErrorf("Branch", "the %s view has branches 0 to %d, not %d", v.Name, len(v.Branches)-1, branch)
		}
		bi = branch
	}
	return vi, bi, nil
}

// Messages are the messages of branch bi of view vi, each with who said it.
func (t *Transcript) Messages(vi, bi int) []Message {
	v := t.views[vi]
	br := v.Branches[bi]
	out := make([]Message, len(br.Messages))
	for i, m := range br.Messages {
		out[i] = plainMessage(m)
		out[i].Side = t.side(v.Name, m)
		out[i].Shared = bi > 0 && i < br.Shared
	}
	return out
}

// Locate finds the view and branch that hold message id, preferring the
// shown ones (here is then true); "" when no view holds it.
func (t *Transcript) Locate(id, view string, branch int) (name string, bi int, here bool) {
	for _, v := range t.views {
		if v.Name != view {
			continue
		}
		for _, m := range v.Branches[branch].Messages {
			if m.ID == id {
				return v.Name, branch, true
			}
		}
	}
	for _, v := range t.views {
		for bi := len(v.Branches) - 1; bi >= 0; bi-- {
			for _, m := range v.Branches[bi].Messages {
				if m.ID == id {
					return v.Name, bi, false
				}
			}
		}
	}
	return "", -1, false
}

// SideView is what a pairwise judgment shows of one side's transcript: the
// target's view (else the combined one, else the first) as it ends. ok is
// false for a transcript without views.
func (t *Transcript) SideView() (name string, branch int, messages []Message, ok bool) {
	vi := -1
	for i, v := range t.views {
		if v.Name == ViewTarget || (vi < 0 && v.Name == ViewCombined) {
			vi = i
		}
	}
	if vi < 0 && len(t.views) > 0 {
		vi = 0
	}
	if vi < 0 {
		return "", 0, nil, false
	}
	v := t.views[vi]
	bi := len(v.Branches) - 1
	messages = make([]Message, len(v.Branches[bi].Messages))
	for i, m := range v.Branches[bi].Messages {
		messages[i] = plainMessage(m)
	}
	return v.Name, bi, messages, true
}

// side names who a message of the named view comes from, as a reader needs
// it.
func (t *Transcript) side(view string, m petri.Message) string {
	_, inTarget := t.targetIDs[m.ID]
	if len(t.targetIDs) == 0 && view != ViewAuditor {
		// No target view (an Inspect sample, a legacy file): the
		// conversation is the model's own, so the role says who spoke.
		switch m.Role {
		case "assistant":
			return "model"
		case "tool":
			return "tool result"
		}
		return m.Role
	}
	switch {
	case view == ViewTarget && m.Role == "user":
		return "auditor → target"
	case view == ViewTarget && m.Role == "tool":
		return "simulated tool result"
	case view == ViewTarget:
		return "target"
	case view == ViewAuditor && m.Role == "tool":
		return "to the auditor"
	case view == ViewAuditor:
		return "auditor"
	case inTarget && m.Role == "user":
		return "auditor → target"
	case inTarget && m.Role == "tool":
		return "simulated tool result"
	case inTarget:
		return "target"
	case m.Role == "tool":
		return "to the auditor"
	}
	return "auditor"
}

// plainMessage puts a Petri message in plain terms.
func plainMessage(m petri.Message) Message {
	out := Message{ID: m.ID, Role: m.Role, Text: m.Content.String(), Function: m.Function, Model: m.Model}
	if len(m.ToolCallID) > 0 && m.Role == "tool" {
		out.ToolCallID = m.ToolCallID[0]
	}
	if m.Error != nil {
		out.Error = m.Error.Type + ": " + m.Error.Message
	}
	for _, p := range m.Content.Parts {
		switch p.Type {
		case "text":
		case "reasoning":
			if p.Redacted {
				out.Reasoning += "(redacted reasoning)\n"
			} else {
				out.Reasoning += p.Reasoning + "\n"
			}
		default:
			out.Other = append(out.Other, otherPart(p.Type, p.Raw))
		}
	}
	for _, tc := range m.ToolCalls {
		call := ToolCall{ID: tc.ID, Function: tc.Function, Arguments: indentedJSON(tc.Arguments)}
		for _, k := range slices.Sorted(maps.Keys(tc.Arguments)) {
			a := ToolArg{Name: k}
			if str, ok := tc.Arguments[k].(string); ok {
				a.Value, a.Code = str, strings.Contains(str, "\n")
				if a.Code {
					a.Lang = toolLanguage(tc.Function, k)
				}
			} else {
				a.Value = indentedJSON(tc.Arguments[k])
				a.Code = strings.Contains(a.Value, "\n")
			}
			call.Args = append(call.Args, a)
		}
		out.ToolCalls = append(out.ToolCalls, call)
	}
	return out
}
