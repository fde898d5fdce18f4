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
	var b strings.Builder
	texts := map[string]bool{}
	write := func(s string) {
		if s == "" || texts[s] {
			return
		}
		texts[s] = true
		b.WriteString(s)
		b.WriteByte('\n')
	}
	t.eachMessage(func(m *Message) {
		write(m.Content.String())
		for _, tc := range m.ToolCalls {
			// In key order: the same transcript gives the same text.
			for _, k := range slices.Sorted(maps.Keys(tc.Arguments)) {
				if s, ok := tc.Arguments[k].(string); ok {
					write(s)
				}
			}
		}
	})
	return b.String()
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
		if m.ID != "" {
			if seen[m.ID] {
				return
			}
			seen[m.ID] = true
		}
		f(m)
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
