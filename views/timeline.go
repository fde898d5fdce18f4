package views

import "github.com/a-h/templ"

// TimelineView is an Inspect sample's events tab: each event a row, as
// Inspect's viewer lists them, filterable by kind and split into parts.
type TimelineView struct {
	Rows  []TimelineRow
	Kinds []KindTab // all kinds first, then each kind the sample has
	// Summary is the sample's events in a few lines: model calls with
	// their tokens and time, tool calls and their errors, and so on.
	Summary []string
	Part    PartNav
}

// TimelineRow is one event, formatted.
type TimelineRow struct {
	N      int    // its place in the sample's events, from 1
	Offset string // time since the sample's first event, "+12.3 s"
	Kind   string
	Name   string
	Detail string
	Result string
	Error  string
	Tokens string // "426 in · 15 out · 200 cached"
	Time   string // how long it took, "2.38 s"
	Notes  string // retries, cache
	Depth  int    // how deep inside spans and tool calls
}

// Indent is the row's nesting as a CSS class (capped: deeper rows are
// indented as much as the fifth level).
func (r TimelineRow) Indent() string {
	return "depth-" + string(rune('0'+min(r.Depth, 5)))
}

// KindTab is one kind of event the tab filters by.
type KindTab struct {
	Name    string
	Count   int
	URL     templ.SafeURL
	Current bool
}

// PartNav moves between the parts a long list is split into; Parts < 2
// means it is shown whole.
type PartNav struct {
	Part, Parts    int
	From, To, Of   int // the items shown (from 1) and how many there are
	Noun           string
	Prev, Next     templ.SafeURL
	First, Last    templ.SafeURL
	FindThisPartOf bool // find-in-transcript searches this part only: say so
}
