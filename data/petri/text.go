package petri

import (
	"maps"
	"slices"
	"strings"
)

// SearchText returns the text a full-text search should see: every
// message's visible text and tool-call arguments, across all views, each
// message once and each text once.
//
// A text repeats in a Petri transcript: what the auditor sends is its
// send_message call's argument and then the target's user message, and a
// retried branch resends it. A search finds a text once as well as twice,
// and the search text, which every search reads whole when few audits
// match, is a fifth shorter for it (the demo's audits: 1,641 → 1,310
// bytes).
func (t *Transcript) SearchText() string {
	var w textWriter
	t.eachMessage(func(m *Message) {
		w.write(m.Content.String())
		for _, tc := range m.ToolCalls {
			// In key order: the same transcript gives the same text.
			for _, k := range slices.Sorted(maps.Keys(tc.Arguments)) {
				if s, ok := tc.Arguments[k].(string); ok {
					w.write(s)
				}
			}
		}
	})
	return w.String()
}

// textWriter writes a search text: each distinct text once, a line each.
// Index writes its texts through it too.
type textWriter struct {
	b    strings.Builder
	seen map[string]bool
}

func (w *textWriter) write(s string) {
	if s == "" || w.seen[s] {
		return
	}
	if w.seen == nil {
		w.seen = map[string]bool{}
	}
	w.seen[s] = true
	w.b.WriteString(s)
	w.b.WriteByte('\n')
}

func (w *textWriter) String() string { return w.b.String() }

// firstSight reports whether a message is met for the first time: one
// with an id is met again in every view that holds it; one without is
// always new.
func firstSight(seen map[string]bool, id string) bool {
	if id == "" {
		return true
	}
	if seen[id] {
		return false
	}
	seen[id] = true
	return true
}

// MessageCount returns the number of distinct messages in the transcript.
func (t *Transcript) MessageCount() int {
	n := 0
	t.eachMessage(func(*Message) { n++ })
	return n
}

// eachMessage calls f with each message of the transcript once: those of
// its events' edits in order, then its legacy message lists. A message
// with an id is met again in every view that holds it; only the first is
// passed.
func (t *Transcript) eachMessage(f func(*Message)) {
	seen := map[string]bool{}
	visit := func(m *Message) {
		if firstSight(seen, m.ID) {
			f(m)
		}
	}
	for i := range t.Events {
		if e := t.Events[i].Edit; e != nil {
			if e.Message != nil {
				visit(e.Message)
			}
			for j := range e.NewMessages {
				visit(&e.NewMessages[j])
			}
		}
	}
	for i := range t.Messages {
		visit(&t.Messages[i])
	}
	for i := range t.TargetMessages {
		visit(&t.TargetMessages[i])
	}
}
