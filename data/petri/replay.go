package petri

import (
	"encoding/json"
	"fmt"

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
func (s *viewState) patch(ops []JSONChange) error {
	doc, err := json.Marshal(s.cur)
	if err != nil {
		return err
	}
	if s.cur == nil {
		doc = []byte("[]")
	}
	raw, err := json.Marshal(ops)
	if err != nil {
		return err
	}
	p, err := jsonpatch.DecodePatch(raw)
	if err != nil {
		return fmt.Errorf("json_patch: %w", err)
	}
	opts := jsonpatch.NewApplyOptions()
	opts.AccumulatedCopySizeLimit = max(*s.copies, 1) // 0 would mean no limit
	out, err := p.ApplyWithOptions(doc, opts)
	if err != nil {
		return fmt.Errorf("json_patch: %w", err)
	}
	// Growth beyond the patch's own values came from copies.
	if grown := int64(len(out) - len(doc) - len(raw)); grown > 0 {
		if *s.copies -= grown; *s.copies < 0 {
			return fmt.Errorf("json_patch: copies grow the transcript by more than %d bytes", int64(maxCopyGrowth))
		}
	}
	var next []Message
	if err := json.Unmarshal(out, &next); err != nil {
		return fmt.Errorf("json_patch result: %w", err)
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
