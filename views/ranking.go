package views

import (
	"fmt"
	"math"
	"strings"

	"github.com/a-h/templ"
)

// CompositeRankingView is the overview's lead: the auditors ranked by composite,
// and whether the compare page's test tells each from the best.
type CompositeRankingView struct {
	Rows []CompositeRankRow // the first few, best first
	Rest []CompositeRankRow // the others, folded away
	// Unranked are the names of the auditors without a composite.
	Unranked []string
	Filtered bool // the overview's filters select the auditors ranked
}

// Total is how many auditors are ranked.
func (v CompositeRankingView) Total() int { return len(v.Rows) + len(v.Rest) }

// RestSummary opens the folded rows: how many, and how many of them the
// test does not tell from the best.
func (v CompositeRankingView) RestSummary() string {
	tied := 0
	for _, r := range v.Rest {
		if r.Tied {
			tied++
		}
	}
	s := "The other " + Count(len(v.Rest), "auditor")
	if tied > 0 {
		s += fmt.Sprintf(" (%d not distinguishable from the best)", tied)
	}
	return s
}

// CompositeRankRow is one ranked auditor: its composite, and the best's composite
// minus its own by the compare page's test.
type CompositeRankRow struct {
	Rank                 int
	ID, Name             string
	Value, Lo, Hi        float64
	Diff, DiffLo, DiffHi float64
	P, PHolm, PFloor     float64
	Tied, Best           bool
	Method               string
	Compare              templ.SafeURL
}

// Best is the first row.
func (v CompositeRankingView) Best() CompositeRankRow { return v.Rows[0] }

// BestLead opens the answer: "Best: ", or what the filters narrowed it to.
func (v CompositeRankingView) BestLead() string {
	if v.Filtered {
		return "Best among the auditors the filters select: "
	}
	return "Best: "
}

// TiedSentence names the auditors the test does not tell from the best.
func (v CompositeRankingView) TiedSentence() string {
	names := v.TiedNames()
	if len(names) == 0 {
		if len(v.Rows) == 1 {
			return "It is the only auditor with a composite."
		}
		return "The paired test tells every other auditor from it (p < 0.05)."
	}
	head := fmt.Sprintf("%s %s not distinguishable from it by the paired test", Count(len(names), "other auditor"), plural(len(names), "is", "are"))
	if len(names) > 3 {
		return head + "; the closest are " + strings.Join(names[:3], "; ") + "."
	}
	return head + ": " + strings.Join(names, "; ") + "."
}

// TiedNames are the other auditors the test does not tell from the best,
// in rank order.
func (v CompositeRankingView) TiedNames() []string {
	var out []string
	for _, r := range append(v.Rows[1:], v.Rest...) {
		if r.Tied {
			out = append(out, r.Name)
		}
	}
	return out
}

// barWidth is an interval bar's width in CSS pixels.
const barWidth = 180

// BarScale is the composite scale of one table's interval bars: its rows'
// intervals and the best's value, in whole points.
type BarScale struct{ Lo, Hi, Best float64 }

// barScale is the scale of rows' bars.
func barScale(rows []CompositeRankRow, best float64) BarScale {
	lo, hi := best, best
	for _, r := range rows {
		for _, x := range []float64{r.Lo, r.Hi, r.Value} {
			if !math.IsNaN(x) && !math.IsInf(x, 0) {
				lo, hi = math.Min(lo, x), math.Max(hi, x)
			}
		}
	}
	return BarScale{Lo: math.Floor(lo), Hi: math.Ceil(hi), Best: best}
}

// x is val's position on the bar.
func (sc BarScale) x(val float64) float64 {
	if sc.Hi <= sc.Lo {
		return barWidth / 2
	}
	return 4 + (barWidth-8)*(val-sc.Lo)/(sc.Hi-sc.Lo)
}

// Coords are the positions of a row's interval, point and the best's value
// on its bar, formatted for SVG attributes.
func (sc BarScale) Coords(r CompositeRankRow) (lo, hi, val, best string) {
	f := func(x float64) string { return fmt.Sprintf("%.1f", x) }
	l, h := r.Lo, r.Hi
	if math.IsNaN(l) || math.IsNaN(h) {
		l, h = r.Value, r.Value
	}
	return f(sc.x(l)), f(sc.x(h)), f(sc.x(r.Value)), f(sc.x(sc.Best))
}

// Label says what a row's bar shows, for screen readers and on hover.
func (sc BarScale) Label(r CompositeRankRow) string {
	return fmt.Sprintf("composite %s, 95%% interval %s to %s, on a scale from %s to %s; the dashed line is the best, %s",
		Num(r.Value, 1), Num(r.Lo, 1), Num(r.Hi, 1), Num(sc.Lo, 0), Num(sc.Hi, 0), Num(sc.Best, 1))
}

// Verdict says what the test found for a row.
func (r CompositeRankRow) Verdict() string {
	switch {
	case r.Best:
		return "best"
	case math.IsNaN(r.P):
		return "no test"
	case r.Tied:
		return "not distinguishable"
	}
	return "below the best"
}
