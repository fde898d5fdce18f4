package petri

import (
	"maps"
	"slices"
	"strings"
)

// SearchText returns the text a full-text search should see: every
// message's visible text and tool-call arguments, across all views, each
// message once.
func (t *Transcript) SearchText() string {
	var b strings.Builder
	seen := map[string]bool{}
	add := func(m *Message) {
		if m.ID != "" {
			if seen[m.ID] {
				return
			}
			seen[m.ID] = true
		}
		if s := m.Content.String(); s != "" {
			b.WriteString(s)
			b.WriteByte('\n')
		}
		for _, tc := range m.ToolCalls {
			// In key order: the same transcript gives the same text.
			for _, k := range slices.Sorted(maps.Keys(tc.Arguments)) {
				if s, ok := tc.Arguments[k].(string); ok {
					b.WriteString(s)
					b.WriteByte('\n')
				}
			}
		}
	}
	for i := range t.Events {
		e := &t.Events[i]
		if e.Edit == nil {
			continue
		}
		if e.Edit.Message != nil {
			add(e.Edit.Message)
		}
		for j := range e.Edit.NewMessages {
			add(&e.Edit.NewMessages[j])
		}
	}
	for i := range t.Messages {
		add(&t.Messages[i])
	}
	for i := range t.TargetMessages {
		add(&t.TargetMessages[i])
	}
	return b.String()
}

// MessageCount returns the number of distinct messages in the transcript.
func (t *Transcript) MessageCount() int {
	seen := map[string]bool{}
	n := 0
	count := func(m *Message) {
		if m.ID != "" {
			if seen[m.ID] {
				return
			}
			seen[m.ID] = true
		}
		n++
	}
	for i := range t.Events {
		if e := t.Events[i].Edit; e != nil {
			if e.Message != nil {
				count(e.Message)
			}
			for j := range e.NewMessages {
				count(&e.NewMessages[j])
			}
		}
	}
	for i := range t.Messages {
		count(&t.Messages[i])
	}
	for i := range t.TargetMessages {
		count(&t.TargetMessages[i])
	}
	return n
}
