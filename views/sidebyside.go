package views

import (
	"cmp"
	"math"
	"net/url"
	"slices"

	"github.com/a-h/templ"

	"github.com/auditscope/auditscope/data/model"
	"github.com/auditscope/auditscope/views/links"
)

// SideBySideView shows two audits next to each other: their facts, their
// judge scores with the differences, and their transcripts turn by turn.
type SideBySideView struct {
	A, B      SideAudit
	Synthetic bool
	Scores    []ScorePair // by the size of the difference, largest first
	Turns     []TurnPair
	Swap      templ.SafeURL // the same two audits, B on the left
	// Dim is the compare page's dimension the pair came from ("" for
	// none): the page leads with what decided it on each side.
	Dim, DimTitle string
}

// Verdict is one judgment that decided a side: its outcome from the side,
// the judge's reasoning, and its page.
type Verdict struct {
	Outcome, Reasoning string
	URL                templ.SafeURL
}

// SideBySideDimURL is SideBySideURL from a comparison's row: the page
// leads with what decided that dimension on each side.
func SideBySideDimURL(a, b, dim string) templ.SafeURL {
	return links.SideBySide(url.Values{"a": {a}, "b": {b}, "dim": {dim}})
}

// SideAudit is one side: the audit, its key and URL, the transcript's view
// shown and why a transcript could not be shown.
type SideAudit struct {
	Letter    string // "A" or "B"
	Audit     model.AuditDetail
	URL       templ.SafeURL
	View      string
	LoadError string
	Judge     *JudgeView
	// Sample marks a plain Inspect sample: Info are its header rows in
	// Inspect's terms (model, task, sample, epoch, log), Scorers its
	// scores as the scorers gave them.
	Sample  bool
	Info    [][2]string
	Scorers []model.SampleScore
	// Verdicts decided the side on the page's dimension (realism: the
	// realism judge's verdicts against the real conversation).
	Verdicts []Verdict
}

// Samples reports whether both sides are plain Inspect samples.
func (v SideBySideView) Samples() bool { return v.A.Sample && v.B.Sample }

// InfoRows pairs the sides' header rows by name, in A's order then B's.
func (v SideBySideView) InfoRows() [][3]string {
	var out [][3]string
	idx := map[string]int{}
	for _, side := range []int{0, 1} {
		info := v.A.Info
		if side == 1 {
			info = v.B.Info
		}
		for _, r := range info {
			i, ok := idx[r[0]]
			if !ok {
				i = len(out)
				idx[r[0]] = i
				out = append(out, [3]string{r[0]})
			}
			out[i][1+side] = r[1]
		}
	}
	return out
}

// ScorerRows pairs the sides' scorer values by scorer (and key).
func (v SideBySideView) ScorerRows() [][3]string {
	var out [][3]string
	idx := map[string]int{}
	for side, scores := range [][]model.SampleScore{v.A.Scorers, v.B.Scorers} {
		for _, sc := range scores {
			name := ScorerName(sc)
			i, ok := idx[name]
			if !ok {
				i = len(out)
				idx[name] = i
				out = append(out, [3]string{name})
			}
			val := sc.Value
			if n := ScorerNum(sc); n != "" {
				val += " " + n
			}
			out[i][1+side] = val
		}
	}
	return out
}

// ScorePair is one judge dimension's scores on both sides; NaN where a side
// has none.
type ScorePair struct {
	Dimension string
	A, B      float64
}

// Diff is A − B, NaN unless both sides have the dimension.
func (p ScorePair) Diff() float64 { return p.A - p.B }

// TurnPair is one turn of both transcripts: the messages from the turn's
// first message to the target (the system prompt and what comes before it
// are turn 0) to the next.
type TurnPair struct {
	N    int
	A, B []MessageView
}

// ScorePairs pairs two audits' judge scores by dimension, the largest
// difference first, then the dimensions only one side has, by name.
func ScorePairs(a, b []model.Score) []ScorePair {
	byDim := map[string]*ScorePair{}
	var out []*ScorePair
	get := func(d string) *ScorePair {
		if p := byDim[d]; p != nil {
			return p
		}
		p := &ScorePair{Dimension: d, A: math.NaN(), B: math.NaN()}
		byDim[d] = p
		out = append(out, p)
		return p
	}
	for _, s := range a {
		get(s.Dimension).A = s.Value
	}
	for _, s := range b {
		get(s.Dimension).B = s.Value
	}
	pairs := make([]ScorePair, len(out))
	for i, p := range out {
		pairs[i] = *p
	}
	slices.SortStableFunc(pairs, func(x, y ScorePair) int {
		dx, dy := math.Abs(x.Diff()), math.Abs(y.Diff())
		switch {
		case math.IsNaN(dx) != math.IsNaN(dy):
			if math.IsNaN(dx) {
				return 1
			}
			return -1
		case !math.IsNaN(dx) && dx != dy:
			return cmp.Compare(dy, dx)
		}
		return cmp.Compare(x.Dimension, y.Dimension)
	})
	return pairs
}

// Turns groups two transcripts' messages by turn, side by side: a turn
// starts at each message to the target (role user); what precedes the
// first is turn 0.
func Turns(a, b []MessageView) []TurnPair {
	ta, tb := splitTurns(a), splitTurns(b)
	out := make([]TurnPair, max(len(ta), len(tb)))
	for i := range out {
		out[i].N = i
		if i < len(ta) {
			out[i].A = ta[i]
		}
		if i < len(tb) {
			out[i].B = tb[i]
		}
	}
	return out
}

func splitTurns(ms []MessageView) [][]MessageView {
	turns := [][]MessageView{nil}
	for _, m := range ms {
		if m.Role == "user" {
			turns = append(turns, nil)
		}
		turns[len(turns)-1] = append(turns[len(turns)-1], m)
	}
	return turns // turn 0 may be empty: turn numbers line up on both sides
}

// FmtScorePair formats a side's score, "—" when it has none.
func FmtScorePair(v float64) string {
	if math.IsNaN(v) {
		return Undefined
	}
	return FmtScore(v)
}

// FmtScoreDiff formats A − B with a sign, "—" unless both sides have it.
func FmtScoreDiff(v float64) string {
	if math.IsNaN(v) {
		return Undefined
	}
	if v > 0 {
		return "+" + FmtScore(v)
	}
	if v < 0 {
		return "−" + FmtScore(-v)
	}
	return "0"
}
