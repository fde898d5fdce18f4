package views

import (
	"context"
	"fmt"
	"io"
	"net/url"
	"strconv"
	"strings"

	"github.com/a-h/templ"
	"github.com/auditscope/auditscope/data/model"
	"github.com/auditscope/auditscope/views/links"
	"github.com/auditscope/auditscope/views/markdown"
)

// AuditView is the audit page.
type AuditView struct {
	Audit      model.AuditDetail
	Synthetic  bool
	Filter     url.Values // the browser filter the page was opened from
	Prev, Next string     // neighbour keys within the filter
	Views      []ViewTab
	View       string // the view shown
	Branch     int    // the branch shown (0-based)
	Branches   []BranchTab
	Messages   []MessageView
	SystemNote string // the auditor-set system prompt, shown first
	Judge      *JudgeView
	Labels     [][2]string // label name, value; sorted
	LoadError  string      // the transcript could not be read or replayed
	Judgments  []model.SideJudgment
	// DimensionInfo describes the judge's dimensions (Petri's defaults),
	// for the scores panel.
	DimensionInfo map[string]string
	// Sample marks an Inspect sample that is not an audit: the page shows
	// it in Inspect's terms (task, model, sample, epoch), without auditor,
	// target, behavior or eval.
	Sample bool
	// SampleInfo are the sample's header rows (name, value) when Sample.
	SampleInfo [][2]string
	// Scorers are an Inspect sample's scores as its scorers gave them
	// (those filed as judge dimensions are in the judge's panel).
	Scorers []model.SampleScore
	// Record is an Inspect sample's target, token usage, timing, limit and
	// errors; nil for a transcript that is not from Inspect.
	Record *SampleDetails
	// SameUnit are the other auditors' audits of this audit's unit (the
	// same evaluation, behavior and seed), to open beside it.
	SameUnit []model.Choice
	// LinkQuery selects the view and branch shown, when they are not the
	// defaults: a message's link carries it, so opened afresh it shows the
	// view and branch that hold the message.
	LinkQuery url.Values
	// Part moves between the parts of a transcript too long to send at
	// once. EventsURL opens the events tab of an Inspect sample that
	// records events ("" when it records none); Timeline is that tab,
	// shown in place of the messages.
	Part      PartNav
	EventsURL templ.SafeURL
	Timeline  *TimelineView
	// Verdicts are other judges' verdicts on the audit: each judge, its
	// summary and its scores beside the evaluation judge's.
	Verdicts []VerdictView
}

// VerdictView is another judge's verdict on an audit.
type VerdictView struct {
	Judge, Kind, Summary string
	Rows                 []VerdictRow
	// Outcomes are the judge's readings of what the evaluation needs
	// (quality, detected, ...), beside the evaluation judge's, formatted.
	Outcomes []OutcomeRow
}

// OutcomeRow is one outcome field under the evaluation judge and another.
type OutcomeRow struct{ Field, Eval, This string }

// VerdictRow is one dimension: the evaluation judge's score (NaN when it
// gave none) and this judge's.
type VerdictRow struct {
	Dim        string
	Eval, This float64
}

// SampleDetails is what an Inspect sample records besides its
// conversation, formatted.
type SampleDetails struct {
	Target                 []string // the expected answer; several when any counts
	Usage                  []UsageRow
	TotalTime, WorkingTime string // "2.1 s"; "" when not recorded
	Limit, Error           string
	Retries                []string // the errors of earlier attempts
}

// UsageRow is one model's tokens; "" where the provider reports none.
type UsageRow struct {
	Model, Input, Output, Total, CacheRead, CacheWrite, Reasoning string
}

// AnyCache reports whether a row has cache or reasoning counts, so the
// table shows those columns only when some model reports them.
func (d SampleDetails) AnyCache() bool {
	for _, u := range d.Usage {
		if u.CacheRead != "" || u.CacheWrite != "" || u.Reasoning != "" {
			return true
		}
	}
	return false
}

// ViewTab is a link to one view of the transcript.
type ViewTab struct {
	Name    string
	Current bool
	URL     templ.SafeURL
}

// BranchTab is a link to one branch of the shown view.
type BranchTab struct {
	Index    int
	Current  bool
	URL      templ.SafeURL
	Label    string
	Messages int
}

// MessageView is one message as shown.
type MessageView struct {
	Anchor string // the message's anchor on its audit page, without "m-"
	Prefix string // prefix of the element id when two transcripts share a page
	// Link is the message's permalink when not its audit page's (on a page
	// of two audits side by side, that page's).
	Link       string
	Role       string
	Side       string // who: auditor, target, auditor → target, ...
	Text       string
	Reasoning  string
	ToolCalls  []ToolCallView
	ToolCallID string
	Function   string
	Error      string
	Model      string
	Shared     bool // part of the prefix shared with the previous branch
	Long       bool
	Lines      int  // of Text, for a folded message's "show all"
	Markdown   bool // Text is rendered as markdown (an author's words, not a tool's output)
	// HTML is Text rendered as markdown ahead of the page (web renders a
	// long transcript's messages on every core); "" renders it in place.
	HTML  string
	Other []PartView // other content parts
}

// PartView is a content part that is not text: an image shown (Image, a
// data: URL), or a named placeholder.
type PartView struct {
	// Image is checked by web/app (a data: URL of a raster image type,
	// never SVG), so templ's URL filter, which refuses every data: URL,
	// is told it is safe.
	Image templ.SafeURL
	Label string
}

// ToolCallView is one tool call: its function, then each argument as
// written.
type ToolCallView struct {
	ID, Function, Arguments string
	Args                    []ToolArgView
}

// ToolArgView is one argument: a string verbatim (Code: over lines, shown
// as a block in Lang), any other value as indented JSON.
type ToolArgView struct {
	Name, Value, Lang string
	Code              bool
}

// FoldLines and FoldChars are how long a message or tool output may be
// before it is folded to its first lines: about a screen.
const (
	FoldLines = 40
	FoldChars = 4000
)

// Fold reports whether a text is long enough to be folded.
func Fold(text string) bool {
	return len(text) > FoldChars || strings.Count(text, "\n") >= FoldLines
}

// Head is a folded text's first lines.
func Head(text string) string {
	lines := strings.SplitN(text, "\n", 13)
	if len(lines) > 12 {
		lines = lines[:12]
	}
	h := strings.Join(lines, "\n")
	if len(h) > 1200 {
		h = h[:1200]
	}
	return h
}

// LineCount counts a text's lines.
func LineCount(text string) int { return strings.Count(text, "\n") + 1 }

// HighlightCode is code highlighted by class in lang (escaped as it is
// for a language the highlighter does not know).
// The page's highlighting budget (markdown.WithBudget) bounds how much new
// code one render colours.
func HighlightCode(code, lang string) templ.Component {
	return templ.ComponentFunc(func(ctx context.Context, w io.Writer) error {
		h, _ := markdown.HighlightWithin(markdown.BudgetFrom(ctx), code, lang)
		_, err := io.WriteString(w, h)
		return err
	})
}

// MarkdownHTML renders a message's text as markdown, safely (package
// markdown: raw HTML shown as text, links nofollow, images not fetched),
// its code coloured within the page's budget.
func MarkdownHTML(text string) templ.Component {
	return templ.ComponentFunc(func(ctx context.Context, w io.Writer) error {
		_, err := io.WriteString(w, markdown.RenderWithin(markdown.BudgetFrom(ctx), text))
		return err
	})
}

// JudgeView is the judge panel.
type JudgeView struct {
	Summary, Justification string
	Highlights             []HighlightView
}

// HighlightView is one citation with where its parts point.
type HighlightView struct {
	Index       int
	Description string
	Parts       []HighlightPart
}

// HighlightPart is one cited quote.
type HighlightPart struct {
	MessageID string
	Quote     string
	Href      templ.SafeURL // link that shows the message (another view when needed)
	Here      bool          // the message is on the page as shown
}

// Permalink is the audit's shareable link.
func (v AuditView) Permalink() templ.SafeURL { return links.Audit(v.Audit.Key, nil) }

// MessageLink is the shareable link of one message: the audit, the view
// and branch that hold the message, and the message's anchor.
func (v AuditView) MessageLink(anchor string) string {
	return string(links.Audit(v.Audit.Key, v.LinkQuery)) + "#m-" + anchor
}

// linkOf is a message's permalink.
func (v AuditView) linkOf(m MessageView) string {
	if m.Link != "" {
		return m.Link
	}
	return v.MessageLink(m.Anchor)
}

// NeighbourLink links to another audit with the same filter.
func (v AuditView) NeighbourLink(key string) templ.SafeURL {
	return links.Audit(key, v.Filter)
}

// BackLink returns to the browser with the filter.
func (v AuditView) BackLink() templ.SafeURL { return links.Audits(v.Filter) }

// RawLink downloads the transcript JSON.
func (v AuditView) RawLink() templ.SafeURL {
	return links.AuditTranscript(v.Audit.Key)
}

// Outcome describes the audit's outcome.
func (v AuditView) Outcome() string { return OutcomeText(v.Audit.AuditRow) }

// ScoreClass is the colour class of a 1–10 score.
func ScoreClass(s float64) string {
	n := int(s + 0.5)
	if n < 1 {
		n = 1
	}
	if n > 10 {
		n = 10
	}
	return "score-cell s" + strconv.Itoa(n)
}

// FmtScore formats a judge score.
func FmtScore(s float64) string { return strconv.FormatFloat(s, 'g', 4, 64) }

// FmtInt formats an int.
func FmtInt(n int) string { return fmt.Sprint(n) }

// FmtLabel shows a label: a number written with more digits than anyone
// reads (a metadata float such as 0.8860552919198255) to four significant
// digits; the page keeps the full value in the cell's title.
func FmtLabel(v string) string {
	f, err := strconv.ParseFloat(v, 64)
	if err != nil || !strings.ContainsAny(v, ".eE") || len(v) <= 8 {
		return v
	}
	return strconv.FormatFloat(f, 'g', 4, 64)
}

// Noun is what the page shows: "Sample" or "Audit".
func (v AuditView) Noun() string {
	if v.Sample {
		return "Sample"
	}
	return "Audit"
}

// HasAside tells whether the side panel has anything to show.
func (v AuditView) HasAside() bool {
	return v.Judge != nil || len(v.Audit.Scores) > 0 || len(v.Judgments) > 0 || len(v.Verdicts) > 0 || (!v.Sample && v.Audit.Summary != "")
}

// ScorerName is a score's scorer, with the key of a dictionary value.
func ScorerName(s model.SampleScore) string {
	if s.Key == "" {
		return s.Scorer
	}
	return s.Scorer + "." + s.Key
}

// ScorerNum is the number value_to_float gives, when it differs from the
// value as written ("C" is 1); "" when they read the same.
func ScorerNum(s model.SampleScore) string {
	if !s.Converted {
		return "not a number (0 for Inspect's metrics)"
	}
	n := strconv.FormatFloat(s.Num, 'g', -1, 64)
	if n == s.Value {
		return ""
	}
	return "= " + n
}
