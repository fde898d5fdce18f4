package web

import (
	"net/url"
	"strconv"
	"strings"
	"time"

	"github.com/a-h/templ"

	"github.com/auditscope/auditscope/views"
	"github.com/auditscope/auditscope/views/links"
	"github.com/auditscope/auditscope/web/app"
)

// A transcript is sent whole up to partBytes of text or partMessages
// messages (a 5.6 MB Petri transcript of 2,000 messages is one page), and
// beyond that in parts of about that size: a 50 MB Inspect sample is
// about nine pages a browser can hold, not one it cannot. An events tab
// shows eventsPerPart events a part.
// (Variables, so a test can split a small transcript.)
var (
	partBytes     = 6 << 20
	partMessages  = 3000
	eventsPerPart = 500
)

// messageParts splits a view's messages into parts: the index each part
// starts at. The split depends on the messages alone, so a part's number
// names the same messages every time.
func messageParts(msgs []app.Message) []int {
	starts := []int{0}
	size, n := 0, 0
	for i, m := range msgs {
		b := len(m.Text) + len(m.Reasoning)
		for _, tc := range m.ToolCalls {
			b += len(tc.Arguments)
		}
		for _, o := range m.Other {
			b += len(o.Image) + len(o.Label)
		}
		if n > 0 && (size+b > partBytes || n >= partMessages) {
			starts = append(starts, i)
			size, n = 0, 0
		}
		size += b
		n++
	}
	return starts
}

// partOf is the part (from 1) holding message i.
func partOf(starts []int, i int) int {
	p := 1
	for k, s := range starts {
		if i >= s {
			p = k + 1
		}
	}
	return p
}

// parsePart reads part= (from 1); 0 when absent.
func parsePart(q url.Values) (int, error) {
	p := q.Get("part")
	if p == "" {
		return 0, nil
	}
	n, err := strconv.Atoi(p)
	if err != nil || n < 1 {
		return 0, badRequestf("part: want a part number from 1, found %q", p)
	}
	return n, nil
}

// partNav links the parts of a list: base is the page's query without
// part=; starts are where each part begins, n how many items there are;
// key is the audit's.
func partNav(key string, base url.Values, part int, starts []int, n int, noun string) views.PartNav {
	nav := views.PartNav{Part: part, Parts: len(starts), Of: n, Noun: noun}
	if len(starts) < 2 {
		return nav
	}
	nav.From = starts[part-1] + 1
	nav.To = n
	if part < len(starts) {
		nav.To = starts[part]
	}
	link := func(p int) templ.SafeURL {
		q := url.Values{}
		for k, v := range base {
			q[k] = v
		}
		if p > 1 {
			q.Set("part", strconv.Itoa(p))
		}
		return links.Audit(key, q)
	}
	nav.First, nav.Last = link(1), link(len(starts))
	nav.Prev, nav.Next = link(max(1, part-1)), link(min(len(starts), part+1))
	return nav
}

// checkPart resolves part= against the parts there are (0 means the first).
func checkPart(part, parts int) (int, error) {
	if part == 0 {
		return 1, nil
	}
	if part > parts {
		return 0, badRequestf("part: want a part from 1 to %d, found %d", parts, part)
	}
	return part, nil
}

// offset is the time from t0 to at as "+12.3 s"; "" when either is
// unreadable.
func offset(t0 time.Time, at string) string {
	t, err := time.Parse(time.RFC3339Nano, at)
	if err != nil || t0.IsZero() {
		return ""
	}
	d := t.Sub(t0).Seconds()
	sign := "+"
	if d < 0 {
		sign = "−"
		d = -d
	}
	return sign + strconv.FormatFloat(d, 'f', 1, 64) + " s"
}

// plainKind names an event kind as a reader says it.
func plainKind(k string) string { return strings.ReplaceAll(k, "_", " ") }
