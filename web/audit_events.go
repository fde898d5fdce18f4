package web

import (
	"fmt"
	"net/url"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/auditscope/auditscope/views"
	"github.com/auditscope/auditscope/views/links"
	"github.com/auditscope/auditscope/web/app"
)

// eventsQuery is the events tab's state: tab=events, the kind shown
// (kind=, all by default) and the part.
type eventsQuery struct {
	Kind string
	Part int
}

// parseEventsQuery reads the events tab's state; ok is false when the page
// shows the messages.
func parseEventsQuery(q url.Values) (eq eventsQuery, ok bool, err error) {
	switch q.Get("tab") {
	case "":
		if q.Get("kind") != "" {
			return eq, false, badRequestf("kind: the events tab's filter; add tab=events")
		}
		return eq, false, nil
	case "events":
	default:
		return eq, false, badRequestf("tab: want events, found %q", q.Get("tab"))
	}
	eq.Kind = q.Get("kind")
	eq.Part, err = parsePart(q)
	return eq, true, err
}

// values renders the query back, without defaults.
func (eq eventsQuery) values() url.Values {
	v := url.Values{"tab": {"events"}}
	if eq.Kind != "" {
		v.Set("kind", eq.Kind)
	}
	if eq.Part > 1 {
		v.Set("part", strconv.Itoa(eq.Part))
	}
	return v
}

// timelineView is the events tab of a sample's record.
func timelineView(tl []app.TimelineEvent, eq eventsQuery, key string, fq url.Values) (*views.TimelineView, error) {
	counts := map[string]int{}
	for _, e := range tl {
		counts[e.Kind]++
	}
	if eq.Kind != "" && counts[eq.Kind] == 0 {
		kinds := make([]string, 0, len(counts))
		for k := range counts {
			kinds = append(kinds, k)
		}
		slices.Sort(kinds)
		return nil, badRequestf("kind: this sample has no %q events (it has %s)", eq.Kind, strings.Join(kinds, ", "))
	}
	link := func(q eventsQuery) url.Values {
		v := q.values()
		for k, x := range fq {
			v[k] = x
		}
		return v
	}
	tv := &views.TimelineView{Summary: timelineSummary(tl)}
	tv.Kinds = append(tv.Kinds, views.KindTab{Name: "all", Count: len(tl), Current: eq.Kind == "",
		URL: links.Audit(key, link(eventsQuery{}))})
	for _, k := range kindOrder(counts) {
		tv.Kinds = append(tv.Kinds, views.KindTab{Name: k, Count: counts[k], Current: eq.Kind == k,
			URL: links.Audit(key, link(eventsQuery{Kind: k}))})
	}
	var t0 time.Time
	if len(tl) > 0 {
		t0, _ = time.Parse(time.RFC3339Nano, tl[0].At)
	}
	var shown []int // indexes into tl
	for i, e := range tl {
		if eq.Kind == "" || e.Kind == eq.Kind {
			shown = append(shown, i)
		}
	}
	var starts []int
	for i := 0; i < len(shown) || i == 0; i += eventsPerPart {
		starts = append(starts, i)
	}
	part, err := checkPart(eq.Part, len(starts))
	if err != nil {
		return nil, err
	}
	base := link(eventsQuery{Kind: eq.Kind})
	tv.Part = partNav(key, base, part, starts, len(shown), "events")
	end := min(len(shown), starts[part-1]+eventsPerPart)
	for _, i := range shown[starts[part-1]:end] {
		tv.Rows = append(tv.Rows, timelineRow(tl[i], i+1, t0))
	}
	return tv, nil
}

// kindOrder lists the kinds a sample has, those a reader looks for first.
func kindOrder(counts map[string]int) []string {
	first := []string{"model", "tool", "sandbox", "error", "sample_limit", "score", "approval", "input", "subtask", "logger", "info", "span", "state", "store", "sample_init"}
	var out []string
	for _, k := range first {
		if counts[k] > 0 {
			out = append(out, k)
		}
	}
	var rest []string
	for k := range counts {
		if !slices.Contains(first, k) {
			rest = append(rest, k)
		}
	}
	slices.Sort(rest)
	return append(out, rest...)
}

func timelineRow(e app.TimelineEvent, n int, t0 time.Time) views.TimelineRow {
	r := views.TimelineRow{N: n, Offset: offset(t0, e.At), Kind: plainKind(e.Kind), Name: e.Name, Detail: e.Detail,
		Result: e.Result, Error: e.Error, Depth: e.Depth}
	if e.Seconds != nil {
		r.Time = strconv.FormatFloat(*e.Seconds, 'f', 2, 64) + " s"
	}
	if u := e.Tokens; u != nil {
		r.Tokens = views.FmtInt(int(u.Input)) + " in · " + views.FmtInt(int(u.Output)) + " out"
		if u.CacheRead != nil && *u.CacheRead > 0 {
			r.Tokens += " · " + views.FmtInt(int(*u.CacheRead)) + " cached"
		}
	}
	var notes []string
	if e.Retries > 0 {
		notes = append(notes, fmt.Sprintf("retried %d %s", e.Retries, plural(e.Retries, "time", "times")))
	}
	if e.Cache != "" {
		notes = append(notes, "cache "+e.Cache)
	}
	r.Notes = strings.Join(notes, " · ")
	return r
}

// tally counts a sample's events for its summary.
type tally struct {
	calls, retries, tools, toolErrs, sandbox, sandboxErrs, errs int
	in, out, cached                                             int64
	secs                                                        float64
	limits                                                      []string
}

func (t *tally) add(e app.TimelineEvent) {
	switch e.Kind {
	case "model":
		t.calls++
		t.retries += e.Retries
		if u := e.Tokens; u != nil {
			t.in, t.out = t.in+u.Input, t.out+u.Output
			if u.CacheRead != nil {
				t.cached += *u.CacheRead
			}
		}
		if e.Seconds != nil {
			t.secs += *e.Seconds
		}
		if e.Error != "" {
			t.errs++
		}
	case "tool":
		t.tools++
		if e.Error != "" {
			t.toolErrs++
		}
	case "sandbox":
		t.sandbox++
		if e.Error != "" {
			t.sandboxErrs++
		}
	case "error":
		t.errs++
	case "sample_limit":
		t.limits = append(t.limits, e.Name)
	}
}

// timelineSummary is the sample's events in a few lines.
func timelineSummary(tl []app.TimelineEvent) []string {
	var t tally
	for _, e := range tl {
		t.add(e)
	}
	var lines []string
	if t.calls > 0 {
		l := fmt.Sprintf("%d model %s: %s tokens in, %s out", t.calls, plural(t.calls, "call", "calls"), views.FmtInt(int(t.in)), views.FmtInt(int(t.out)))
		if t.cached > 0 {
			l += ", " + views.FmtInt(int(t.cached)) + " read from the cache"
		}
		if t.secs > 0 {
			l += "; " + strconv.FormatFloat(t.secs, 'f', 1, 64) + " s in all"
		}
		if t.retries > 0 {
			l += fmt.Sprintf("; %d %s", t.retries, plural(t.retries, "retry", "retries"))
		}
		lines = append(lines, l)
	}
	if t.tools > 0 {
		lines = append(lines, fmt.Sprintf("%d tool %s, %d of them failed", t.tools, plural(t.tools, "call", "calls"), t.toolErrs))
	}
	if t.sandbox > 0 {
		lines = append(lines, fmt.Sprintf("%d sandbox %s, %d with a non-zero exit", t.sandbox, plural(t.sandbox, "command", "commands"), t.sandboxErrs))
	}
	if t.errs > 0 {
		lines = append(lines, fmt.Sprintf("%d %s (model calls' and the sample's)", t.errs, plural(t.errs, "error", "errors")))
	}
	if len(t.limits) > 0 {
		lines = append(lines, "Stopped by its "+strings.Join(t.limits, ", "))
	}
	return lines
}

func plural(n int, one, many string) string {
	if n == 1 {
		return one
	}
	return many
}
