package petri

import (
	"encoding/json"
	"fmt"
	"slices"
	"strconv"
	"strings"

	jsonpatch "github.com/evanphx/json-patch/v5"
)

// View names in display order.
const (
	ViewTarget   = "target"
	ViewAuditor  = "auditor"
	ViewCombined = "combined"
)

// Branch is one line of a view's history. Every branch but the last ended
// when a rollback, reset or patch shortened the history; the next branch
// starts from the shared prefix.
type Branch struct {
	Messages []Message
	// Shared is how many leading messages this branch shares with the one
	// before it (0 for the first).
	Shared int
	// EndedBy is the operation that closed the branch ("" for the last).
	EndedBy string
}

// View is one view's history: its branches in the order they happened.
type View struct {
	Name     string
	Branches []Branch
}

// Final returns the view's last branch: what the view holds at the end.
func (v View) Final() Branch { return v.Branches[len(v.Branches)-1] }

// ReplayError says which event could not be applied.
type ReplayError struct {
	Event int
	Msg   string
}

func (e *ReplayError) Error() string { return fmt.Sprintf("events[%d]: %s", e.Event, e.Msg) }

type viewState struct {
	branches []Branch
	cur      []Message
	shared   int
	copies   *int64 // copy budget left, shared by the replay's views
}

// maxCopyGrowth caps how much json_patch "copy" operations may grow the views
// of one transcript in total. A copy is the one edit whose output is not
// bounded by the file: a value copied into itself doubles, so a few kilobytes
// of events could otherwise ask for gigabytes. (Petri writes its patches
// with add, remove, replace and move.)
const maxCopyGrowth = 4 << 20

// close ends the current branch when an edit shortens the history to keep
// messages; the new branch shares them.
func (s *viewState) fork(op string, keep int) {
	s.branches = append(s.branches, Branch{Messages: s.cur, Shared: s.shared, EndedBy: op})
	next := make([]Message, keep, keep+8)
	copy(next, s.cur[:keep])
	s.cur = next
	s.shared = keep
}

// Views replays the transcript's edits in order and returns each view that
// has messages, target first. A legacy file (messages / target_messages, no
// events) gives a combined and a target view with one branch each.
func (t *Transcript) Views() ([]View, error) {
	if len(t.Events) == 0 {
		var out []View
		if len(t.TargetMessages) > 0 {
			out = append(out, View{Name: ViewTarget, Branches: []Branch{{Messages: t.TargetMessages}}})
		}
		if len(t.Messages) > 0 {
			out = append(out, View{Name: ViewCombined, Branches: []Branch{{Messages: t.Messages}}})
		}
		return out, nil
	}
	states := map[string]*viewState{}
	var order []string
	copies := int64(maxCopyGrowth)
	state := func(name string) *viewState {
		s, ok := states[name]
		if !ok {
			s = &viewState{copies: &copies}
			states[name] = s
			order = append(order, name)
		}
		return s
	}
	for i := range t.Events {
		e := &t.Events[i]
		if e.Type != EventTranscript || e.Edit == nil {
			continue
		}
		for _, name := range e.View {
			s := state(name)
			if err := s.apply(e.Edit); err != nil {
				return nil, &ReplayError{Event: i, Msg: err.Error()}
			}
		}
	}
	var out []View
	for _, name := range orderViews(order) {
		s := states[name]
		branches := append(s.branches, Branch{Messages: s.cur, Shared: s.shared})
		if len(branches) == 1 && len(s.cur) == 0 {
			continue
		}
		out = append(out, View{Name: name, Branches: branches})
	}
	return out, nil
}

func orderViews(names []string) []string {
	rank := map[string]int{ViewTarget: 0, ViewAuditor: 1, ViewCombined: 2}
	out := append([]string(nil), names...)
	for i := 1; i < len(out); i++ {
		for j := i; j > 0; j-- {
			ri, ok1 := rank[out[j]]
			rj, ok2 := rank[out[j-1]]
			if !ok1 {
				ri = 3
			}
			if !ok2 {
				rj = 3
			}
			if ri < rj {
				out[j], out[j-1] = out[j-1], out[j]
			}
		}
	}
	return out
}

func (s *viewState) apply(e *Edit) error {
	switch e.Operation {
	case OpAdd, "":
		if e.Message == nil {
			return fmt.Errorf("add edit without a message")
		}
		s.cur = append(s.cur, *e.Message)
	case OpRollback:
		keep := len(s.cur) - e.Count
		if e.ToID != "" {
			keep = -1
			for i, m := range s.cur {
				if m.ID == e.ToID {
					keep = i + 1
				}
			}
			if keep < 0 {
				return fmt.Errorf("rollback to message %q, which the view does not hold", e.ToID)
			}
		}
		if e.Count < 0 || keep < 0 {
			return fmt.Errorf("rollback of %d messages from a view of %d", e.Count, len(s.cur))
		}
		if keep < len(s.cur) {
			s.fork(OpRollback, keep)
		}
	case OpReset:
		if len(s.cur) > 0 {
			s.fork(OpReset, 0)
		}
		s.cur = append(s.cur, e.NewMessages...)
	case OpJSONPatch:
		return s.patch(e.Patch)
	default:
		return fmt.Errorf("unknown edit operation %q", e.Operation)
	}
	return nil
}

// patch applies an RFC 6902 patch to the view's message list. When the
// patch shortens the list the old list becomes a branch.
//
// Operations on one message (add, remove or replace of a whole message, or
// of a field inside one) are applied to that message alone; a recorder that
// writes every new message as a patch would otherwise cost a re-encoding of
// the whole view per event, quadratic in its length (a 2 MB transcript of
// 1,000 such events took 51 s). Other operations (move, copy, test, paths
// outside a message) go through the whole list, one operation at a time.
func (s *viewState) patch(ops []JSONChange) error {
	// The old list may become a branch: change a copy.
	budget := *s.copies
	next, err := s.applyOps(slices.Clone(s.cur), ops)
	if err != nil {
		// Between operations each message is a Message, which drops what
		// the type does not hold (unknown fields, empty omitempty ones) and
		// rejects what is not a message yet: a later operation of the
		// patch may need either. Only the result must be messages, so the
		// patch is applied to the whole list at once.
		*s.copies = budget
		next, err = s.applyWhole(s.cur, ops)
	}
	if err != nil {
		return err
	}
	if len(next) < len(s.cur) {
		keep := 0
		for keep < len(next) && keep < len(s.cur) && next[keep].ID == s.cur[keep].ID && next[keep].ID != "" {
			keep++
		}
		s.fork(OpJSONPatch, keep)
	}
	s.cur = next
	return nil
}

func (s *viewState) applyOps(list []Message, ops []JSONChange) ([]Message, error) {
	for _, op := range ops {
		var err error
		if list, err = s.applyOp(list, op); err != nil {
			return nil, err
		}
	}
	return list, nil
}

// applyOp applies one patch operation to list, which it may change.
func (s *viewState) applyOp(list []Message, op JSONChange) ([]Message, error) {
	i, rest, ok := messageIndex(op.Path, len(list), op.Op == "add")
	if !ok || op.From != "" || (op.Op != "add" && op.Op != "remove" && op.Op != "replace") || (op.Op != "remove" && len(op.Value) == 0) {
		return s.applyWhole(list, []JSONChange{op})
	}
	if rest != "" {
		// A change inside message i: patch that message's JSON alone.
		doc, err := json.Marshal(list[i])
		if err != nil {
			return nil, err
		}
		inner := op
		inner.Path = rest
		out, err := applyPatch(doc, []JSONChange{inner}, 0)
		if err != nil {
			return nil, err
		}
		var m Message
		if err := json.Unmarshal(out, &m); err != nil {
			return nil, fmt.Errorf("json_patch result: %w", err)
		}
		list[i] = m
		return list, nil
	}
	var m Message
	if op.Op != "remove" {
		if err := json.Unmarshal(op.Value, &m); err != nil {
			return nil, fmt.Errorf("json_patch result: %w", err)
		}
	}
	switch op.Op {
	case "add":
		return slices.Insert(list, i, m), nil
	case "remove":
		return slices.Delete(list, i, i+1), nil
	default: // replace
		list[i] = m
		return list, nil
	}
}

// messageIndex splits a JSON pointer into a message index and the pointer
// inside that message ("" for the message itself). The index must name one
// of the n messages, or the end of the list (n or "-") for an add of a
// whole message. ok is false for any other pointer.
func messageIndex(path string, n int, add bool) (i int, rest string, ok bool) {
	if !strings.HasPrefix(path, "/") {
		return 0, "", false
	}
	tok, after, nested := strings.Cut(path[1:], "/")
	if nested {
		rest = "/" + after
	}
	atEnd := add && !nested
	if tok == "-" {
		return n, "", atEnd
	}
	if tok == "" || (len(tok) > 1 && tok[0] == '0') { // RFC 6901: no leading zeros
		return 0, "", false
	}
	i, err := strconv.Atoi(tok)
	if err != nil || i < 0 || i > n || (i == n && !atEnd) {
		return 0, "", false
	}
	return i, rest, true
}

// applyWhole applies operations to the whole list's JSON, keeping the
// transcript's budget for growth by copies.
func (s *viewState) applyWhole(list []Message, ops []JSONChange) ([]Message, error) {
	doc := []byte("[]")
	if list != nil {
		var err error
		if doc, err = json.Marshal(list); err != nil {
			return nil, err
		}
	}
	out, err := applyPatch(doc, ops, *s.copies)
	if err != nil {
		return nil, err
	}
	// Growth beyond the operations' own values came from copies.
	grown := int64(len(out) - len(doc))
	for _, op := range ops {
		grown -= int64(len(op.Value)) + 1
	}
	if grown > 0 {
		if *s.copies -= grown; *s.copies < 0 {
			return nil, fmt.Errorf("json_patch: copies grow the transcript by more than %d bytes", int64(maxCopyGrowth))
		}
	}
	var next []Message
	if err := json.Unmarshal(out, &next); err != nil {
		return nil, fmt.Errorf("json_patch result: %w", err)
	}
	return next, nil
}

// applyPatch applies ops to doc. copyBudget caps the bytes copies may add
// (0 for operations that hold no copy); applyWhole charges the budget.
func applyPatch(doc []byte, ops []JSONChange, copyBudget int64) ([]byte, error) {
	raw, err := json.Marshal(ops)
	if err != nil {
		return nil, err
	}
	p, err := jsonpatch.DecodePatch(raw)
	if err != nil {
		return nil, fmt.Errorf("json_patch: %w", err)
	}
	opts := jsonpatch.NewApplyOptions()
	opts.AccumulatedCopySizeLimit = max(copyBudget, 1) // 0 would mean no limit
	out, err := p.ApplyWithOptions(doc, opts)
	if err != nil {
		return nil, fmt.Errorf("json_patch: %w", err)
	}
	return out, nil
}
