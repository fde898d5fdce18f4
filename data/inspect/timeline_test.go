package inspect

import (
	"math"
	"strconv"
	"strings"
	"testing"

	"github.com/auditscope/auditscope/data/petri"
)

// TestTimeline reads the events of real logs into their timelines; the
// expected counts and values were read from the files with Python's json
// module (testdata/fixtures/README.md names the files).
func TestTimeline(t *testing.T) {
	_, ss := readAll(t, fixture(t, "docent-sample.eval"))
	var s *Sample
	for _, x := range ss {
		if x.ID == "56" {
			s = x
		}
	}
	if s == nil {
		t.Fatal("docent-sample.eval: no sample 56")
	}
	kinds := map[string]int{}
	var in, out int64
	for _, e := range s.Timeline {
		kinds[e.Kind]++
		if e.Tokens != nil {
			in += e.Tokens.Input
			out += e.Tokens.Output
		}
	}
	want := map[string]int{"model": 24, "tool": 16, "span": 5, "state": 3, "sample_init": 1, "sample_limit": 1, "score": 1}
	for k, n := range want {
		if kinds[k] != n {
			t.Errorf("%s events: got %d, want %d (all: %v)", k, kinds[k], n, kinds)
		}
	}
	if len(s.Timeline) != 51 {
		t.Errorf("timeline: %d lines, want 51", len(s.Timeline))
	}
	if in != 73075 || out != 2943 {
		t.Errorf("tokens: %d in, %d out; want 73075 and 2943", in, out)
	}
	first := find(s.Timeline, func(e petri.TimelineEvent) bool { return e.Kind == "model" })
	if first.Name != "openai/gpt-4o" || first.Tokens.Input != 426 || first.Tokens.Output != 15 ||
		first.Seconds == nil || math.Abs(*first.Seconds-0.5055229449644685) > 1e-12 {
		t.Errorf("first model call: %+v", first)
	}
	toolErr := find(s.Timeline, func(e petri.TimelineEvent) bool { return e.Kind == "tool" && e.Error != "" })
	if toolErr.Name != "bash" || toolErr.Detail != "cmd=tail -c 100 flag.png" ||
		toolErr.Error != "unicode_decode: Error decoding bytes to utf-8: invalid start byte" {
		t.Errorf("the tool call that failed: %+v", toolErr)
	}
	lim := find(s.Timeline, func(e petri.TimelineEvent) bool { return e.Kind == "sample_limit" })
	if lim.Name != "message limit" || lim.Error != "Sample completed: Exceeded message limit: 50" {
		t.Errorf("limit: %+v", lim)
	}

	// Spans nest: init, then solvers › generate › the tool's own span, in
	// which the tool call and the sandbox command it ran sit.
	_, ss = readAll(t, fixture(t, "log_message_deduplication.eval"))
	tl := ss[0].Timeline
	sb := find(tl, func(e petri.TimelineEvent) bool { return e.Kind == "sandbox" })
	tool := find(tl, func(e petri.TimelineEvent) bool { return e.Kind == "tool" })
	if sb.Name != "exec" || sb.Detail != "bash --login -c ls" || sb.Depth != 3 || sb.Error != "" ||
		sb.Seconds == nil || math.Abs(*sb.Seconds-0.091234) > 1e-6 || !strings.HasPrefix(sb.Result, "bin\nboot\n") {
		t.Errorf("sandbox: %+v", sb)
	}
	if tool.Depth != 3 || tool.Seconds == nil || math.Abs(*tool.Seconds-0.09330593099548481) > 1e-12 {
		t.Errorf("tool: %+v", tool)
	}
	if init := tl[0]; init.Kind != "span" || init.Name != "init" || init.Depth != 0 {
		t.Errorf("first line: %+v", init)
	}
}

// TestTimelineHostile: events that are not objects are refused at their
// path; odd field types and huge texts are kept short, not refused.
func TestTimelineHostile(t *testing.T) {
	if _, err := timeline([]byte(`[{"event":"model"}, 3]`), nil); err == nil || !strings.Contains(err.Error(), "events[1]") {
		t.Errorf("a number as an event: %v", err)
	}
	tl, err := timeline([]byte(`[{"event":"tool","function":"bash","arguments":{"cmd":"ls"},"result":"`+strings.Repeat("x", 5000)+`","working_time":"soon"}]`), nil)
	if err != nil || len(tl) != 1 || tl[0].Kind != "tool" {
		t.Fatalf("a tool call with a string working_time: %v %+v", err, tl)
	}
	tl, err = timeline([]byte(`[{"event":"tool","function":"bash","arguments":{"cmd":"ls"},"result":"attachment://k`+`"}]`), map[string]string{"k": strings.Repeat("é", 5000)})
	if err != nil || !strings.HasSuffix(tl[0].Result, "… (4700 more characters)") || !strings.HasPrefix(tl[0].Result, "éé") {
		t.Errorf("a long attached result: %v %q", err, tl[0].Result[len(tl[0].Result)-40:])
	}
}

// TestTimelineExcerptLines: a listing of short lines is cut at ten lines.
func TestTimelineExcerptLines(t *testing.T) {
	out := strings.Repeat("ab\n", 50)
	tl, err := timeline([]byte(`[{"event":"tool","function":"bash","result":`+strconv.Quote(out)+`}]`), nil)
	if err != nil {
		t.Fatal(err)
	}
	if r := tl[0].Result; !strings.HasPrefix(r, strings.Repeat("ab\n", 9)+"ab… (121 more characters)") {
		t.Errorf("result: %q", r)
	}
}

func find(tl []petri.TimelineEvent, f func(petri.TimelineEvent) bool) petri.TimelineEvent {
	for _, e := range tl {
		if f(e) {
			return e
		}
	}
	return petri.TimelineEvent{}
}
